import { pchisq, pnorm, pt, qchisq, qnorm, qt, uniroot } from "./distributions.ts";
import { isRatioMeasure } from "./escalc.ts";
import { MetaInputError } from "./errors.ts";
import { wls } from "./linear.ts";
import {
  DEFAULT_TOL,
  estimateTau2,
  qGen,
  tau2GenQConfidenceInterval,
  weightedFit,
  withDefaultGenqWeights,
  type Tau2Control,
  type Tau2Method,
} from "./tau2.ts";
import type { EffectSize, Measure, Method, PiType, PooledResult, TestType } from "./types.ts";

export interface RmaOptions {
  /** Effect measure of the inputs (decides the ratio back-transform). */
  measure: Measure;
  /** EE/FE = equal effects; otherwise the τ² estimator of the random-effects model. */
  method: Method;
  /** "z" (default) or "knha" (Hartung & Knapp 2001 / Sidik & Jonkman 2002 t-based adjustment). */
  test?: TestType;
  /** Confidence level in percent (default 95). */
  level?: number;
  /**
   * Convergence settings (metafor control=list(threshold, maxiter, tol)); defaults are metafor's.
   * control.weights: the weights a of GENQ/GENQM (default 1/v), also used for pooling as metafor does.
   */
  control?: Tau2Control;
  /** Prediction-interval type, metafor predict(pi.type); default "default" (see PiType). */
  piType?: PiType;
}

/** Validate an array of effect sizes: finite yi, finite vi > 0, k ≥ minK. */
export function checkEffects(effects: EffectSize[], minK = 2): void {
  if (!Array.isArray(effects) || effects.length < minK) {
    throw new MetaInputError(
      `At least ${minK} studies are needed for a meta-analysis (got ${Array.isArray(effects) ? effects.length : 0}).`,
    );
  }
  for (let i = 0; i < effects.length; i++) {
    const e = effects[i];
    if (!Number.isFinite(e?.yi)) throw new MetaInputError(`Study ${i + 1} has no finite effect size.`, i);
    if (!Number.isFinite(e?.vi) || !(e.vi > 0)) {
      throw new MetaInputError(`Study ${i + 1} has a sampling variance that is not greater than 0.`, i);
    }
  }
}

function critical(level: number, test: TestType, df: number): number {
  const alpha = 1 - level / 100;
  return test === "knha" ? qt(alpha / 2, df, false) : qnorm(alpha / 2, false);
}

/**
 * Q-profile confidence interval for τ² (Viechtbauer 2007; metafor confint.rma.uni, type "QP"):
 * the τ² values where the generalised Q statistic Σ(y − μ̂(τ²))²/(v + τ²) equals the upper and
 * lower α/2 quantiles of χ²(k−1), found with R's uniroot on [0, max(100, 10·τ̂²)] at metafor's
 * tolerance. A bound is 0 when Q(0) is already below its critical value; the upper end of the
 * search range is returned when the root lies beyond it.
 */
export function tau2ConfidenceInterval(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  tau2: number,
  level = 95,
  tol = DEFAULT_TOL,
): [number, number] {
  const k = yi.length;
  const alpha = 1 - level / 100;
  const df = k - 1;
  const critU = qchisq(alpha / 2, df, false);
  const critL = qchisq(alpha / 2, df, true);
  const tau2Min = Math.min(0, tau2);
  const tau2Max = Math.max(100, tau2 * 10, tau2Min * 10);
  const qMax = qGen(yi, vi, tau2Max);
  const qMin = qGen(yi, vi, tau2Min);
  let lb = tau2Min;
  let ub = tau2Min;
  if (qMin >= critL) {
    ub = qMax > critL ? tau2Max : uniroot((t) => qGen(yi, vi, t) - critL, tau2Min, tau2Max, tol, 1000);
  }
  if (qMax > critU) {
    lb = tau2Max;
    ub = tau2Max;
  } else if (qMin >= critU) {
    lb = uniroot((t) => qGen(yi, vi, t) - critU, tau2Min, tau2Max, tol, 1000);
  }
  return [lb, ub];
}

/**
 * Log-likelihood (ML) or restricted log-likelihood (REML) of the random-effects model at τ², with
 * μ profiled out (μ̂(τ²) = Σwy/Σw, w = 1/(v + τ²)), up to its constant:
 * −½Σlog(v + τ²) − ½Σw(y − μ̂)² [− ½log Σw for REML] (Viechtbauer 2005, eqs. 5 and 7).
 */
