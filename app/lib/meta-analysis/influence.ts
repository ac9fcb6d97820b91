import { pchisq } from "./distributions.ts";
import { MetaInputError } from "./errors.ts";
import { cross, invertSym, moderatorColumns, wls, type Moderators } from "./linear.ts";
import { fitModel, poolingWeights, sandwich, subsetOptions, type ModelFit, type ModelOptions } from "./metareg.ts";

/**
 * Influence diagnostics per study (metafor influence.rma.uni), arrays in study order. A value is NaN
 * when the model without that study cannot be fitted (metafor: NA).
 */
export interface InfluenceResult {
  /** Externally studentized residuals. */
  rstudent: number[];
  dffits: number[];
  /** Cook's distances. */
  cook_d: number[];
  /** Covariance ratios det(Var(b₋ᵢ))/det(Var(b)). */
  cov_r: number[];
  /** τ² and QE of the model without the study. */
  tau2_del: number[];
  QE_del: number[];
  /** Hat values (leverages) and weights (percent) of the full model. */
  hat: number[];
  weight: number[];
  /** DFBETAS, one array per coefficient (intercept first). */
  dfbs: number[][];
  /** metafor's "influential" flag (the asterisk of print.infl.rma.uni). */
  inf: boolean[];
}

function without<T extends ArrayLike<number>>(a: T, i: number): Float64Array {
  const out = new Float64Array(a.length - 1);
  for (let j = 0, o = 0; j < a.length; j++) if (j !== i) out[o++] = a[j];
  return out;
}

function tryFit(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  cols: ArrayLike<number>[],
  opts: ModelOptions,
): ModelFit | null {
  try {
    return fitModel(yi, vi, cols, opts);
  } catch (e) {
    if (e instanceof MetaInputError || e instanceof RangeError) return null;
    throw e;
  }
}

function det(m: number[], p: number): number {
  if (p === 1) return m[0];
  try {
    return Math.exp(invertSym(m, p, true).logDet);
  } catch {
    return 0;
  }
}

/**
 * metafor influence.rma.uni for rma.uni(yi, vi, mods, method, test, level): every study is left out
 * in turn and the model refitted with the same estimator and test (metafor's deletion diagnostics,
 * Viechtbauer & Cheung 2010):
 * - rstudent_i = (y_i − x_iᵀb₋ᵢ) / √(v_i·s²₋ᵢ + x_iᵀVar(b₋ᵢ)x_i + τ²₋ᵢ·s²₋ᵢ) (s² = 1 unless knha);
 * - DFFITS_i = (x_iᵀb − x_iᵀb₋ᵢ) / √(s²₋ᵢ · h_i · (τ²₋ᵢ + v_i));
 * - Cook's d_i = (b − b₋ᵢ)ᵀ Var(b)⁻¹ (b − b₋ᵢ) over the tested coefficients (the moderators; the
 *   intercept when there are none); COVRATIO_i = det Var(b₋ᵢ) / det Var(b) over the same;
 * - DFBETAS_ij = (b − b₋ᵢ)_j / √(s²₋ᵢ · [(XᵀW₋ᵢX)⁻¹]_jj) with W₋ᵢ = diag(1/(v + τ²₋ᵢ)) on all studies;
 * - hat h_i = w_i x_iᵀ(XᵀWX)⁻¹x_i, weight 100 w_i/Σw;
 * - influential when |DFFITS| > 3√(p/(k−p)), or pchisq(Cook's d, m) > .5, or h > 3p/k, or any
 *   |DFBETAS| > 1.
 * GENQ/GENQM (pooled with user weights a, metafor rma.uni(weights = a)): each refit keeps the weights
 * of its studies (a₋ᵢ); with H = X(XᵀAX)⁻¹XᵀA and D₋ᵢ = diag(v + τ²₋ᵢ) over all k studies,
 * h_i = H_ii, weight 100 a_i/Σa, DFFITS_i = (x_iᵀb − x_iᵀb₋ᵢ)/√(s²₋ᵢ [H D₋ᵢ Hᵀ]_ii) and DFBETAS use
 * the sandwich (XᵀAX)⁻¹XᵀA D₋ᵢ AX(XᵀAX)⁻¹ in place of (XᵀW₋ᵢX)⁻¹ (metafor influence.rma.uni,
 * hatvalues.rma.uni and weights.rma.uni with weights).
 * Needs k ≥ 2 (metafor stops at k = 1).
 */
