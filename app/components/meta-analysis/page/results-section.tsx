import type { Dispatch, SetStateAction } from "react";
import { ResultsView } from "~/components/meta-analysis/analysis-results";
import { methodLabel, TEST_LABELS } from "~/lib/meta-analysis/display";
import type { DoneRun } from "./types";

/** The results of a finished run, per outcome, with the subgroup analysis and meta-regression moderators chosen per analysis. */
export function ResultsSection({
  done,
  subgroups,
  setSubgroups,
  moderators,
  setModerators,
}: {
  done: DoneRun;
  subgroups: Record<number, string | null>;
  setSubgroups: Dispatch<SetStateAction<Record<number, string | null>>>;
  moderators: Record<number, string[]>;
  setModerators: Dispatch<SetStateAction<Record<number, string[]>>>;
}) {
  return (
    <section
      aria-labelledby="results-heading"
      className="mt-8 rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
      data-testid="meta-results"
    >
      <h2 id="results-heading" className="text-lg font-semibold text-slate-900">
        Results
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        {methodLabel(done.options.method, done.options.genqWeights)} ({done.options.method}) ·{" "}
        {TEST_LABELS[done.options.test]} · computed by MetaMind&apos;s metafor-compatible engine
      </p>
      <div className="mt-6">
        <ResultsView
          result={done.result}
          subgroups={subgroups}
          onSubgroupChange={(index, key) => setSubgroups((prev) => ({ ...prev, [index]: key }))}
          moderators={moderators}
          onModeratorsChange={(index, keys) => setModerators((prev) => ({ ...prev, [index]: keys }))}
        />
      </div>
    </section>
  );
}