function profileLogLik(yi: ArrayLike<number>, vi: ArrayLike<number>, tau2: number, reml: boolean): number {
  let sw = 0;
  let swy = 0;
  let logdet = 0;
  for (let i = 0; i < yi.length; i++) {
    const w = 1 / (vi[i] + tau2);
    sw += w;
    swy += w * yi[i];
    logdet += Math.log(vi[i] + tau2);
  }
  const mu = swy / sw;
  let rss = 0;
  for (let i = 0; i < yi.length; i++) rss += (yi[i] - mu) ** 2 / (vi[i] + tau2);
  return -0.5 * logdet - 0.5 * rss - (reml ? 0.5 * Math.log(sw) : 0);
}

/**
 * Profile-likelihood confidence interval for τ² (metafor confint.rma.uni(type = "PL"); Hardy &
 * Thompson 1996): the τ² values where the (restricted) log-likelihood has dropped by
 * χ²₁(level)/2 from its value at the fitted τ̂² (which must be the ML or REML estimate). A bound is
 * 0 when the likelihood at τ² = 0 is still within the drop; the upper search end max(100, 10·τ̂²)
 * is returned when the root lies beyond it, as for the Q-profile interval.
 */
export function tau2ProfileLikelihoodCI(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  tau2: number,
  method: "ML" | "REML",
  level = 95,
  tol = DEFAULT_TOL,
): [number, number] {
  const reml = method === "REML";
  const target = profileLogLik(yi, vi, tau2, reml) - qchisq(1 - level / 100, 1, false) / 2;
  const drop = (t: number) => profileLogLik(yi, vi, t, reml) - target;
  const hi = Math.max(100, 10 * tau2);
  const lb = tau2 <= 0 || drop(0) >= 0 ? 0 : uniroot(drop, 0, tau2, tol, 1000);
  const ub = drop(hi) >= 0 ? hi : uniroot(drop, tau2, hi, tol, 1000);
  return [lb, ub];
}

/**
 * Inverse-variance meta-analysis of an intercept-only model, as metafor's rma.uni(yi, vi, method, test, level).
 *
 * Input: effects[i] = {yi, vi} on the analysis scale (log for RR/OR/ROM), k ≥ 2.
 * - τ² by `method` (see estimateTau2; 0 for EE/FE). Weights w = 1/(v + τ²); μ̂ = Σwy/Σw, Var = 1/Σw.
 * - test "z": z = μ̂/SE, normal p and CI. test "knha": Var multiplied by s² = Σw(y − μ̂)²/(k−1)
 *   (not truncated, Hartung & Knapp 2001), t(k−1) p and CI.
 * - GENQ/GENQM (weights a = control.weights, else by control.weightScheme, default 1/v; the rule is
 *   returned as `genqWeights`): pooled with a as metafor does,
 *   μ̂ = Σay/Σa, Var = Σa²(v + τ²)/(Σa)² (knha: times s² of the inverse-variance fit); weights 100·a/Σa;
 *   τ² CI by the generalised Q-profile method (tau2GenQConfidenceInterval), metafor's default for them.
 * - Prediction interval μ̂ ± crit·√(SE² + τ²) (metafor predict.rma; crit as for the CI; = CI when τ² = 0);
 *   opts.piType "riley" | "t" | "simple" as metafor's pi.type (see PiType).
 * - Heterogeneity always with w = 1/v: Q, p = P(χ²(k−1) > Q); EE: I² = max(0, (Q−df)/Q)·100,
 *   H² = Q/df; RE: I² = 100τ²/(ṽ + τ²), H² = 1 + τ²/ṽ with ṽ = (k−1)/(Σw − Σw²/Σw) (Higgins & Thompson 2002).
 * - τ² CI by Q-profile (Viechtbauer 2007), I²/H² CI from its bounds (RE models only); for ML and
 *   REML also the profile-likelihood CI (`tau2_ci_pl`, see tau2ProfileLikelihoodCI).
 * - weights: 100·w/Σw (percent). ratio: exp() of estimate, CI and PI bounds for ratio measures.
 * - df: k − 1 under knha, else null. When every study has the same effect size under knha, s² = 0
 *   (metafor: SE 0, z = ±Inf); the engine keeps every number finite (statistic ±Number.MAX_VALUE,
 *   or 0 when the estimate is 0) and says so in `warnings`.
 * Throws MetaInputError for k < 2, invalid yi/vi, an unknown method or test, or a level outside (0, 100).
 */