export function influence(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  mods: Moderators,
  opts: ModelOptions,
): InfluenceResult {
  const cols = moderatorColumns(mods);
  const k = yi.length;
  if (k < 2) throw new MetaInputError("Influence diagnostics need at least 2 studies.");
  const full = fitModel(yi, vi, cols, opts);
  const p = full.p;
  const btt = p === 1 ? [0] : Array.from({ length: p - 1 }, (_, j) => j + 1);
  const m = btt.length;
  const sub = (vb: number[]) => btt.flatMap((r) => btt.map((c) => vb[r * p + c]));
  const vbFullBtt = sub(full.vb);
  const svb = invertSym(vbFullBtt, m, true).inv;
  const detFull = det(vbFullBtt, m);
  const a = full.a;
  const wPool = a ?? full.w;
  let sw = 0;
  for (let i = 0; i < k; i++) sw += wPool[i];
  // GENQ/GENQM: (XᵀAX)⁻¹ and the pieces of the sandwich Σa²(v + τ²)xxᵀ = Bv + τ²·B1
  const fa = a ? wls(yi, a, cols.length ? cols : null) : null;
  const Bv = a ? cross(a, cols, vi, 2) : null;
  const B1 = a ? cross(a, cols, null, 2) : null;
  const row = (i: number): number[] => [1, ...cols.map((c) => c[i])];
  const nan = () => new Array<number>(k).fill(Number.NaN);
  const out: InfluenceResult = {
    rstudent: nan(),
    dffits: nan(),
    cook_d: nan(),
    cov_r: nan(),
    tau2_del: nan(),
    QE_del: nan(),
    hat: new Array<number>(k),
    weight: new Array<number>(k),
    dfbs: Array.from({ length: p }, nan),
    inf: new Array<boolean>(k).fill(false),
  };
  const eps100 = 100 * 2.220446049250313e-16;
  for (let i = 0; i < k; i++) {
    out.hat[i] = fa ? wPool[i] * fa.h(i) : full.w[i] * full.fit.h(i);
    out.weight[i] = (100 * wPool[i]) / sw;
    const del = tryFit(
      without(yi, i),
      without(vi, i),
      cols.map((c) => without(c, i)),
      a
        ? subsetOptions(
            opts,
            without(
              Array.from({ length: k }, (_, j) => j),
              i,
            ),
          )
        : opts,
    );
    if (!del) continue;
    const xi = row(i);
    let predFull = 0;
    let delpred = 0;
    let vdel = 0;
    for (let a = 0; a < p; a++) {
      predFull += xi[a] * full.beta[a];
      delpred += xi[a] * del.beta[a];
      for (let b = 0; b < p; b++) vdel += xi[a] * del.vb[a * p + b] * xi[b];
    }
    out.tau2_del[i] = del.tau2;
    out.QE_del[i] = del.QE;
    // GENQ/GENQM: the sandwich (XᵀAX)⁻¹ XᵀA D₋ᵢ AX (XᵀAX)⁻¹ with D₋ᵢ = diag(v + τ²₋ᵢ) on all k studies
    const vbA = fa
      ? sandwich(
          fa.A,
          Bv!.map((b, j) => b + del.tau2 * B1![j]),
          p,
        )
      : null;
    let hdh = 0;
    if (vbA) for (let r = 0; r < p; r++) for (let c = 0; c < p; c++) hdh += xi[r] * vbA[r * p + c] * xi[c];
    out.dffits[i] = (predFull - delpred) / Math.sqrt(del.s2w * (vbA ? hdh : out.hat[i] * (del.tau2 + vi[i])));
    let resid = yi[i] - delpred;
    if (Math.abs(resid) < eps100) resid = 0;
    out.rstudent[i] = resid / Math.sqrt(vi[i] * del.s2w + vdel + del.tau2 * del.s2w);
    let vbDel: number[];
    if (vbA) vbDel = vbA;
    else {
      // (XᵀW₋ᵢX)⁻¹ on all k studies with the deleted model's τ²: diagonal only
      const M = new Array<number>(p * p).fill(0);
      for (let j = 0; j < k; j++) {
        const wj = 1 / (vi[j] + del.tau2);
        const xj = p === 1 ? null : row(j);
        if (!xj) M[0] += wj;
        else for (let r = 0; r < p; r++) for (let c = 0; c < p; c++) M[r * p + c] += wj * xj[r] * xj[c];
      }
      vbDel = invertSym(M, p, true).inv;
    }
    for (let j = 0; j < p; j++) out.dfbs[j][i] = (full.beta[j] - del.beta[j]) / Math.sqrt(del.s2w * vbDel[j * p + j]);
    let cook = 0;
    for (let a = 0; a < m; a++)
      for (let b = 0; b < m; b++)
        cook += (full.beta[btt[a]] - del.beta[btt[a]]) * svb[a * m + b] * (full.beta[btt[b]] - del.beta[btt[b]]);
    out.cook_d[i] = cook;
    out.cov_r[i] = det(sub(del.vb), m) / detFull;
  }
  const dffitsCut = 3 * Math.sqrt(p / (k - p));
  for (let i = 0; i < k; i++) {
    out.inf[i] =
      Math.abs(out.dffits[i]) > dffitsCut ||
      pchisq(out.cook_d[i], m) > 0.5 ||
      out.hat[i] > (3 * p) / k ||
      out.dfbs.some((d) => Math.abs(d[i]) > 1);
  }
  return out;
}

