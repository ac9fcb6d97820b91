import { Link } from "@remix-run/react";
import type { ReactNode } from "react";

/** A numbered section of a policy page. */
export interface PolicySection {
  title: string;
  body: ReactNode;
}

/**
 * Layout shared by /terms and /privacy: title, 'Last updated', numbered sections (each an `h2`
 * with an id for deep links) and a link home.
 */
export function PolicyPage({
  title,
  updated,
  intro,
  sections,
}: {
  title: string;
  updated: string;
  intro: ReactNode;
  sections: PolicySection[];
}) {
  return (
    <article className="mx-auto max-w-3xl px-4 py-10 sm:px-6">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">{title}</h1>
      <p className="mt-2 text-sm text-slate-600" data-testid="last-updated">
        Last updated: {updated}
      </p>
      <div className="mt-6 space-y-3 text-slate-700">{intro}</div>
      <ol className="mt-8 space-y-8">
        {sections.map((section, i) => (
          <li key={section.title} data-testid="policy-section" aria-labelledby={`section-${i + 1}`}>
            <h2 id={`section-${i + 1}`} className="text-xl font-semibold text-slate-900">
              {i + 1}. {section.title}
            </h2>
            <div className="mt-2 space-y-2 break-words text-slate-700">{section.body}</div>
          </li>
        ))}
      </ol>
      <p className="mt-10">
        <Link to="/" className="font-medium text-brand-700 underline">
          Back to home
        </Link>
      </p>
    </article>
  );
}