export function rma(effects: EffectSize[], opts: RmaOptions): PooledResult {
  checkEffects(effects);
  const test: TestType = opts.test ?? "z";
  if (test !== "z" && test !== "knha") throw new MetaInputError(`Unknown test "${String(test)}" (use "z" or "knha").`);
  const level = opts.level ?? 95;
  if (!(level > 0 && level < 100))
    throw new MetaInputError(`The confidence level must be between 0 and 100 (got ${level}).`);
  const method = opts.method;
  const k = effects.length;
  const yi = new Float64Array(k);
  const vi = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    yi[i] = effects[i].yi;
    vi[i] = effects[i].vi;
  }
  const fixed = method === "EE" || method === "FE";
  const genq = method === "GENQ" || method === "GENQM";
  const control = withDefaultGenqWeights(method, vi, opts.control);
  const est = fixed ? null : estimateTau2(yi, vi, method, control);
  const tau2 = est ? est.tau2 : 0;

  const w = new Float64Array(k);
  for (let i = 0; i < k; i++) w[i] = 1 / (vi[i] + tau2);
  const fitIV = weightedFit(yi, w);
  let fit = fitIV;
  let vb = 1 / fit.sw;
  if (genq && control?.weights) {
    // metafor rma.uni with user weights: β̂ = Σay/Σa, Var = Σa²(v + τ²)/(Σa)²
    const a = control.weights;
    fit = weightedFit(yi, a);
    let sa2m = 0;
    for (let i = 0; i < k; i++) sa2m += a[i] * a[i] * (vi[i] + tau2);
    vb = sa2m / (fit.sw * fit.sw);
  }
  const warnings: string[] = [];
  if (test === "knha") {
    const s2w = fitIV.rss <= 2.220446049250313e-16 ? 0 : fitIV.rss / (k - 1);
    vb *= s2w;
    if (s2w === 0) {
      warnings.push(
        "All studies have the same effect size, so the Hartung–Knapp standard error is 0 and the confidence interval has zero width.",
      );
    }
  }
  const se = Math.sqrt(vb);
  const df = k - 1;
  const crit = critical(level, test, df);
  let statistic: number;
  let pval: number;
  if (se > 0) {
    statistic = fit.mu / se;
    pval = test === "knha" ? 2 * pt(Math.abs(statistic), df, false) : 2 * pnorm(Math.abs(statistic), false);
  } else {
    statistic = fit.mu === 0 ? 0 : Math.sign(fit.mu) * Number.MAX_VALUE;
    pval = fit.mu === 0 ? 1 : 0;
  }
  const ci_lb = fit.mu - crit * se;
  const ci_ub = fit.mu + crit * se;
  const piType = opts.piType ?? "default";
  let piCrit = crit;
  let piVb = vb;
  if (piType === "simple") {
    piCrit = qnorm((1 - level / 100) / 2, false);
    piVb = 0;
  } else if (piType === "riley" || piType === "t") {
    // metafor 3.8: pi.ddf = ddf − parms + p (riley) or ddf, with ddf = k − p, at least 1; parms counts τ²
    // unless it is fixed (EE/FE, and DL2/CA2, which metafor fits with the two-step τ² given)
    const tau2Fixed = fixed || method === "DL2" || method === "CA2";
    const piDf = Math.max(1, piType === "riley" ? df - (tau2Fixed ? 0 : 1) : df);
    piCrit = qt((1 - level / 100) / 2, piDf, false);
  }
  const piHalf = piCrit * Math.sqrt(piVb + tau2);
  const pi_lb = fit.mu - piHalf;
  const pi_ub = fit.mu + piHalf;

  const het = heterogeneity(yi, vi);
  let I2: number;
  let H2: number;
  if (fixed) {
    I2 = het.QE > 0 ? Math.max(0, (100 * (het.QE - df)) / het.QE) : 0;
    H2 = het.QE / df;
  } else {
    I2 = (100 * tau2) / (het.vt + tau2);
    H2 = tau2 / het.vt + 1;
  }
  let tau2_ci: [number, number] | null = null;
  let I2_ci: [number, number] | null = null;
  let H2_ci: [number, number] | null = null;
  if (!fixed) {
    tau2_ci =
      genq && control?.weights
        ? tau2GenQConfidenceInterval(yi, vi, control.weights, tau2, level)
        : tau2ConfidenceInterval(yi, vi, tau2, level, DEFAULT_TOL);
    I2_ci = [(100 * tau2_ci[0]) / (het.vt + tau2_ci[0]), (100 * tau2_ci[1]) / (het.vt + tau2_ci[1])];
    H2_ci = [1 + tau2_ci[0] / het.vt, 1 + tau2_ci[1] / het.vt];
  }
  const tau2_ci_pl =
    method === "ML" || method === "REML" ? tau2ProfileLikelihoodCI(yi, vi, tau2, method, level, DEFAULT_TOL) : null;
  const weightsPct = new Array<number>(k);
  const wPool = genq && control?.weights ? control.weights : w;
  for (let i = 0; i < k; i++) weightsPct[i] = (100 * wPool[i]) / fit.sw;
  return {
    measure: opts.measure,
    family: "IV",
    method,
    test,
    ...(genq && !opts.control?.weights ? { genqWeights: opts.control?.weightScheme ?? "inverse-variance" } : {}),
    k,
    estimate: fit.mu,
    se,
    statistic,
    pval,
    df: test === "knha" ? df : null,
    ci_lb,
    ci_ub,
    pi_lb,
    pi_ub,
    tau2,
    tau2_se: est ? est.se : null,
    tau2_ci,
    tau2_ci_pl,
    I2,
    H2,
    I2_ci,
    H2_ci,
    QE: het.QE,
    QEp: het.QEp,
    weights: weightsPct,
    ratio: ratioOf(opts.measure, fit.mu, ci_lb, ci_ub, pi_lb, pi_ub),
    warnings,
  };
}

