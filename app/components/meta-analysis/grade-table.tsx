import type { GradeAssessment, GradeLevel } from "~/lib/meta-analysis/types";

/** GRADE symbols: filled circles for the certainty level out of four. */
export const GRADE_SYMBOLS: Record<GradeLevel, string> = {
  high: "⊕⊕⊕⊕",
  moderate: "⊕⊕⊕◯",
  low: "⊕⊕◯◯",
  "very low": "⊕◯◯◯",
};

const DOWNGRADE_TEXT: Record<0 | -1 | -2, string> = {
  0: "Not serious",
  [-1]: "Serious (−1)",
  [-2]: "Very serious (−2)",
};

const LEVEL_CLASS: Record<GradeLevel, string> = {
  high: "bg-emerald-100 text-emerald-900",
  moderate: "bg-sky-100 text-sky-900",
  low: "bg-amber-100 text-amber-900",
  "very low": "bg-red-100 text-red-900",
};

export interface GradeTableProps {
  outcome: string;
  grade: GradeAssessment;
}

/**
 * GRADE certainty of one outcome: a row per domain (risk of bias, inconsistency, indirectness,
 * imprecision, publication bias) with its judgement and the reason computed from the data, and
 * the overall certainty with its symbols.
 */
export function GradeTable({ outcome, grade }: GradeTableProps) {
  return (
    <table data-testid="grade-table" className="w-full border-collapse text-left text-sm">
      <caption className="mb-2 text-left text-sm text-slate-700">
        GRADE certainty of evidence for <strong>{outcome}</strong>:{" "}
        <span
          data-testid="grade-certainty"
          className={`grade-${grade.certainty.replace(" ", "-")} rounded px-1.5 py-0.5 font-semibold ${LEVEL_CLASS[grade.certainty]}`}
        >
          <span aria-hidden>{GRADE_SYMBOLS[grade.certainty]} </span>
          {grade.certainty.toUpperCase()}
        </span>
      </caption>
      <thead>
        <tr className="border-b border-slate-300">
          <th scope="col" className="py-1.5 pr-3 font-semibold">
            Domain
          </th>
          <th scope="col" className="py-1.5 pr-3 font-semibold">
            Judgement
          </th>
          <th scope="col" className="py-1.5 font-semibold">
            Reason
          </th>
        </tr>
      </thead>
      <tbody>
        {grade.judgements.map((j) => (
          <tr key={j.domain} className="border-b border-slate-100 align-top" data-testid="grade-row">
            <th scope="row" className="py-1.5 pr-3 font-medium">
              {j.domain.charAt(0).toUpperCase() + j.domain.slice(1)}
            </th>
            <td className={`py-1.5 pr-3 whitespace-nowrap ${j.downgrade < 0 ? "text-amber-800" : "text-slate-700"}`}>
              {DOWNGRADE_TEXT[j.downgrade]}
            </td>
            <td className="py-1.5 text-slate-700">
              {j.reason}
              {j.computed && (
                <span className="block text-xs text-slate-500" data-testid="grade-computed">
                  Computed: {DOWNGRADE_TEXT[j.computed.downgrade]}. {j.computed.reason}
                </span>
              )}
            </td>
          </tr>
        ))}
        {(grade.ratedUp ?? []).map((r) => (
          <tr key={r.reason} className="border-b border-slate-100 align-top" data-testid="grade-row">
            <th scope="row" className="py-1.5 pr-3 font-medium">
              {r.reason.charAt(0).toUpperCase() + r.reason.slice(1)}
            </th>
            <td className="py-1.5 pr-3 whitespace-nowrap text-emerald-800">Rated up (+{r.levels})</td>
            <td className="py-1.5 text-slate-700">Reviewer&apos;s judgement: {r.justification}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