/** Leave-one-out results in study order (metafor leave1out.rma.uni); NaN where the refit fails. */
export interface LeaveOneOutResult {
  estimate: number[];
  se: number[];
  statistic: number[];
  pval: number[];
  ci_lb: number[];
  ci_ub: number[];
  QE: number[];
  QEp: number[];
  tau2: number[];
  I2: number[];
  H2: number[];
}

/**
 * metafor leave1out.rma.uni: the intercept-only model (same estimator, test, level) refitted k
 * times, each time without one study; arrays in study order. GENQ/GENQM user weights
 * (opts.control.weights, one per study) stay with their studies (metafor: weights[-i]). Needs k ≥ 2
 * (k ≥ 3 for τ² estimators).
 */
export function leaveOneOut(yi: ArrayLike<number>, vi: ArrayLike<number>, opts: ModelOptions): LeaveOneOutResult {
  const k = yi.length;
  if (k < 2) throw new MetaInputError("Leave-one-out needs at least 2 studies.");
  fitModel(yi, vi, null, opts);
  const keys = ["estimate", "se", "statistic", "pval", "ci_lb", "ci_ub", "QE", "QEp", "tau2", "I2", "H2"] as const;
  const out = Object.fromEntries(
    keys.map((key) => [key, new Array<number>(k).fill(Number.NaN)]),
  ) as unknown as LeaveOneOutResult;
  const all = Array.from({ length: k }, (_, j) => j);
  for (let i = 0; i < k; i++) {
    const f = tryFit(without(yi, i), without(vi, i), [], subsetOptions(opts, without(all, i)));
    if (!f) continue;
    setRow(out, i, f);
  }
  return out;
}

function setRow(out: LeaveOneOutResult, i: number, f: ModelFit): void {
  out.estimate[i] = f.beta[0];
  out.se[i] = f.se[0];
  out.statistic[i] = f.statistic[0];
  out.pval[i] = f.pval[0];
  out.ci_lb[i] = f.ci_lb[0];
  out.ci_ub[i] = f.ci_ub[0];
  out.QE[i] = f.QE;
  out.QEp[i] = f.QEp;
  out.tau2[i] = f.tau2;
  out.I2[i] = f.I2;
  out.H2[i] = f.H2;
}

/**
 * Cumulative meta-analysis (metafor cumul.rma.uni): row i pools the first i studies of `order`
 * (0-based study indices; default study order, e.g. sorted by publication year) with the same
 * estimator, test and level. Row 1 is the first study alone (metafor's k = 1 fit: z test, τ² = 0).
 * Arrays follow `order`; NaN where a fit fails. GENQ/GENQM user weights (opts.control.weights, one per
 * study in study order) are reordered with the studies (metafor: weights[order][1:i]).
 */
export function cumulative(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  opts: ModelOptions,
  order?: readonly number[],
): LeaveOneOutResult & { order: number[] } {
  const k = yi.length;
  if (k < 1) throw new MetaInputError("Cumulative meta-analysis needs at least 1 study.");
  const ord = order ? [...order] : Array.from({ length: k }, (_, i) => i);
  if (ord.length !== k || new Set(ord).size !== k || ord.some((i) => !Number.isInteger(i) || i < 0 || i >= k)) {
    throw new MetaInputError("The order must list every study exactly once.");
  }
  const y = Float64Array.from(ord, (i) => yi[i]);
  const v = Float64Array.from(ord, (i) => vi[i]);
  fitModel(y, v, null, { ...opts, method: "EE" });
  const a = poolingWeights(opts, vi);
  const aOrd = a && opts.control?.weights ? Float64Array.from(ord, (i) => a[i]) : null;
  const keys = ["estimate", "se", "statistic", "pval", "ci_lb", "ci_ub", "QE", "QEp", "tau2", "I2", "H2"] as const;
  const out = Object.fromEntries(
    keys.map((key) => [key, new Array<number>(k).fill(Number.NaN)]),
  ) as unknown as LeaveOneOutResult;
  for (let i = 0; i < k; i++) {
    const f = tryFit(
      y.subarray(0, i + 1),
      v.subarray(0, i + 1),
      [],
      aOrd ? { ...opts, control: { ...opts.control, weights: aOrd.subarray(0, i + 1) } } : opts,
    );
    if (f) setRow(out, i, f);
  }
  return { ...out, order: ord };
}
