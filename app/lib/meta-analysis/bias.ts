import { pnorm } from "./distributions.ts";
import { MetaInputError } from "./errors.ts";
import { fitModel } from "./metareg.ts";
import { checkEffects, rma, rmaReg, type RmaOptions } from "./rma.ts";
import type { BeggTest, EffectSize, EggerTest, TrimFillResult } from "./types.ts";

/** Predictor of Egger-type regression tests (metafor regtest(predictor = ...)). */
export type RegtestPredictor = "sei" | "vi" | "ni" | "ninv" | "sqrtni" | "sqrtninv";

/** Options of regtest beyond the model's method, test and level. */
export interface RegtestOptions extends Omit<RmaOptions, "measure"> {
  measure?: RmaOptions["measure"];
  /** Predictor (default "sei"): standard error, variance, sample size n, 1/n, √n or 1/√n. */
  predictor?: RegtestPredictor;
  /** "rma" (default): mixed-effects meta-regression with the model's method and test; "lm": weighted least squares (weights 1/vi), t test with k − 2 df (Egger et al. 1997's classical form). */
  model?: "rma" | "lm";
  /** Total sample size per study, needed for the ni/ninv/sqrtni/sqrtninv predictors. */
  ni?: number[];
}

/**
 * Egger's regression test for funnel-plot asymmetry, as metafor's regtest(model, predictor): the
 * regression yi = b0 + b1·x with x = √vi (default), vi, n, 1/n, √n or 1/√n (Egger et al. 1997;
 * Sterne & Egger 2005; Peters et al. 2006 use 1/n), fitted as a mixed-effects meta-regression with
 * the main model's method and test ("rma", default) or by weighted least squares with weights 1/vi
 * and a t(k − 2) test ("lm" = metafor's fit with EE + knha scaling). The test is on b1; for the
 * predictors that vanish with infinite precision (sei, vi, ninv, sqrtninv) b0 is the "limit
 * estimate" with its CI (`intercept_ci`), else intercept_ci is absent. Returns {statistic, df, pval,
 * intercept = b0, slope = b1}; with the default predictor the funnel-plot line is effect =
 * intercept + slope · SE. Needs k ≥ 3; throws MetaInputError when ni is missing for an n-based
 * predictor or the predictor is constant.
 */
export function regtest(effects: EffectSize[], opts: RegtestOptions): EggerTest {
  checkEffects(effects, 3);
  const yi = effects.map((e) => e.yi);
  const vi = effects.map((e) => e.vi);
  const predictor = opts.predictor ?? "sei";
  const model = opts.model ?? "rma";
  // GENQ/GENQM go through fitModel, which pools with their weights as metafor's regtest (rma(weights = a, mods = sei))
  if (predictor === "sei" && model === "rma" && opts.method !== "GENQ" && opts.method !== "GENQM") {
    const sei = vi.map(Math.sqrt);
    const fit = rmaReg(yi, vi, sei, { method: opts.method, test: opts.test, level: opts.level, control: opts.control });
    return {
      statistic: fit.slope.statistic,
      df: fit.df,
      pval: fit.slope.pval,
      intercept: fit.intercept.estimate,
      slope: fit.slope.estimate,
      intercept_ci: [fit.intercept.ci_lb, fit.intercept.ci_ub],
    };
  }
  let x: number[];
  if (predictor === "sei") x = vi.map(Math.sqrt);
  else if (predictor === "vi") x = vi;
  else {
    const ni = opts.ni;
    if (!ni || ni.length !== yi.length || ni.some((n) => !(n > 0) || !Number.isFinite(n))) {
      throw new MetaInputError(`The "${predictor}" predictor needs the sample size of every study.`);
    }
    x = ni.map((n) =>
      predictor === "ni" ? n : predictor === "ninv" ? 1 / n : predictor === "sqrtni" ? Math.sqrt(n) : 1 / Math.sqrt(n),
    );
  }
  const fit =
    model === "lm"
      ? fitModel(yi, vi, [x], { method: "EE", test: "knha", level: opts.level })
      : fitModel(yi, vi, [x], { method: opts.method, test: opts.test, level: opts.level, control: opts.control });
  const limit = predictor !== "ni" && predictor !== "sqrtni";
  return {
    statistic: fit.statistic[1],
    df: fit.df,
    pval: fit.pval[1],
    intercept: fit.beta[0],
    slope: fit.beta[1],
    ...(limit ? { intercept_ci: [fit.ci_lb[0], fit.ci_ub[0]] as [number, number] } : {}),
  };
}

/**
 * Probabilities of the number of inversions of a random permutation of n (Mahonian distribution),
 * i.e. the exact null distribution of Kendall's statistic without ties (R's ckendall/pkendall).
 */
