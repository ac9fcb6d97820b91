/**
 * Mixed-effects meta-regression with any number of moderators (metafor rma.uni(yi, vi, mods, method,
 * test)), the shared model fit behind subgroup analysis, influence diagnostics, leave-one-out and
 * cumulative meta-analysis, and metafor's permutation test (permutest).
 */
import { pchisq, pf, pnorm, pt, qnorm, qt } from "./distributions.ts";
import { MetaInputError } from "./errors.ts";
import { checkDesignRank, cross, invertSym, moderatorColumns, wls, type Moderators, type WlsFit } from "./linear.ts";
import { estimateTau2, weightedFit, withDefaultGenqWeights, type Tau2Control, type Tau2Method } from "./tau2.ts";
import type { GenqWeights, Method, TestType } from "./types.ts";
import { mulberry32 } from "../random.ts";

const DBL_EPS = 2.220446049250313e-16;

/**
 * Critical values qt(α/2, df) / qnorm(α/2) memoised by (level, df): the refits of influence,
 * leave-one-out and cumulative analyses ask for the same few quantiles thousands of times, and the
 * t quantile is an iterative inversion.
 */
const CRIT_CACHE = new Map<string, number>();
function criticalValue(level: number, df: number | null): number {
  const key = `${level}|${df ?? "z"}`;
  let c = CRIT_CACHE.get(key);
  if (c === undefined) {
    const alpha = 1 - level / 100;
    c = df !== null ? qt(alpha / 2, df, false) : qnorm(alpha / 2, false);
    if (CRIT_CACHE.size > 4096) CRIT_CACHE.clear();
    CRIT_CACHE.set(key, c);
  }
  return c;
}

/** Options of every model fit: τ² estimator (EE/FE = no τ²), test, level (percent), control. */
export interface ModelOptions {
  method: Method | Tau2Method;
  test?: TestType;
  level?: number;
  control?: Tau2Control;
}

/**
 * The model options of a pooled analysis for its re-analyses (subgroups, meta-regression, influence,
 * leave-one-out, cumulative, sensitivity): its estimator and test, and for GENQ/GENQM its weight rule
 * (`genqWeights`, default inverse-variance), so every refit weights its studies as the main analysis does.
 */
export function analysisModelOptions(a: { method: Method; test: TestType; genqWeights?: GenqWeights }): ModelOptions {
  return a.genqWeights
    ? { method: a.method, test: a.test, control: { weightScheme: a.genqWeights } }
    : { method: a.method, test: a.test };
}

/**
 * One fitted (mixed-effects) model, as metafor's rma.uni object holds it. Coefficient arrays are in
 * the order [intercept, moderator 1, …]; `vb` is the p×p row-major covariance matrix of the
 * coefficients (scaled by s² under knha).
 */
export interface ModelFit {
  k: number;
  p: number;
  method: Method | Tau2Method;
  /** Test actually used (metafor switches knha to z when k = 1). */
  test: TestType;
  tau2: number;
  tau2_se: number | null;
  beta: number[];
  vb: number[];
  se: number[];
  /** z or t statistics. */
  statistic: number[];
  pval: number[];
  ci_lb: number[];
  ci_ub: number[];
  /** Degrees of freedom k − p of the t and F tests (knha), null for z. */
  df: number | null;
  /** Hartung–Knapp scaling factor s² (1 for z). */
  s2w: number;
  /** Omnibus (Wald) test of the moderators (of the intercept in an intercept-only model): χ² or, under knha, F. */
  QM: number;
  QMdf: [number, number | null];
  QMp: number;
  /** Residual heterogeneity test (w = 1/v), df k − p. */
  QE: number;
  QEp: number;
  /** (Residual) I² in percent and H². */
  I2: number;
  H2: number;
  /** Typical within-study variance ṽ = (k − p)/tr(P) with w = 1/v. */
  vt: number;
  /** Model weights 1/(v + τ²). */
  w: Float64Array;
  /** Weighted least squares fit at the model weights. */
  fit: WlsFit;
  /**
   * GENQ/GENQM: the user weights a the coefficients are pooled with (metafor rma.uni(weights = a)),
   * null for every other estimator (pooled with w).
   */
  a: ArrayLike<number> | null;
}

