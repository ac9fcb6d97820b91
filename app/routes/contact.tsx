import type { MetaFunction } from "@remix-run/cloudflare";
import { CreditCard, FlaskConical, Lock, Mail, MapPin, Wrench, Clock } from "lucide-react";
import { Card, CardContent, CardHeader, CardTitle } from "~/components/ui/card";
import { COMPANY } from "~/lib/company";

export const meta: MetaFunction = () => [{ title: "Customer Support · MetaMind" }];

const TOPICS = [
  {
    title: "Subscription & Billing",
    icon: CreditCard,
    text: `Plans, invoices, cancellations and the ${COMPANY.moneyBackDays}-day money-back guarantee.`,
  },
  {
    title: "Technical Support",
    icon: Wrench,
    text: "Sign-in problems, uploads, exports, the installable app and anything that does not work.",
  },
  {
    title: "Research Assistance",
    icon: FlaskConical,
    text: "Building searches, choosing filters, reading meta-analysis output and citations.",
  },
  {
    title: "Data & Privacy",
    icon: Lock,
    text: `Data export, account deletion and privacy requests (answered within ${COMPANY.privacyRequestDays} days).`,
  },
];

const POLICIES = [
  { title: "Response commitment", text: `We reply ${COMPANY.responseTime}, ${COMPANY.supportHours}.` },
  {
    title: "Resolution process",
    text: "We confirm the problem, keep you updated and tell you when it is fixed or what we need from you.",
  },
  {
    title: "Escalation path",
    text: `If a reply does not solve it, ask for escalation: a senior team member reviews it, and billing disputes are answered within ${COMPANY.disputeBusinessDays} business days.`,
  },
  {
    title: "Satisfaction guarantee",
    text: `Not happy with Professional? Ask for a refund within ${COMPANY.moneyBackDays} days of your first payment.`,
  },
];

export default function Contact() {
  return (
    <div className="mx-auto max-w-4xl px-4 py-10 sm:px-6">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">Customer Support</h1>
      <p className="mt-2 text-slate-600">We are here to help with your account, your research and your data.</p>

      <Card className="mt-8" data-testid="contact-channels">
        <CardHeader>
          <CardTitle as="h2">
            <span className="text-lg">Contact channels</span>
          </CardTitle>
        </CardHeader>
        <CardContent className="grid gap-4 pt-0 sm:grid-cols-2">
          <p className="flex min-w-0 gap-2">
            <Mail className="mt-0.5 size-4 shrink-0 text-brand-600" aria-hidden />
            <span className="min-w-0 break-words">
              Support:{" "}
              <a className="text-brand-700 underline" href={`mailto:${COMPANY.supportEmail}`}>
                {COMPANY.supportEmail}
              </a>
            </span>
          </p>
          <p className="flex min-w-0 gap-2">
            <Lock className="mt-0.5 size-4 shrink-0 text-brand-600" aria-hidden />
            <span className="min-w-0 break-words">
              Privacy:{" "}
              <a className="text-brand-700 underline" href={`mailto:${COMPANY.privacyEmail}`}>
                {COMPANY.privacyEmail}
              </a>
            </span>
          </p>
          <p className="flex gap-2">
            <Clock className="mt-0.5 size-4 shrink-0 text-brand-600" aria-hidden />
            <span>
              Response {COMPANY.responseTime}, {COMPANY.supportHours}
            </span>
          </p>
          <p className="flex gap-2">
            <MapPin className="mt-0.5 size-4 shrink-0 text-brand-600" aria-hidden />
            <span>{COMPANY.address.join(", ")}</span>
          </p>
        </CardContent>
      </Card>

      <h2 className="mt-10 text-xl font-semibold text-slate-900">How can we help?</h2>
      <div className="mt-4 grid gap-4 sm:grid-cols-2">
        {TOPICS.map(({ title, icon: Icon, text }) => (
          <Card key={title} data-testid="support-topic">
            <CardContent className="flex gap-3 p-5">
              <Icon className="mt-0.5 size-5 shrink-0 text-brand-600" aria-hidden />
              <div>
                <h3 className="font-semibold text-slate-900">{title}</h3>
                <p className="mt-1 text-sm text-slate-700">{text}</p>
              </div>
            </CardContent>
          </Card>
        ))}
      </div>

      <h2 className="mt-10 text-xl font-semibold text-slate-900">Our support policy</h2>
      <div className="mt-4 grid gap-4 sm:grid-cols-2">
        {POLICIES.map(({ title, text }) => (
          <div key={title} className="rounded-xl border border-brand-100 bg-brand-50 p-5" data-testid="policy-box">
            <h3 className="font-semibold text-slate-900">{title}</h3>
            <p className="mt-1 text-sm text-slate-700">{text}</p>
          </div>
        ))}
      </div>
    </div>
  );
}
