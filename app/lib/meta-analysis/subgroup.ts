import { pchisq } from "./distributions.ts";
import { MetaInputError } from "./errors.ts";
import { dummyColumns, fitModel, poolingWeights, subsetOptions, type ModelOptions } from "./metareg.ts";

/** One subgroup's pooled result (same estimator and test as the main analysis). */
export interface SubgroupRow {
  level: string;
  /** Indices (0-based, study order) of the subgroup's studies. */
  studies: number[];
  k: number;
  b: number;
  se: number;
  statistic: number;
  pval: number;
  ci_lb: number;
  ci_ub: number;
  /** Degrees of freedom of the t test (knha, k − 1), null for z (and for a one-study subgroup). */
  df: number | null;
  tau2: number;
  I2: number;
  H2: number;
  QE: number;
  QEp: number;
}

/** Subgroup analysis: per-subgroup results, RevMan's test for subgroup differences and the common-τ² model. */
export interface SubgroupResult {
  groups: SubgroupRow[];
  /** Test for subgroup differences (RevMan): Q between, df = groups − 1, p, I² (percent). */
  Q: number;
  df: number;
  p: number | null;
  I2: number;
  /**
   * Mixed-effects model with a common τ² (metafor rma(yi, vi, mods = ~ factor(g), method, test)):
   * QM (χ², or F under knha) with its df and p, and the residual τ². null when it cannot be fitted
   * (fewer than groups + 1 studies, or a single subgroup), with the reason in `mixedNote`.
   */
  mixed: { QM: number; QMdf: [number, number | null]; QMp: number; tau2: number; QE: number; QEp: number } | null;
  mixedNote?: string;
}

/**
 * Subgroup analysis of yi/vi split by the categorical `groups` (one level per study).
 * - Each subgroup (in order of first appearance) is pooled with the main analysis's estimator and
 *   test (metafor rma.uni on the subset); a one-study subgroup is that study: its yi, SE √vi, z-based
 *   CI, τ² = 0, I² = 0 (metafor's k = 1 fit).
 * - Test for subgroup differences as RevMan 5 computes it (Deeks, Higgins & Altman, Cochrane
 *   Handbook 10.11.3.1): Q = Σ w_g (b_g − b̄)² with w_g = 1/SE_g² and b̄ = Σw_g b_g/Σw_g (the
 *   fixed-effect Q of the subgroup estimates), df = G − 1, p = P(χ²(df) > Q),
 *   I² = 100·max(0, (Q − df)/Q).
 * - The common-τ² alternative: fitModel with the subgroup dummies (treatment coding), QM and QMp.
 * - GENQ/GENQM user weights (opts.control.weights, one per study) go with their studies into each
 *   subgroup fit (metafor rma(yi, vi, weights = a, subset = g == level)); the mixed model uses all of them.
 * Throws MetaInputError when lengths differ, a level is empty, or the data are invalid.
 */
export function subgroupAnalysis(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  groups: readonly string[],
  opts: ModelOptions,
): SubgroupResult {
  const k = yi.length;
  if (groups.length !== k)
    throw new MetaInputError(`The subgroup column has ${groups.length} values for ${k} studies.`);
  const order: string[] = [];
  const members = new Map<string, number[]>();
  groups.forEach((g, i) => {
    if (typeof g !== "string" || g.trim() === "") throw new MetaInputError(`Study ${i + 1} has no subgroup.`, i);
    let list = members.get(g);
    if (!list) {
      list = [];
      members.set(g, list);
      order.push(g);
    }
    list.push(i);
  });
  poolingWeights(opts, vi);
  const rows: SubgroupRow[] = order.map((level) => {
    const idx = members.get(level)!;
    const y = Float64Array.from(idx, (i) => yi[i]);
    const v = Float64Array.from(idx, (i) => vi[i]);
    const f = fitModel(y, v, null, subsetOptions(opts, idx));
    return {
      level,
      studies: idx,
      k: idx.length,
      b: f.beta[0],
      se: f.se[0],
      statistic: f.statistic[0],
      pval: f.pval[0],
      ci_lb: f.ci_lb[0],
      ci_ub: f.ci_ub[0],
      df: f.df,
      tau2: f.tau2,
      I2: f.I2,
      H2: f.H2,
      QE: f.QE,
      QEp: f.QEp,
    };
  });
  let sw = 0;
  let swb = 0;
  for (const r of rows) {
    const w = 1 / (r.se * r.se);
    sw += w;
    swb += w * r.b;
  }
  const bbar = swb / sw;
  let Q = 0;
  for (const r of rows) Q += (r.b - bbar) ** 2 / (r.se * r.se);
  const df = rows.length - 1;
  const p = df > 0 ? pchisq(Q, df, false) : null;
  const I2 = Q > 0 ? Math.max(0, (100 * (Q - df)) / Q) : 0;
  let mixed: SubgroupResult["mixed"] = null;
  let mixedNote: string | undefined;
  if (order.length < 2) mixedNote = "Only one subgroup: there is no difference to test.";
  else {
    try {
      const f = fitModel(yi, vi, dummyColumns(groups, order).columns, opts);
      mixed = { QM: f.QM, QMdf: f.QMdf, QMp: f.QMp, tau2: f.tau2, QE: f.QE, QEp: f.QEp };
    } catch (e) {
      if (!(e instanceof MetaInputError)) throw e;
      mixedNote = e.message;
    }
  }
  return { groups: rows, Q, df, p, I2, mixed, ...(mixedNote ? { mixedNote } : {}) };
}