/**
 * The weights a of a GENQ/GENQM fit (control.weights, default 1/v as withDefaultGenqWeights), null for
 * every other estimator. Throws MetaInputError unless there is one finite weight > 0 per study.
 */
export function poolingWeights(opts: ModelOptions, vi: ArrayLike<number>): ArrayLike<number> | null {
  if (opts.method !== "GENQ" && opts.method !== "GENQM") return null;
  const a = withDefaultGenqWeights(opts.method, vi, opts.control)!.weights!;
  if (a.length !== vi.length) {
    throw new MetaInputError(`The generalised Q estimator has ${a.length} weights for ${vi.length} studies.`);
  }
  for (let i = 0; i < a.length; i++) {
    if (!Number.isFinite(a[i]) || !(a[i] > 0)) {
      throw new MetaInputError(`Study ${i + 1} has a weight that is not a finite number greater than 0.`, i);
    }
  }
  return a;
}

/**
 * The options of a refit on a subset of the studies (leave-one-out, influence, cumulative and subgroup
 * fits): GENQ/GENQM user weights are carried with their studies, as metafor passes weights[subset]
 * to rma.uni. `idx` are 0-based study indices.
 */
export function subsetOptions<T extends ModelOptions>(opts: T, idx: ArrayLike<number>): T {
  const w = opts.control?.weights;
  if (!w || (opts.method !== "GENQ" && opts.method !== "GENQM")) return opts;
  return { ...opts, control: { ...opts.control, weights: Float64Array.from(idx, (i) => w[i]) } };
}

function checkInputs(yi: ArrayLike<number>, vi: ArrayLike<number>, cols: ArrayLike<number>[]): void {
  const k = yi.length;
  if (vi.length !== k) throw new MetaInputError(`yi and vi differ in length (${k} and ${vi.length}).`);
  for (let i = 0; i < k; i++) {
    if (!Number.isFinite(yi[i])) throw new MetaInputError(`Study ${i + 1} has no finite effect size.`, i);
    if (!Number.isFinite(vi[i]) || !(vi[i] > 0)) {
      throw new MetaInputError(`Study ${i + 1} has a sampling variance that is not greater than 0.`, i);
    }
  }
  cols.forEach((c, j) => {
    if (c.length !== k) throw new MetaInputError(`Moderator ${j + 1} has ${c.length} values for ${k} studies.`);
    for (let i = 0; i < k; i++) {
      if (!Number.isFinite(c[i]))
        throw new MetaInputError(`Moderator ${j + 1} of study ${i + 1} is not a finite number.`, i);
    }
  });
}

/**
 * Fit rma.uni(yi, vi, mods, method, test, level) as metafor 3.8 does: τ² by `method` applied to the
 * model with moderators (estimateTau2; 0 for EE/FE), β̂ = (XᵀWX)⁻¹XᵀWy with W = diag(1/(v + τ²)),
 * Var(β̂) = (XᵀWX)⁻¹, multiplied under knha by s² = Σw e²/(k − p) with t(k − p) tests and an
 * F(m, k − p) omnibus test QM/m; QM = β̂ᵀ Var⁻¹ β̂ over the moderators (the intercept when there are
 * none); QE = Σ e²/v at τ² = 0 with χ²(k − p); residual I² = 100τ²/(ṽ + τ²), H² = 1 + τ²/ṽ (EE:
 * I² = 100·max(0, (QE − (k−p))/QE), H² = QE/(k−p)). k = 1 (intercept only): the study itself, τ² = 0,
 * z test, QE = 0, QEp = 1, I² = 0, H² = 1 (metafor's behaviour). Throws MetaInputError on invalid
 * input, too few studies (k ≥ p + 1 needed, k ≥ p for EE) or redundant moderators.
 */
