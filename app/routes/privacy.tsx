import type { MetaFunction } from "@remix-run/cloudflare";
import { PolicyPage, type PolicySection } from "~/components/policy/policy-page";
import { COMPANY } from "~/lib/company";

export const meta: MetaFunction = () => [{ title: "Privacy Policy · MetaMind" }];

const mail = (address: string) => (
  <a className="text-brand-700 underline" href={`mailto:${address}`}>
    {address}
  </a>
);

/** SPEC §2 Privacy: 11 numbered sections in this order; §9 privacy claims. */
const SECTIONS: PolicySection[] = [
  {
    title: "Information we collect",
    body: (
      <p>
        Account details (e-mail, optional first and last name), your settings, searches and search history, bookmarks,
        saved searches and reports, uploaded PDFs and their extracted text, assignments and study guides, and usage
        counts of AI features.
      </p>
    ),
  },
  {
    title: "How we use your information",
    body: (
      <p>
        To run your searches, generate the summaries and analyses you ask for, keep your library, enforce plan limits,
        process payments and answer support requests. We do not sell your data.
      </p>
    ),
  },
  {
    title: "Data storage and security",
    body: (
      <p>
        Data is stored in the EU and encrypted in transit with TLS 1.3. Passwords are stored only as salted hashes. We
        keep your data for the lifetime of your account plus {COMPANY.retentionAfterDeletionDays} days after deletion.
      </p>
    ),
  },
  {
    title: "Third-party services",
    body: (
      <p>
        Search queries are sent to the academic databases you choose; text you ask to summarise may be sent to our AI
        model provider; payments are handled by our card payment provider, which never shares your full card number with
        us.
      </p>
    ),
  },
  {
    title: "Information sharing",
    body: (
      <p>We share data only with the processors above, when you share a link yourself, or when the law requires it.</p>
    ),
  },
  {
    title: "Your rights",
    body: (
      <p>
        You can export all your data and delete your account in Settings. You may also ask us to access, correct or
        erase your data; we answer privacy requests within {COMPANY.privacyRequestDays} days.
      </p>
    ),
  },
  {
    title: "Cookies and local storage",
    body: (
      <p>
        We use one session cookie to keep you signed in and browser storage for your preferences, guest trial counters,
        saved answers and study guides. We use no advertising cookies.
      </p>
    ),
  },
  {
    title: "International transfers",
    body: (
      <p>
        When a provider outside the EU processes data, we rely on appropriate safeguards such as standard contractual
        clauses.
      </p>
    ),
  },
  {
    title: "Children's privacy",
    body: (
      <p>
        MetaMind is not for children under {COMPANY.minimumAge}. We do not knowingly collect their data and delete it
        when we learn of it.
      </p>
    ),
  },
  {
    title: "Changes to this policy",
    body: <p>We will post any change here with a new date and, for significant changes, tell signed-in users.</p>,
  },
  {
    title: "Contact us",
    body: (
      <p>
        Privacy questions: {mail(COMPANY.privacyEmail)}. Everything else: {mail(COMPANY.supportEmail)}.{" "}
        {COMPANY.address.join(", ")}.
      </p>
    ),
  },
];

export default function Privacy() {
  return (
    <PolicyPage
      title="Privacy Policy"
      updated={COMPANY.policiesUpdated}
      intro={<p>This policy explains what MetaMind collects, why, and the choices you have.</p>}
      sections={SECTIONS}
    />
  );
}