function kendallDistribution(n: number): Float64Array {
  let dist = new Float64Array([1]);
  for (let m = 2; m <= n; m++) {
    const size = dist.length + m - 1;
    const next = new Float64Array(size);
    // next[s] = (1/m) Σ_{j=0}^{m-1} dist[s − j], via a running window sum.
    let window = 0;
    for (let s = 0; s < size; s++) {
      if (s < dist.length) window += dist[s];
      if (s - m >= 0) window -= dist[s - m];
      next[s] = window / m;
    }
    dist = next;
  }
  return dist;
}

function kendallTauB(x: number[], y: number[]): { tau: number; ties: boolean; xTies: number[]; yTies: number[] } {
  const n = x.length;
  let concordant = 0;
  let discordant = 0;
  let tx = 0;
  let ty = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = Math.sign(x[i] - x[j]);
      const dy = Math.sign(y[i] - y[j]);
      if (dx === 0) tx++;
      if (dy === 0) ty++;
      const s = dx * dy;
      if (s > 0) concordant++;
      else if (s < 0) discordant++;
    }
  }
  const n0 = (n * (n - 1)) / 2;
  const groupSizes = (v: number[]) => {
    const counts = new Map<number, number>();
    for (const a of v) counts.set(a, (counts.get(a) ?? 0) + 1);
    return [...counts.values()].filter((c) => c > 1);
  };
  const xTies = groupSizes(x);
  const yTies = groupSizes(y);
  const tau = (concordant - discordant) / Math.sqrt((n0 - tx) * (n0 - ty));
  return { tau, ties: xTies.length > 0 || yTies.length > 0, xTies, yTies };
}

/**
 * Begg & Mazumdar's (1994) rank correlation test, as metafor's ranktest(): standardised effects
 * y* = (y − θ̂)/√(v − 1/Σw) (θ̂ the inverse-variance mean) correlated with vi by Kendall's τ (τ-b).
 * p-value as R's cor.test(method = "kendall", exact = TRUE): exact null distribution when there are
 * no ties (two-sided, min(2p, 1)); the normal approximation with the tie-corrected variance when
 * there are ties, or when k > 170 (where R's exact computation overflows). Needs k ≥ 3.
 */
export function ranktest(effects: EffectSize[]): BeggTest {
  checkEffects(effects, 3);
  const yi = effects.map((e) => e.yi);
  const vi = effects.map((e) => e.vi);
  let sw = 0;
  let swy = 0;
  for (let i = 0; i < yi.length; i++) {
    sw += 1 / vi[i];
    swy += yi[i] / vi[i];
  }
  const theta = swy / sw;
  const vb = 1 / sw;
  const ystar = yi.map((y, i) => (y - theta) / Math.sqrt(vi[i] - vb));
  const n = yi.length;
  const { tau, ties, xTies, yTies } = kendallTauB(ystar, vi);
  if (!Number.isFinite(tau)) return { tau: 0, pval: 1 };
  if (!ties && n <= 170) {
    const q = Math.round(((tau + 1) * n * (n - 1)) / 4);
    const dist = kendallDistribution(n);
    const cdf = (upTo: number) => {
      let s = 0;
      for (let j = 0; j <= upTo && j < dist.length; j++) s += dist[j];
      return s;
    };
    const p = q > (n * (n - 1)) / 4 ? 1 - cdf(q - 1) : cdf(q);
    return { tau, pval: Math.min(2 * p, 1) };
  }
  const T0 = (n * (n - 1)) / 2;
  const sum = (a: number[], f: (t: number) => number) => a.reduce((s, t) => s + f(t), 0);
  const T1 = sum(xTies, (t) => t * (t - 1)) / 2;
  const T2 = sum(yTies, (t) => t * (t - 1)) / 2;
  const S = tau * Math.sqrt((T0 - T1) * (T0 - T2));
  const v0 = n * (n - 1) * (2 * n + 5);
  const vt = sum(xTies, (t) => t * (t - 1) * (2 * t + 5));
  const vu = sum(yTies, (t) => t * (t - 1) * (2 * t + 5));
  const v1 = sum(xTies, (t) => t * (t - 1)) * sum(yTies, (t) => t * (t - 1));
  const v2 = sum(xTies, (t) => t * (t - 1) * (t - 2)) * sum(yTies, (t) => t * (t - 1) * (t - 2));
  const varS = (v0 - vt - vu) / 18 + v1 / (2 * n * (n - 1)) + v2 / (9 * n * (n - 1) * (n - 2));
  const z = S / Math.sqrt(varS);
  return { tau, pval: 2 * Math.min(pnorm(z), pnorm(z, false)) };
}

