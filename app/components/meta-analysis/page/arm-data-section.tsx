import type { ComponentProps } from "react";
import { ArmExtractionTable } from "~/components/meta-analysis/arm-extraction-table";
import type { MetaStudy } from "~/browser/meta-selection";
import type { ArmSummary } from "./types";

/**
 * Data extraction per outcome at arm level: the arm extraction table over the selected studies
 * (from a review, each record's best text on the server), and which studies the arm-level rows
 * cover once used.
 */
export function ArmDataSection({
  selection,
  reviewId,
  signedIn,
  userLabel,
  busy,
  onUse,
  armSummary,
}: {
  selection: readonly MetaStudy[];
  reviewId: string | null;
  signedIn: boolean;
  userLabel: string;
  busy: boolean;
  onUse: ComponentProps<typeof ArmExtractionTable>["onUse"];
  armSummary: ArmSummary | null;
}) {
  return (
    <section aria-labelledby="arm-heading" className="mt-8 rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
      <h2 id="arm-heading" className="text-lg font-semibold text-slate-900">
        Data extraction per outcome (arm level)
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Name the intervention, comparator and outcome: MetaMind reads each study&apos;s events and group sizes, or
        means, SDs and group sizes, from its text and tables. Click a value to see where it was read; correct it if
        needed. The analysis computes effect sizes from these arm data.
      </p>
      <div className="mt-4">
        <ArmExtractionTable
          studies={selection.map((s) => ({
            id: String(s.id),
            title: s.title,
            text: [s.title, s.abstract, s.fullTextAnalysis].filter(Boolean).join("\n\n"),
            pmcid: s.pmcid ?? null,
            // From a review: the record's best text on the server (Europe PMC, uploaded PDF, attached full text).
            ...(reviewId
              ? {
                  reportUrl: `/api/reviews/${encodeURIComponent(reviewId)}/records/${s.id}/report`,
                  studyKey: `review:${reviewId}:${s.id}`,
                }
              : {}),
          }))}
          signedIn={signedIn}
          userLabel={userLabel}
          disabled={busy}
          onUse={onUse}
        />
      </div>
      {armSummary && (
        <p role="note" data-testid="arm-summary" className="mt-3 rounded-md bg-slate-50 p-2 text-sm text-slate-700">
          {armSummary.fromArms} {armSummary.fromArms === 1 ? "study is" : "studies are"} analysed from arm-level data.
          {armSummary.fromEstimates.length > 0 &&
            ` Arm data are missing for ${armSummary.fromEstimates.join("; ")}: the reported estimate with its CI is used instead.`}
          {armSummary.missing.length > 0 && ` No usable data for ${armSummary.missing.join("; ")}.`}
        </p>
      )}
    </section>
  );
}