export function fitModel(yi: ArrayLike<number>, vi: ArrayLike<number>, mods: Moderators, opts: ModelOptions): ModelFit {
  const cols = moderatorColumns(mods);
  checkInputs(yi, vi, cols);
  const k = yi.length;
  checkDesignRank(cols, k);
  const p = cols.length + 1;
  const level = opts.level ?? 95;
  if (!(level > 0 && level < 100))
    throw new MetaInputError(`The confidence level must be between 0 and 100 (got ${level}).`);
  let test: TestType = opts.test ?? "z";
  if (test !== "z" && test !== "knha") throw new MetaInputError(`Unknown test "${String(test)}" (use "z" or "knha").`);
  const method = opts.method;
  const fixed = method === "EE" || method === "FE";
  const k1 = k === 1 && p === 1;
  if (k1) test = "z";
  if (!k1 && (fixed ? p > k : p + 1 > k)) {
    throw new MetaInputError(`Too few studies (${k}) for a model with ${p} coefficient(s).`);
  }
  const a = poolingWeights(opts, vi);
  let tau2 = 0;
  let tau2_se: number | null = null;
  if (!fixed && !k1) {
    const est = estimateTau2(
      yi,
      vi,
      method as Tau2Method,
      withDefaultGenqWeights(method, vi, opts.control),
      cols.length ? cols : null,
    );
    tau2 = est.tau2;
    tau2_se = est.se;
  }
  const w = new Float64Array(k);
  for (let i = 0; i < k; i++) w[i] = 1 / (vi[i] + tau2);
  if (p === 1) return interceptOnly(yi, vi, w, a, tau2, tau2_se, method, test, level, fixed);
  const fit = wls(yi, w, cols);
  let s2w = 1;
  if (test === "knha") s2w = fit.rss <= DBL_EPS ? 0 : fit.rss / (k - p);
  let beta = fit.beta;
  let vb0 = fit.A;
  if (a) {
    // metafor rma.uni(weights = a): β̂ = (XᵀAX)⁻¹XᵀAy, Var = (XᵀAX)⁻¹ XᵀA M AX (XᵀAX)⁻¹, M = diag(v + τ²)
    const fa = wls(yi, a, cols);
    beta = fa.beta;
    vb0 = sandwich(
      fa.A,
      cross(
        a,
        cols,
        Float64Array.from(vi, (v) => v + tau2),
        2,
      ),
      p,
    );
  }
  const vb = vb0.map((x) => x * s2w);
  const se = beta.map((_, j) => Math.sqrt(vb[j * p + j]));
  const df = test === "knha" ? k - p : null;
  const crit = criticalValue(level, df);
  const statistic = beta.map((b, j) => b / se[j]);
  const pval = statistic.map((z) => (df !== null ? 2 * pt(Math.abs(z), df, false) : 2 * pnorm(Math.abs(z), false)));
  const ci_lb = beta.map((b, j) => b - crit * se[j]);
  const ci_ub = beta.map((b, j) => b + crit * se[j]);

  // Omnibus test over btt = the moderators (or the intercept alone).
  const btt = p === 1 ? [0] : Array.from({ length: p - 1 }, (_, j) => j + 1);
  const m = btt.length;
  const sub = btt.flatMap((r) => btt.map((c) => vb[r * p + c]));
  let QM: number;
  try {
    const inv = invertSym(sub, m, true).inv;
    QM = 0;
    for (let r = 0; r < m; r++) for (let c = 0; c < m; c++) QM += beta[btt[r]] * inv[r * m + c] * beta[btt[c]];
  } catch {
    QM = Number.NaN;
  }
  let QMp: number;
  if (df !== null) {
    QM /= m;
    QMp = df > 0 ? pf(QM, m, df, false) : Number.NaN;
  } else {
    QMp = pchisq(QM, m, false);
  }

  let QE = 0;
  let QEp = 1;
  let vt = Number.NaN;
  let I2 = 0;
  let H2 = 1;
  if (k > p) {
    const w0 = new Float64Array(k);
    for (let i = 0; i < k; i++) w0[i] = 1 / vi[i];
    const f0 = cols.length ? wls(yi, w0, cols) : null;
    QE = Math.max(0, f0 ? f0.rss : weightedFit(yi, w0).rss);
    QEp = pchisq(QE, k - p, false);
    let trP: number;
    if (f0) trP = f0.trP();
    else {
      let sw = 0;
      let sw2 = 0;
      for (let i = 0; i < k; i++) {
        sw += w0[i];
        sw2 += w0[i] * w0[i];
      }
      trP = sw - sw2 / sw;
    }
    vt = (k - p) / trP;
    if (fixed) {
      I2 = QE > 0 ? Math.max(0, (100 * (QE - (k - p))) / QE) : 0;
      H2 = QE / (k - p);
    } else {
      I2 = (100 * tau2) / (vt + tau2);
      H2 = tau2 / vt + 1;
    }
  }
  return {
    k,
    p,
    method,
    test,
    tau2,
    tau2_se,
    beta,
    vb,
    se,
    statistic,
    pval,
    ci_lb,
    ci_ub,
    df,
    s2w,
    QM,
    QMdf: [m, df],
    QMp,
    QE,
    QEp,
    I2,
    H2,
    vt,
    w,
    fit,
    a,
  };
}

