import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { PolicyPage, type PolicySection } from "~/components/policy/policy-page";
import { COMPANY } from "~/lib/company";

export const meta: MetaFunction = () => [{ title: "Terms of Service · MetaMind" }];

const SECTIONS: PolicySection[] = [
  {
    title: "Acceptance of terms",
    body: (
      <p>
        By creating an account or using MetaMind as a guest you agree to these terms. If you do not agree, do not use
        the service.
      </p>
    ),
  },
  {
    title: "Description of the service",
    body: (
      <p>
        MetaMind searches six academic databases (PubMed, Crossref, Europe PMC, CORE, Semantic Scholar and DOAJ), writes
        AI summaries and analyses of studies, accepts PDF uploads and builds meta-analysis reports. It is an
        early-access beta: features may change.
      </p>
    ),
  },
  {
    title: "Accounts",
    body: (
      <p>
        You are responsible for your account and for keeping your password secret. Give a valid e-mail address. You must
        be at least {COMPANY.minimumAge} years old.
      </p>
    ),
  },
  {
    title: "Plans, billing and trials",
    body: (
      <>
        <p>
          The Free plan includes AI analyses up to a monthly limit, PubMed search and CSV, JSON and HTML export.
          Professional costs $9.99 per month or $99 per year (a 17% saving) and starts with a 7-day free trial; a credit
          card is required and you can cancel at any time.
        </p>
        <p>
          Subscriptions renew automatically until cancelled. Cancelling stops the next renewal; you keep Professional
          until the end of the paid period.
        </p>
      </>
    ),
  },
  {
    title: "Refunds",
    body: (
      <p>
        We offer a {COMPANY.moneyBackDays}-day money-back guarantee on your first payment. Billing disputes are answered
        within {COMPANY.disputeBusinessDays} business days.
      </p>
    ),
  },
  {
    title: "Acceptable use",
    body: (
      <p>
        Do not misuse the service: no automated scraping, no attempts to bypass usage limits or security, no uploads you
        have no right to share, and nothing unlawful.
      </p>
    ),
  },
  {
    title: "Your content",
    body: (
      <p>
        PDFs you upload and the reports you save remain yours. You give us the permission needed to store and process
        them to provide the service to you.
      </p>
    ),
  },
  {
    title: "AI output and medical disclaimer",
    body: (
      <p>
        AI summaries and analyses can be incomplete or wrong. Always check them against the original studies. MetaMind
        is a research tool, not medical advice: consult a qualified professional before making health decisions.
      </p>
    ),
  },
  {
    title: "Third-party content",
    body: (
      <p>
        Study records come from third-party databases and publishers under their own terms. We do not control their
        accuracy or availability.
      </p>
    ),
  },
  {
    title: "Limitation of liability and termination",
    body: (
      <p>
        The service is provided as is. To the extent the law allows, we are not liable for indirect losses. We may
        suspend accounts that break these terms; you may delete your account at any time in Settings.
      </p>
    ),
  },
  {
    title: "Changes and contact",
    body: (
      <p>
        We may update these terms and will show the new date above. Questions:{" "}
        <a className="text-brand-700 underline" href={`mailto:${COMPANY.supportEmail}`}>
          {COMPANY.supportEmail}
        </a>{" "}
        or the{" "}
        <Link className="text-brand-700 underline" to="/contact">
          support page
        </Link>
        . See also our{" "}
        <Link className="text-brand-700 underline" to="/privacy">
          Privacy Policy
        </Link>
        .
      </p>
    ),
  },
];

export default function Terms() {
  return (
    <PolicyPage
      title="Terms of Service"
      updated="July 9 2025"
      intro={<p>These terms govern your use of MetaMind, its website and its installable app.</p>}
      sections={SECTIONS}
    />
  );
}
