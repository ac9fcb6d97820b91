import { BaujatPlot } from "./exploration-plots";
import { fmt, fmtPct, NOT_ESTIMABLE } from "~/lib/meta-analysis/display";
import { baujat } from "~/lib/meta-analysis/plot-data";
import { influence, type InfluenceResult } from "~/lib/meta-analysis/influence";
import { MetaInputError } from "~/lib/meta-analysis/errors";
import { analysisModelOptions } from "~/lib/meta-analysis/metareg";
import type { ExploredAnalysis } from "~/lib/meta-analysis/explore";

/** metafor influence() of an analysis's effects with its estimator and test; null when it cannot be computed. */
export function analysisInfluence(
  a: Pick<ExploredAnalysis, "effects" | "method" | "test" | "genqWeights">,
): InfluenceResult | null {
  if (a.effects.length < 3) return null;
  try {
    return influence(
      a.effects.map((e) => e.yi),
      a.effects.map((e) => e.vi),
      null,
      analysisModelOptions(a),
    );
  } catch (e) {
    if (e instanceof MetaInputError) return null;
    throw e;
  }
}

/** Baujat plot of the analysis (metafor baujat()), studies numbered as listed; nothing when not computable. */
function BaujatFigure({ a }: { a: ExploredAnalysis }) {
  try {
    const points = baujat(
      a.effects.map((e) => e.yi),
      a.effects.map((e) => e.vi),
      analysisModelOptions(a),
    );
    return (
      <figure className="figure">
        <BaujatPlot
          id={`baujat-${a.outcome.replace(/[^A-Za-z0-9]+/g, "-")}`}
          points={points}
          labels={a.effects.map((e) => e.label)}
        />
        <figcaption className="text-xs text-slate-600">
          Studies are numbered in the order of the influence table.
        </figcaption>
      </figure>
    );
  } catch (e) {
    if (e instanceof MetaInputError) return null;
    throw e;
  }
}

/**
 * Influence diagnostics per study (metafor influence.rma.uni): externally studentized residual,
 * DFFITS, Cook's distance, COVRATIO, τ² and Q without the study, hat value, weight, and metafor's
 * "influential" flag. Needs 3 studies.
 */
export function InfluenceTable({ a }: { a: ExploredAnalysis }) {
  const inf = analysisInfluence(a);
  if (!inf) return null;
  const n = (v: number, d = 2) => (Number.isFinite(v) ? fmt(v, d) : NOT_ESTIMABLE);
  const flagged = inf.inf.filter(Boolean).length;
  return (
    <div className="space-y-1">
      <table data-testid="influence-table" className="w-full border-collapse text-left text-sm">
        <caption className="mb-1 text-left text-sm font-semibold text-slate-900">
          Influence diagnostics (metafor influence())
        </caption>
        <thead>
          <tr className="border-b border-slate-300">
            <th scope="col" className="py-1 pr-3">
              Study
            </th>
            <th scope="col" className="py-1 pr-3">
              rstudent
            </th>
            <th scope="col" className="py-1 pr-3">
              DFFITS
            </th>
            <th scope="col" className="py-1 pr-3">
              Cook&apos;s d
            </th>
            <th scope="col" className="py-1 pr-3">
              COVRATIO
            </th>
            <th scope="col" className="py-1 pr-3">
              τ² without
            </th>
            <th scope="col" className="py-1 pr-3">
              Q without
            </th>
            <th scope="col" className="py-1 pr-3">
              Hat
            </th>
            <th scope="col" className="py-1 pr-3">
              Weight
            </th>
            <th scope="col" className="py-1">
              Influential
            </th>
          </tr>
        </thead>
        <tbody>
          {a.effects.map((e, i) => (
            <tr key={`${e.studyId}-${i}`} className="border-b border-slate-100" data-testid="influence-row">
              <th scope="row" className="py-1 pr-3 font-normal">
                {e.label}
              </th>
              <td className="py-1 pr-3 tabular-nums">{n(inf.rstudent[i])}</td>
              <td className="py-1 pr-3 tabular-nums">{n(inf.dffits[i])}</td>
              <td className="py-1 pr-3 tabular-nums">{n(inf.cook_d[i])}</td>
              <td className="py-1 pr-3 tabular-nums">{n(inf.cov_r[i])}</td>
              <td className="py-1 pr-3 tabular-nums">{n(inf.tau2_del[i], 4)}</td>
              <td className="py-1 pr-3 tabular-nums">{n(inf.QE_del[i])}</td>
              <td className="py-1 pr-3 tabular-nums">{n(inf.hat[i], 3)}</td>
              <td className="py-1 pr-3 tabular-nums">{fmtPct(inf.weight[i])}</td>
              <td className="py-1">{inf.inf[i] ? "yes" : "no"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="text-sm text-slate-600" data-testid="influence-note">
        {flagged === 0
          ? "No study meets metafor's criteria for an influential study."
          : `${flagged} ${flagged === 1 ? "study meets" : "studies meet"} metafor's criteria for an influential study (|DFFITS| > 3√(p/(k−p)), Cook's distance above the χ² median, hat > 3p/k, or |DFBETAS| > 1); check the leave-one-out results without ${flagged === 1 ? "it" : "them"}.`}
      </p>
      <BaujatFigure a={a} />
    </div>
  );
}