/** S B S for row-major p×p matrices (S symmetric): the sandwich covariance of a weighted fit. */
export function sandwich(S: number[], B: number[], p: number): number[] {
  const SB = new Array<number>(p * p).fill(0);
  for (let r = 0; r < p; r++)
    for (let c = 0; c < p; c++) {
      let u = 0;
      for (let j = 0; j < p; j++) u += S[r * p + j] * B[j * p + c];
      SB[r * p + c] = u;
    }
  const out = new Array<number>(p * p).fill(0);
  for (let r = 0; r < p; r++)
    for (let c = 0; c < p; c++) {
      let u = 0;
      for (let j = 0; j < p; j++) u += SB[r * p + j] * S[j * p + c];
      out[r * p + c] = u;
    }
  return out;
}

/**
 * fitModel for the intercept-only model in two passes over the studies (the per-study refits of
 * influence, leave-one-out and cumulative analyses run through it k times); same numbers as the
 * general path.
 */
function interceptOnly(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  w: Float64Array,
  a: ArrayLike<number> | null,
  tau2: number,
  tau2_se: number | null,
  method: Method | Tau2Method,
  test: TestType,
  level: number,
  fixed: boolean,
): ModelFit {
  const k = yi.length;
  let sw = 0;
  let swy = 0;
  let sw0 = 0;
  let sw0y = 0;
  let sw0sq = 0;
  for (let i = 0; i < k; i++) {
    const y = yi[i];
    const w0 = 1 / vi[i];
    sw += w[i];
    swy += w[i] * y;
    sw0 += w0;
    sw0y += w0 * y;
    sw0sq += w0 * w0;
  }
  const mu = swy / sw;
  const mu0 = sw0y / sw0;
  let rss = 0;
  let QE = 0;
  for (let i = 0; i < k; i++) {
    const r = yi[i] - mu;
    const r0 = yi[i] - mu0;
    rss += w[i] * r * r;
    QE += (r0 * r0) / vi[i];
  }
  let s2w = 1;
  if (test === "knha") s2w = rss <= DBL_EPS ? 0 : rss / (k - 1);
  let b = mu;
  let vb = [s2w / sw];
  if (a) {
    // metafor rma.uni(weights = a): β̂ = Σay/Σa, Var = Σa²(v + τ²)/(Σa)² (times s² of the 1/(v + τ²) fit)
    let sa = 0;
    let say = 0;
    let sa2m = 0;
    for (let i = 0; i < k; i++) {
      sa += a[i];
      say += a[i] * yi[i];
      sa2m += a[i] * a[i] * (vi[i] + tau2);
    }
    b = say / sa;
    vb = [(s2w * sa2m) / (sa * sa)];
  }
  const se = Math.sqrt(vb[0]);
  const df = test === "knha" ? k - 1 : null;
  const crit = criticalValue(level, df);
  const z = b / se;
  const pval = df !== null ? 2 * pt(Math.abs(z), df, false) : 2 * pnorm(Math.abs(z), false);
  const QM = (b * b) / vb[0];
  // QM = z² (or t²): its χ²(1) / F(1, df) p-value is the two-sided p of the z (t) test
  const QMp = df !== null && df <= 0 ? Number.NaN : pval;
  let QEp = 1;
  let vt = Number.NaN;
  let I2 = 0;
  let H2 = 1;
  if (k > 1) {
    QE = Math.max(0, QE);
    QEp = pchisq(QE, k - 1, false);
    vt = (k - 1) / (sw0 - sw0sq / sw0);
    if (fixed) {
      I2 = QE > 0 ? Math.max(0, (100 * (QE - (k - 1))) / QE) : 0;
      H2 = QE / (k - 1);
    } else {
      I2 = (100 * tau2) / (vt + tau2);
      H2 = tau2 / vt + 1;
    }
  } else QE = 0;
  let fitCache: WlsFit | null = null;
  return {
    k,
    p: 1,
    method,
    test,
    tau2,
    tau2_se,
    beta: [b],
    vb,
    se: [se],
    statistic: [z],
    pval: [pval],
    ci_lb: [b - crit * se],
    ci_ub: [b + crit * se],
    df,
    s2w,
    QM,
    QMdf: [1, df],
    QMp,
    QE,
    QEp,
    I2,
    H2,
    vt,
    w,
    a,
    get fit() {
      return (fitCache ??= wls(yi, w, null));
    },
  };
}

