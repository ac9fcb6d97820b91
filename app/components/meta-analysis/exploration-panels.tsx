import { displayEstimate } from "./forest-plot";
import { CumulativeForestPlot } from "./exploration-plots";
import { fmt, fmtPct, METHOD_LABELS, NOT_ESTIMABLE } from "~/lib/meta-analysis/display";
import { MetaInputError } from "~/lib/meta-analysis/errors";
import { analysisModelOptions } from "~/lib/meta-analysis/metareg";
import type { ExploredAnalysis } from "~/lib/meta-analysis/explore";
import { cumulativeRows, type CumulativeRow } from "~/lib/meta-analysis/plot-data";
import { sensitivityAnalyses } from "~/lib/meta-analysis/sensitivity";
import type { SensitivityRun } from "~/lib/meta-analysis/types";

/**
 * Cumulative meta-analysis (metafor cumul()) with its cumulative forest plot: the studies added one
 * at a time in order of publication year when `years` gives every study's year (ties and the rest
 * in the listed order), else in the listed order. Needs 2 studies.
 */
export function CumulativePanel({
  a,
  index,
  years,
}: {
  a: ExploredAnalysis;
  index: number;
  years?: readonly (number | null)[];
}) {
  if (a.effects.length < 2) return null;
  const byYear = years && years.length === a.effects.length && years.every((y) => typeof y === "number");
  const order = a.effects.map((_, i) => i);
  if (byYear) order.sort((i, j) => (years[i] as number) - (years[j] as number) || i - j);
  let rows: CumulativeRow[];
  try {
    rows = cumulativeRows(
      a.effects.map((e) => e.yi),
      a.effects.map((e) => e.vi),
      analysisModelOptions(a),
      order,
    );
  } catch (e) {
    if (e instanceof MetaInputError) return null;
    throw e;
  }
  return (
    <section data-testid="cumulative-analysis" aria-label="Cumulative meta-analysis" className="cumulative space-y-2">
      <h4 className="text-sm font-semibold text-slate-900">Cumulative meta-analysis</h4>
      <p className="text-sm text-slate-600">
        Studies added one at a time {byYear ? "in order of publication year" : "in the order listed"}, each row pooling
        the studies so far ({a.method}
        {a.test === "knha" ? ", Hartung–Knapp" : ""}).
      </p>
      <figure
        className="figure overflow-x-auto [&>svg]:min-w-[760px] print:[&>svg]:min-w-0"
        tabIndex={0}
        role="region"
        aria-label="Cumulative forest plot (scrolls sideways on a narrow screen)"
      >
        <CumulativeForestPlot
          id={`cumulative-forest-${index}`}
          measure={a.measure}
          reportedMeasure={a.reportedMeasure}
          rows={rows}
          labels={a.effects.map((e) => e.label)}
          orderLabel={byYear ? "publication year" : "the order listed"}
        />
      </figure>
    </section>
  );
}

function runEstimate(a: ExploredAnalysis, r: SensitivityRun): string {
  if (r.estimate === null || r.ci_lb === null || r.ci_ub === null) return NOT_ESTIMABLE;
  return displayEstimate(a.measure, r.estimate, r.ci_lb, r.ci_ub);
}

/**
 * Sensitivity analyses side by side: the main analysis, the other model (fixed vs random effects),
 * another τ² estimator and the analysis without influential studies (metafor influence()), from
 * the job result when it carries them, else computed from the analysis's effects.
 */
export function SensitivityPanel({ a, runs }: { a: ExploredAnalysis; runs?: SensitivityRun[] }) {
  const rows = runs ?? (a.effects.length >= 2 ? sensitivityAnalyses(a) : []);
  if (rows.length < 2) return null;
  return (
    <section data-testid="sensitivity-analyses" aria-label="Sensitivity analyses" className="sensitivity space-y-1">
      {/* A phone scrolls the table sideways inside its box (keyboard: focus it), never the page. */}
      <div
        className="overflow-x-auto"
        tabIndex={0}
        role="region"
        aria-label="Sensitivity analyses table (scrolls sideways on a narrow screen)"
      >
        <table className="w-full border-collapse text-left text-sm">
          <caption className="mb-1 text-left text-sm font-semibold text-slate-900">Sensitivity analyses</caption>
          <thead>
            <tr className="border-b border-slate-300">
              <th scope="col" className="py-1 pr-3">
                Analysis
              </th>
              <th scope="col" className="py-1 pr-3">
                Model
              </th>
              <th scope="col" className="py-1 pr-3">
                k
              </th>
              <th scope="col" className="py-1 pr-3">
                Estimate [95% CI]
              </th>
              <th scope="col" className="py-1 pr-3">
                τ²
              </th>
              <th scope="col" className="py-1">
                I²
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} className="border-b border-slate-100 align-top" data-testid="sensitivity-row">
                <th scope="row" className="py-1 pr-3 font-normal">
                  {r.label}
                  {r.left_out.length > 0 && (
                    <div className="text-xs text-slate-500">Left out: {r.left_out.join("; ")}</div>
                  )}
                  {r.note && <div className="text-xs text-slate-500">{r.note}</div>}
                </th>
                <td className="py-1 pr-3">
                  {METHOD_LABELS[r.method]}
                  {r.test === "knha" ? ", Hartung–Knapp" : ""}
                </td>
                <td className="py-1 pr-3 tabular-nums">{r.studies}</td>
                <td className="py-1 pr-3 tabular-nums">{runEstimate(a, r)}</td>
                <td className="py-1 pr-3 tabular-nums">{r.tau2 === null ? NOT_ESTIMABLE : fmt(r.tau2, 4)}</td>
                <td className="py-1 tabular-nums">{r.I2 === null ? NOT_ESTIMABLE : fmtPct(r.I2)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
