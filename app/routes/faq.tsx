import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { ChevronDown } from "lucide-react";
import type { ReactNode } from "react";

export const meta: MetaFunction = () => [{ title: "FAQ · MetaMind" }];

const link = (to: string, text: string) => (
  <Link to={to} className="font-medium text-brand-700 underline">
    {text}
  </Link>
);

/** SPEC §2 FAQ: five sections, links to /search, /profile and /reviews (systematic reviews, issue 33). */
const SECTIONS: { title: string; items: { q: string; a: ReactNode }[] }[] = [
  {
    title: "Getting Started",
    items: [
      {
        q: "What is MetaMind?",
        a: (
          <p>
            A research assistant that searches six academic databases at once, summarises studies with AI, runs{" "}
            {link("/reviews", "systematic reviews")} (import, de-duplication, screening, PRISMA) and builds
            meta-analysis reports.
          </p>
        ),
      },
      {
        q: "Can I run a systematic review?",
        a: (
          <p>
            Yes: open {link("/reviews", "Reviews")} and create a review with its question and criteria. Import your
            database exports (RIS, PubMed .nbib, BibTeX or CSV, e.g. from Covidence or EndNote) or add a search from the
            search page; duplicates are merged with the reason for each. Screen titles and abstracts with keyboard
            shortcuts while active learning (as in ASReview) puts the likely relevant records first, then the full
            texts, extract the data and download the PRISMA 2020 flow diagram, whose boxes add up at every stage
            (records awaiting a decision and marked maybe included).
          </p>
        ),
      },
      {
        q: "Do I need an account?",
        a: (
          <p>
            No. Guests can {link("/search", "search")} and try each AI feature 5 times per 24 hours. A free account adds
            bookmarks, saved searches, history, uploads viewing and assignments.
          </p>
        ),
      },
      {
        q: "What does Professional include?",
        a: (
          <p>
            Unlimited AI analyses, PDF upload, full-text and specialized analysis, multi-database search and BibTeX, RIS
            and PDF export, for $9.99/month or $99/year with a 7-day free trial.
          </p>
        ),
      },
    ],
  },
  {
    title: "Search & Discovery",
    items: [
      {
        q: "Which databases are searched?",
        a: (
          <p>
            PubMed, Crossref, Europe PMC, CORE, Semantic Scholar and DOAJ. Free accounts search PubMed; Professional
            searches all six, with duplicates merged by DOI, PMID and title.
          </p>
        ),
      },
      {
        q: "How do filters work?",
        a: (
          <p>
            Open Advanced Filters on the {link("/search", "search page")} to limit by date range, study type, journal
            impact, free full text and abstracts.
          </p>
        ),
      },
      {
        q: "Where is my search history?",
        a: (
          <p>
            Use the History button in the header, or the History tab of your {link("/profile", "profile")}. Each search
            is one entry, updated as you page through it.
          </p>
        ),
      },
    ],
  },
  {
    title: "AI-Powered Analysis",
    items: [
      {
        q: "How many AI analyses do I get?",
        a: (
          <p>
            Free accounts get 20 AI analyses per month unless the server sets another limit; Professional is unlimited.
          </p>
        ),
      },
      {
        q: "Can I trust the summaries?",
        a: (
          <p>
            Summaries quote their sources and never invent sentences when no AI model is configured, but always check
            key numbers against the study.
          </p>
        ),
      },
      {
        q: "How is a meta-analysis pooled?",
        a: (
          <p>
            Effects are pooled with a random-effects model (REML with Hartung–Knapp intervals), reporting τ² and I²,
            with a PRISMA-style report and GRADE rating.
          </p>
        ),
      },
    ],
  },
  {
    title: "Data Management",
    items: [
      {
        q: "Where are my bookmarks and reports?",
        a: (
          <p>
            On your {link("/profile", "profile")}: bookmarks, saved reports, saved answers, saved searches and history.
          </p>
        ),
      },
      {
        q: "Can I export or delete my data?",
        a: <p>Yes: Settings → Data & Privacy exports everything as JSON and deletes your account with all its data.</p>,
      },
      {
        q: "How do I send a report to the Student Portal?",
        a: <p>Open a report on your profile and choose Send to Student Portal or Transfer to Assignment.</p>,
      },
    ],
  },
  {
    title: "Installation & Technical",
    items: [
      {
        q: "Can I install MetaMind as an app?",
        a: (
          <p>
            Yes. When your browser offers it, an install banner appears; choose Install, or Later to be reminded in 24
            hours.
          </p>
        ),
      },
      {
        q: "Does it work offline?",
        a: (
          <p>
            The app shell opens offline, and bookmarks, searches, uploads and settings changes made offline are sent
            when you reconnect.
          </p>
        ),
      },
      {
        q: "Which browsers are supported?",
        a: <p>Current versions of Chrome, Edge, Firefox and Safari on desktop and mobile.</p>,
      },
    ],
  },
];

export default function Faq() {
  return (
    <div className="mx-auto max-w-3xl px-4 py-10 sm:px-6">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">Frequently Asked Questions</h1>
      <p className="mt-2 text-slate-600">Can&apos;t find an answer? {link("/contact", "Contact support")}.</p>
      {SECTIONS.map((section) => (
        <section
          key={section.title}
          className="mt-8"
          aria-labelledby={`faq-${section.title}`}
          data-testid="faq-section"
        >
          <h2 id={`faq-${section.title}`} className="text-xl font-semibold text-slate-900">
            {section.title}
          </h2>
          <div className="mt-3 divide-y divide-slate-200 rounded-xl border border-slate-200 bg-white">
            {section.items.map((item) => (
              <details key={item.q} className="group px-4 py-3" data-testid="faq-item">
                <summary className="flex cursor-pointer list-none items-center justify-between gap-3 font-medium text-slate-900 [&::-webkit-details-marker]:hidden">
                  {item.q}
                  <ChevronDown
                    className="size-4 shrink-0 text-slate-500 transition-transform group-open:rotate-180"
                    aria-hidden
                  />
                </summary>
                <div className="mt-2 text-slate-700">{item.a}</div>
              </details>
            ))}
          </div>
        </section>
      ))}
    </div>
  );
}