/** Result of a meta-regression (metafor rma.uni with mods), coefficients in the order [intercept, moderators…]. */
export interface MetaRegressionResult {
  k: number;
  p: number;
  method: Method | Tau2Method;
  test: TestType;
  /** Names of the coefficients ("intercept", then the moderator names given or "mod1", …). */
  names: string[];
  b: number[];
  se: number[];
  statistic: number[];
  pval: number[];
  ci_lb: number[];
  ci_ub: number[];
  df: number | null;
  QM: number;
  QMdf: [number, number | null];
  QMp: number;
  QE: number;
  QEdf: number;
  QEp: number;
  /** Residual τ², its SE, residual I² (percent) and H². */
  tau2: number;
  tau2_se: number | null;
  I2: number;
  H2: number;
  /**
   * Pseudo-R² in percent, metafor's default: max(0, 100·(τ²₀ − τ²)/τ²₀) with τ²₀ from the
   * intercept-only model with the same estimator (0 when τ²₀ = 0); EE/FE: the adjusted R² of the
   * weighted least-squares regression. null for an intercept-only model.
   */
  R2: number | null;
  /** Permutation test (metafor permutest), present when requested. */
  permutation: PermutationResult | null;
}

/** metafor permutest: p-values of QM and of each coefficient from permuted moderators. */
export interface PermutationResult {
  /** Number of permutations, the observed data counted as the first (metafor's convention). */
  iterations: number;
  seed: number;
  QMp: number;
  pval: number[];
}

/** Options of metaRegression. */
export interface MetaRegressionOptions extends ModelOptions {
  /** Moderator names, used for `names` (default mod1, mod2, …). */
  names?: string[];
  /** Permutation test: number of permutations (≥ 100, metafor default 1,000) and seed. Off when absent. */
  permutation?: { iterations?: number; seed?: number };
}

/**
 * Meta-regression of yi on one or more moderator columns (numeric, or a categorical variable as its
 * dummy columns, see dummyColumns), as metafor rma.uni(yi, vi, mods = cbind(...), method, test):
 * coefficients with SE, CI and p; QM (χ², or F under knha) and its p; residual τ², QE and its p;
 * pseudo-R² (see MetaRegressionResult.R2); optionally the permutation p-values of permutest.
 */
export function metaRegression(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  mods: Moderators,
  opts: MetaRegressionOptions,
): MetaRegressionResult {
  const cols = moderatorColumns(mods);
  if (cols.length === 0) throw new MetaInputError("A meta-regression needs at least one moderator.");
  const fit = fitModel(yi, vi, cols, opts);
  const fixed = opts.method === "EE" || opts.method === "FE";
  let R2: number;
  if (fixed) {
    R2 = weightedAdjR2(yi, vi, fit);
  } else {
    const tau2RE = fitModel(yi, vi, null, { ...opts }).tau2;
    R2 = tau2RE === 0 ? 0 : Math.max(0, (100 * (tau2RE - fit.tau2)) / tau2RE);
  }
  let permutation: PermutationResult | null = null;
  if (opts.permutation)
    permutation = permutest(yi, vi, cols, opts, fit, opts.permutation.iterations ?? 1000, opts.permutation.seed ?? 1);
  return {
    k: fit.k,
    p: fit.p,
    method: fit.method,
    test: fit.test,
    names: ["intercept", ...cols.map((_, j) => opts.names?.[j] ?? `mod${j + 1}`)],
    b: fit.beta,
    se: fit.se,
    statistic: fit.statistic,
    pval: fit.pval,
    ci_lb: fit.ci_lb,
    ci_ub: fit.ci_ub,
    df: fit.df,
    QM: fit.QM,
    QMdf: fit.QMdf,
    QMp: fit.QMp,
    QE: fit.QE,
    QEdf: fit.k - fit.p,
    QEp: fit.QEp,
    tau2: fit.tau2,
    tau2_se: fit.tau2_se,
    I2: fit.I2,
    H2: fit.H2,
    R2,
    permutation,
  };
}