/** Cochran's Q with w = 1/v, its p-value and the typical within-study variance ṽ = (k−1)/tr(P). */
export function heterogeneity(yi: ArrayLike<number>, vi: ArrayLike<number>): { QE: number; QEp: number; vt: number } {
  const k = yi.length;
  const w = new Float64Array(k);
  for (let i = 0; i < k; i++) w[i] = 1 / vi[i];
  const fit = weightedFit(yi, w);
  let sw2 = 0;
  for (let i = 0; i < k; i++) sw2 += w[i] * w[i];
  const QE = Math.max(0, fit.rss);
  return { QE, QEp: pchisq(QE, k - 1, false), vt: (k - 1) / (fit.sw - sw2 / fit.sw) };
}

/** exp() of the estimate and bounds for ratio measures (RR, OR, ROM), else null. */
export function ratioOf(
  measure: Measure,
  estimate: number,
  ci_lb: number,
  ci_ub: number,
  pi_lb: number,
  pi_ub: number,
): PooledResult["ratio"] {
  if (!isRatioMeasure(measure)) return null;
  return {
    estimate: Math.exp(estimate),
    ci_lb: Math.exp(ci_lb),
    ci_ub: Math.exp(ci_ub),
    pi_lb: Math.exp(pi_lb),
    pi_ub: Math.exp(pi_ub),
  };
}

/** One coefficient of a meta-regression. */
export interface RegCoefficient {
  estimate: number;
  se: number;
  /** z, or t with k − 2 df under knha. */
  statistic: number;
  pval: number;
  ci_lb: number;
  ci_ub: number;
}

/** Meta-regression on one moderator (metafor rma.uni(yi, vi, mods = x, method, test)). */
export interface MetaRegression {
  k: number;
  tau2: number;
  /** Degrees of freedom of the t tests (knha: k − 2), null for z. */
  df: number | null;
  intercept: RegCoefficient;
  slope: RegCoefficient;
}

/**
 * Mixed-effects meta-regression yi = b0 + b1·x + u + e with u ~ N(0, τ²), e ~ N(0, vi), as
 * metafor's rma.uni(yi, vi, mods = x, method, test, level): τ² by the same estimators as rma()
 * (0 for EE/FE), weighted least squares with w = 1/(v + τ²), knha scaling of Var(b) by
 * Σw e²/(k−2) with t(k−2) inference. Used by Egger's test (x = √vi) and by trim and fill's side
 * estimation. Needs k ≥ 3.
 */
export function rmaReg(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  x: ArrayLike<number>,
  opts: { method: Method; test?: TestType; level?: number; control?: Tau2Control },
): MetaRegression {
  const k = yi.length;
  if (k < 3) throw new MetaInputError("At least 3 studies are needed for a meta-regression.");
  const test = opts.test ?? "z";
  const level = opts.level ?? 95;
  const fixed = opts.method === "EE" || opts.method === "FE";
  const tau2 = fixed
    ? 0
    : estimateTau2(yi, vi, opts.method as Tau2Method, withDefaultGenqWeights(opts.method, vi, opts.control), x).tau2;
  const w = Float64Array.from(vi, (v) => 1 / (v + tau2));
  const fit = wls(yi, w, x);
  let s2w = 1;
  if (test === "knha") s2w = fit.rss <= 2.220446049250313e-16 ? 0 : fit.rss / (k - 2);
  const df = k - 2;
  const crit = critical(level, test, df);
  const coef = (j: 0 | 1): RegCoefficient => {
    const est = fit.beta[j];
    const se = Math.sqrt(s2w * fit.A[j === 0 ? 0 : 3]);
    const statistic = se > 0 ? est / se : est === 0 ? 0 : Math.sign(est) * Number.MAX_VALUE;
    const pval =
      se > 0
        ? test === "knha"
          ? 2 * pt(Math.abs(statistic), df, false)
          : 2 * pnorm(Math.abs(statistic), false)
        : est === 0
          ? 1
          : 0;
    return { estimate: est, se, statistic, pval, ci_lb: est - crit * se, ci_ub: est + crit * se };
  };
  return { k, tau2, df: test === "knha" ? df : null, intercept: coef(0), slope: coef(1) };
}
