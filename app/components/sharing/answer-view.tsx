import { Fragment } from "react";
import type { AnswerStudy } from "~/lib/sharing";

/** SPEC: the line every health answer carries. */
export const NOT_MEDICAL_ADVICE =
  "This is not medical advice. It summarises published research in plain language; talk to a qualified health professional about your own situation.";

/**
 * An answer's text as React nodes (so every stored text is escaped): "[n]" marks become links to
 * the cited study (`#study-n`), "⟦unverified: 12%⟧" shows as "12% (unverified)" and "⟦framing: …⟧"
 * as plain text.
 */
export function AnswerText({ text, studyCount }: { text: string; studyCount: number }) {
  const parts = text.split(/(\[\d{1,2}\]|⟦[^⟧]*⟧)/g);
  return (
    <>
      {parts.map((part, i) => {
        const mark = /^\[(\d{1,2})\]$/.exec(part);
        if (mark && Number(mark[1]) >= 1 && Number(mark[1]) <= Math.max(studyCount, 50)) {
          return (
            <sup key={i}>
              <a
                href={`#study-${mark[1]}`}
                className="font-medium text-brand-600 hover:underline"
                aria-label={`Study ${mark[1]}`}
              >
                [{mark[1]}]
              </a>
            </sup>
          );
        }
        const unverified = /^⟦unverified: (.*)⟧$/.exec(part);
        if (unverified)
          return (
            <Fragment key={i}>
              {unverified[1]} <em className="text-amber-700">(unverified)</em>
            </Fragment>
          );
        const framing = /^⟦framing: (.*)⟧$/.exec(part);
        if (framing) return <Fragment key={i}>{framing[1]}</Fragment>;
        return <Fragment key={i}>{part}</Fragment>;
      })}
    </>
  );
}

/** The studies an answer cites, each with its link and the quotes the answer's claims rest on. */
export function CitedStudies({ studies }: { studies: AnswerStudy[] }) {
  if (studies.length === 0) return null;
  return (
    <ol className="space-y-3" data-testid="cited-studies">
      {studies.map((s) => (
        <li key={s.n} id={`study-${s.n}`} className="rounded-lg border border-slate-200 bg-white p-3 text-sm">
          <p className="font-medium text-slate-900">
            [{s.n}]{" "}
            {s.url ? (
              <a
                href={s.url}
                target="_blank"
                rel="noopener noreferrer nofollow"
                className="text-brand-700 hover:underline"
              >
                {s.title}
              </a>
            ) : (
              s.title
            )}
          </p>
          {(s.journal || s.year) && (
            <p className="text-xs text-slate-500">{[s.journal, s.year].filter(Boolean).join(" · ")}</p>
          )}
          {s.quotes.map((q, i) => (
            <blockquote key={i} className="mt-2 border-l-2 border-slate-300 pl-3 text-slate-700 italic">
              “{q}”
            </blockquote>
          ))}
        </li>
      ))}
    </ol>
  );
}