/** Adjusted R² (percent, ≥ 0) of lm(yi ~ X, weights = 1/vi), metafor's R² for EE/FE models. */
function weightedAdjR2(yi: ArrayLike<number>, vi: ArrayLike<number>, fit: ModelFit): number {
  const k = yi.length;
  const w = Float64Array.from(vi, (v) => 1 / v);
  const tss = weightedFit(yi, w).rss;
  if (tss === 0) return 0;
  const r2 = 1 - fit.fit.rss / tss;
  return Math.max(0, 100 * (1 - ((1 - r2) * (k - 1)) / (k - fit.p)));
}

/**
 * metafor permutest.rma.uni (approximate test, two-sided): the rows of the moderator matrix are
 * shuffled `iterations − 1` times (Fisher–Yates with a seeded mulberry32 generator, so results are
 * reproducible but not R's random stream), the model refitted each time; the observed fit counts as
 * the first permutation. QMp = share of QM* ≥ QM − √ε; pval[j] = share of |z*_j| ≥ |z_j| − √ε.
 * Permutations whose fit fails are drawn again, as metafor does.
 */
export function permutest(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  cols: ArrayLike<number>[],
  opts: ModelOptions,
  observed: ModelFit,
  iterations = 1000,
  seed = 1,
): PermutationResult {
  if (!(Number.isInteger(iterations) && iterations >= 100 && iterations <= 1e6)) {
    throw new MetaInputError("The permutation test needs between 100 and 1,000,000 permutations.");
  }
  const k = yi.length;
  const rand = mulberry32(seed);
  const tol = Math.sqrt(DBL_EPS);
  const idx = Array.from({ length: k }, (_, i) => i);
  const permCols = cols.map(() => new Float64Array(k));
  let qmHits = 1;
  const zHits = observed.statistic.map(() => 1);
  let done = 1;
  let failures = 0;
  while (done < iterations) {
    for (let i = k - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [idx[i], idx[j]] = [idx[j], idx[i]];
    }
    for (let c = 0; c < cols.length; c++) for (let i = 0; i < k; i++) permCols[c][i] = cols[c][idx[i]];
    let f: ModelFit;
    try {
      f = fitModel(yi, vi, permCols, opts);
    } catch {
      if (++failures > 10 * iterations)
        throw new MetaInputError("The permutation test failed: too many permuted fits failed.");
      continue;
    }
    done++;
    if (f.QM >= observed.QM - tol) qmHits++;
    f.statistic.forEach((z, j) => {
      if (Math.abs(z) >= Math.abs(observed.statistic[j]) - tol) zHits[j]++;
    });
  }
  return { iterations, seed, QMp: qmHits / iterations, pval: zHits.map((h) => h / iterations) };
}

/**
 * Dummy (treatment) coding of a categorical moderator, as R's factor() in a model formula: one 0/1
 * column per level except the reference level (the first in `levels`, default: order of first
 * appearance). Returns the columns and the levels they stand for.
 */
export function dummyColumns(
  values: readonly string[],
  levels?: readonly string[],
): { columns: Float64Array[]; levels: string[] } {
  const lv = levels ? [...levels] : [...new Set(values)];
  const columns = lv.slice(1).map((l) => Float64Array.from(values, (v) => (v === l ? 1 : 0)));
  return { columns, levels: lv };
}
