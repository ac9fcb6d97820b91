import type { Dispatch, SetStateAction } from "react";
import {
  GENQ_WEIGHT_CHOICES,
  GENQ_WEIGHT_LABELS,
  isGenq,
  METHOD_LABELS,
  TEST_LABELS,
} from "~/lib/meta-analysis/display";
import { DEFAULT_OPTIONS, METHOD_CHOICES, type AnalysisOptions } from "~/lib/meta-analysis/page-logic";
import type { GenqWeights, Method, TestType } from "~/lib/meta-analysis/types";

/**
 * The Model section of /meta-analysis: τ² estimator, test and confidence intervals (REML with
 * Hartung–Knapp by default, with a Restore defaults link once changed), the Summary of Findings'
 * assumed control risk per 1,000, and notes when the review's GRADE settings or RoB 2 judgements
 * are used.
 */
export function ModelSettings({
  options,
  setOptions,
  assumedRisk,
  setAssumedRisk,
  assumedRiskInvalid,
  gradeFromReview,
  robFromReview,
}: {
  options: AnalysisOptions;
  setOptions: Dispatch<SetStateAction<AnalysisOptions>>;
  assumedRisk: string;
  setAssumedRisk: (value: string) => void;
  assumedRiskInvalid: boolean;
  gradeFromReview: boolean;
  robFromReview: boolean;
}) {
  return (
    <section aria-labelledby="model-heading" className="mt-6 rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
      <h2 id="model-heading" className="text-lg font-semibold text-slate-900">
        Model
      </h2>
      <div className="mt-3 grid min-w-0 gap-4 sm:grid-cols-2">
        <label className="flex min-w-0 flex-col gap-1 text-sm text-slate-700">
          τ² estimator
          <select
            data-testid="method-select"
            value={options.method}
            onChange={(e) => setOptions((o) => ({ ...o, method: e.target.value as Method }))}
            className="w-full max-w-full min-w-0 truncate rounded-md border border-slate-300 px-2 py-1.5"
          >
            {METHOD_CHOICES.map((m) => (
              <option key={m} value={m}>
                {m} — {METHOD_LABELS[m]}
                {m === "EE" ? " (no τ²)" : ""}
              </option>
            ))}
          </select>
        </label>
        <label className="flex min-w-0 flex-col gap-1 text-sm text-slate-700">
          Test and confidence intervals
          <select
            data-testid="test-select"
            value={options.test}
            onChange={(e) => setOptions((o) => ({ ...o, test: e.target.value as TestType }))}
            className="w-full max-w-full min-w-0 truncate rounded-md border border-slate-300 px-2 py-1.5"
          >
            <option value="knha">{TEST_LABELS.knha}</option>
            <option value="z">{TEST_LABELS.z}</option>
          </select>
        </label>
        {isGenq(options.method) && (
          <label className="flex min-w-0 flex-col gap-1 text-sm text-slate-700">
            Generalised Q weights
            <select
              data-testid="genq-weights-select"
              value={options.genqWeights ?? "inverse-variance"}
              onChange={(e) => setOptions((o) => ({ ...o, genqWeights: e.target.value as GenqWeights }))}
              className="w-full max-w-full min-w-0 truncate rounded-md border border-slate-300 px-2 py-1.5"
            >
              {GENQ_WEIGHT_CHOICES.map((w) => (
                <option key={w} value={w}>
                  {GENQ_WEIGHT_LABELS[w]}
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="flex min-w-0 flex-col gap-1 text-sm text-slate-700">
          Assumed control risk per 1,000 (Summary of Findings)
          <input
            type="number"
            inputMode="decimal"
            min={0}
            max={1000}
            step="any"
            data-testid="assumed-control-risk"
            value={assumedRisk}
            onChange={(e) => setAssumedRisk(e.target.value)}
            placeholder="Pooled control-group risk"
            aria-invalid={assumedRiskInvalid || undefined}
            className="w-full min-w-0 rounded-md border border-slate-300 px-2 py-1.5"
          />
        </label>
      </div>
      {gradeFromReview && (
        <p className="mt-2 text-xs text-slate-600" data-testid="grade-from-review">
          The review&apos;s GRADE settings are used: your rating changes, rated-up levels, decision thresholds and
          assumed control risks.
        </p>
      )}
      {robFromReview && (
        <p className="mt-2 text-xs text-slate-600" data-testid="rob-from-review">
          The review&apos;s RoB 2 judgements are used: a risk-of-bias column beside each forest plot, the sensitivity
          analysis by risk of bias and GRADE&apos;s risk-of-bias rating.
        </p>
      )}
      <p className="mt-2 text-xs text-slate-600">
        Defaults: REML with the Hartung–Knapp adjustment, as Cochrane&apos;s current guidance recommends.
        {(options.method !== DEFAULT_OPTIONS.method || options.test !== DEFAULT_OPTIONS.test) && (
          <button
            type="button"
            className="ml-2 text-brand-700 hover:underline"
            onClick={() => setOptions(DEFAULT_OPTIONS)}
          >
            Restore defaults
          </button>
        )}
      </p>
    </section>
  );
}
