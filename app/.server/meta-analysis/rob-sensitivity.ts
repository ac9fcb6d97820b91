/**
 * Sensitivity analysis by risk of bias (Cochrane Handbook 8.2 / 7.6 and issue 28): the pooled
 * analysis refitted without the studies judged at high risk of bias (RoB 2 overall), and with the
 * low-risk studies only, beside the main analysis. Same estimator and test as the main analysis
 * (metafor: `rma(yi, vi, subset = rob != "High", method, test)`). Pure, no I/O.
 */
import { rma, type RmaOptions } from "~/lib/meta-analysis";
import type {
  EffectSize,
  Measure,
  Method,
  PooledResult,
  RobOverall,
  RobSensitivityRow,
  TestType,
} from "~/lib/meta-analysis/types";

const SCENARIOS: { scenario: RobSensitivityRow["scenario"]; label: string; keep: (j: RobOverall | null) => boolean }[] =
  [
    { scenario: "all", label: "All studies", keep: () => true },
    { scenario: "without_high", label: "Without high risk of bias", keep: (j) => j !== "high" },
    { scenario: "low_only", label: "Low risk of bias only", keep: (j) => j === "low" },
  ];

/**
 * The three rows (all studies, without high, low only). `main` is the fitted main analysis (reused
 * for the first row). Studies without a judgement (null) are kept in "without high" and left out of
 * "low only". A scenario keeping fewer than 2 studies has null numbers and a note; a model that
 * cannot be fitted gives the same with the error in the note. Identical study sets reuse the fit.
 *
 * @param effects the analysis' effect sizes with their study ids, in the order of `judgements`.
 * @param judgements each study's RoB 2 overall judgement, or null when not assessed.
 */
export function riskOfBiasSensitivity(
  effects: readonly (EffectSize & { studyId: string })[],
  judgements: readonly (RobOverall | null)[],
  main: PooledResult,
  options: { measure: Measure; method: Method; test: TestType; control?: RmaOptions["control"] },
): RobSensitivityRow[] {
  const fits = new Map<string, Omit<RobSensitivityRow, "scenario" | "label">>();
  return SCENARIOS.map(({ scenario, label, keep }) => {
    const kept = effects.filter((_, i) => keep(judgements[i] ?? null));
    const key = kept.map((e) => e.studyId).join("\u0000");
    const studyIds = kept.map((e) => e.studyId);
    let fit = fits.get(key);
    if (!fit) {
      const empty = {
        k: kept.length,
        studyIds,
        estimate: null,
        ci_lb: null,
        ci_ub: null,
        pval: null,
        I2: null,
        tau2: null,
      };
      if (kept.length === effects.length) {
        fit = {
          k: main.k,
          studyIds,
          estimate: main.estimate,
          ci_lb: main.ci_lb,
          ci_ub: main.ci_ub,
          pval: main.pval,
          I2: main.I2,
          tau2: main.tau2,
        };
      } else if (kept.length < 2) {
        fit = {
          ...empty,
          note: `${kept.length === 0 ? "No study remains" : "Only 1 study remains"}; at least 2 are needed to pool.`,
        };
      } else {
        try {
          const p = rma([...kept], options);
          const finite = [p.estimate, p.ci_lb, p.ci_ub, p.pval].every(Number.isFinite);
          fit = finite
            ? {
                k: p.k,
                studyIds,
                estimate: p.estimate,
                ci_lb: p.ci_lb,
                ci_ub: p.ci_ub,
                pval: p.pval,
                I2: p.I2,
                tau2: p.tau2,
              }
            : { ...empty, note: "The model is not estimable for these studies." };
        } catch (error) {
          fit = {
            ...empty,
            note: `The model could not be fitted: ${error instanceof Error ? error.message : String(error)}.`,
          };
        }
      }
      fits.set(key, fit);
    }
    return { scenario, label, ...fit };
  });
}