export interface TrimFillOptions extends RmaOptions {
  /** Estimator of the number of missing studies (default "L0"). */
  estimator?: "L0" | "R0";
  /** Side of the funnel where studies are missing; estimated as metafor does when absent. */
  side?: "left" | "right";
  /** Maximum iterations (metafor default 100). */
  maxiter?: number;
}

/**
 * Duval & Tweedie's (2000) trim and fill, as metafor's trimfill.rma.uni(): the side is the one
 * opposite the sign of the slope of yi on √vi (regression with the model's method); the k0 most
 * extreme studies are trimmed iteratively (L0: k0 = (4S_r − k(k+1))/(2k − 1); R0: k0 = k − r₀ − 1, with
 * S_r the sum of positive signed ranks of |y − β̂| and r₀ the longest run of ranks on the opposite
 * side), then mirrored around the trimmed estimate, and the model (same method; test as given,
 * default z as metafor) is refitted on the k + k0 studies. Filled studies are on the analysis scale.
 * Returns also se_k0 and, for R0, p_k0. Needs k ≥ 3.
 */
export function trimfill(effects: EffectSize[], opts: TrimFillOptions): TrimFillResult {
  checkEffects(effects, 3);
  const estimator = opts.estimator ?? "L0";
  const maxiter = opts.maxiter ?? 100;
  const fitOpts: RmaOptions = {
    measure: opts.measure,
    method: opts.method,
    test: "z",
    level: opts.level,
    control: opts.control,
  };
  let side = opts.side;
  if (!side) {
    const reg = rmaReg(
      effects.map((e) => e.yi),
      effects.map((e) => e.vi),
      effects.map((e) => Math.sqrt(e.vi)),
      { method: opts.method, control: opts.control },
    );
    side = reg.slope.estimate < 0 ? "right" : "left";
  }
  const flip = side === "right" ? -1 : 1;
  const sorted = effects
    .map((e) => ({ yi: flip * e.yi, vi: e.vi }))
    .map((e, i) => ({ ...e, i }))
    .sort((a, b) => a.yi - b.yi || a.i - b.i);
  const k = sorted.length;
  let k0 = 0;
  let k0Prev = -1;
  let iter = 0;
  let beta = 0;
  let seK0 = 0;
  while (Math.abs(k0 - k0Prev) > 0) {
    k0Prev = k0;
    iter++;
    if (iter > maxiter) throw new MetaInputError("Trim and fill did not converge.");
    const trimmed = sorted.slice(0, k - k0);
    if (trimmed.length < 2) throw new MetaInputError("Trim and fill would leave fewer than 2 studies.");
    beta = rma(trimmed, fitOpts).estimate;
    const centred = sorted.map((e) => e.yi - beta);
    // ranks of |centred| with ties broken by order ("first")
    const order = centred.map((c, i) => ({ a: Math.abs(c), i })).sort((a, b) => a.a - b.a || a.i - b.i);
    const rank = new Array<number>(k);
    order.forEach((o, r) => {
      rank[o.i] = r + 1;
    });
    const signed = centred.map((c, i) => Math.sign(c) * rank[i]);
    let est: number;
    if (estimator === "R0") {
      const negatives = signed.filter((s) => s < 0).map((s) => -s);
      const maxNeg = negatives.length ? Math.max(...negatives) : 0;
      est = k - maxNeg - 1;
      seK0 = Math.sqrt(2 * Math.max(0, est) + 2);
    } else {
      const Sr = signed.filter((s) => s > 0).reduce((a, b) => a + b, 0);
      est = (4 * Sr - k * (k + 1)) / (2 * k - 1);
      const varSr =
        (k * (k + 1) * (2 * k + 1) +
          10 * est ** 3 +
          27 * est ** 2 +
          17 * est -
          18 * k * est ** 2 -
          18 * k * est +
          6 * k ** 2 * est) /
        24;
      seK0 = (4 * Math.sqrt(varSr)) / (2 * k - 1);
    }
    k0 = Math.min(Math.max(0, rRound(est)), k - 2);
    seK0 = Math.max(0, seK0);
  }
  const filled: EffectSize[] = [];
  for (let j = k - k0; j < k; j++) {
    // mirror around β on the flipped scale, then flip back
    filled.push({ yi: flip * (2 * beta - sorted[j].yi), vi: sorted[j].vi });
  }
  const adjusted = k0 > 0 ? rma([...effects, ...filled], fitOpts) : rma(effects, fitOpts);
  return {
    estimator,
    k0,
    side,
    filled,
    adjusted,
    se_k0: seK0,
    p_k0: estimator === "R0" ? Math.pow(0.5, k0 + 1) : null,
  };
}

/** R's round(): halves to even (IEC 60559). */
function rRound(x: number): number {
  const r = Math.round(x);
  if (Math.abs(x % 1) === 0.5 && r % 2 !== 0) return r - 1;
  return r;
}
