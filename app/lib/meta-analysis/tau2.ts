import { uniroot } from "./distributions.ts";
import { MetaInputError } from "./errors.ts";
import type { Method } from "./types.ts";

/** tau² estimators: the Method values plus metafor's iterated variants DLIT and SJIT. */
export type Tau2Method = Exclude<Method, "EE" | "FE"> | "DLIT" | "SJIT";

/** Convergence settings, as metafor's rma.uni(control = list(...)) defaults. */
export interface Tau2Control {
  /** Fisher scoring / iteration threshold on |Δτ²| (metafor `threshold`, 1e-5). */
  threshold?: number;
  /** Maximum iterations (metafor `maxiter`, 100). */
  maxiter?: number;
  /** uniroot() tolerance for PM (metafor `tol`, .Machine$double.eps^0.25). */
  tol?: number;
}

export const DEFAULT_TOL = Math.pow(2.220446049250313e-16, 0.25);

export interface Tau2Estimate {
  tau2: number;
  /** Standard error of τ² as metafor reports it for the estimator. */
  se: number;
  /** Iterations used (0 for closed-form estimators). */
  iterations: number;
}

/**
 * Sums over an intercept-only P matrix, P = W − w wᵀ/Σw with weights w: returns
 * Σ_ij P_ij² a_i b_j for vectors a, b (a = b = 1 gives tr(PP), etc.). O(k).
 */
export function sumP2(w: ArrayLike<number>, a: ArrayLike<number> | null, b: ArrayLike<number> | null): number {
  const k = w.length;
  let S = 0;
  for (let i = 0; i < k; i++) S += w[i];
  let diag = 0;
  let diag3 = 0;
  let sa = 0;
  let sb = 0;
  for (let i = 0; i < k; i++) {
    const ai = a ? a[i] : 1;
    const bi = b ? b[i] : 1;
    const w2 = w[i] * w[i];
    diag += w2 * ai * bi;
    diag3 += w2 * w[i] * ai * bi;
    sa += w2 * ai;
    sb += w2 * bi;
  }
  return diag - (2 * diag3) / S + (sa * sb) / (S * S);
}

/** Weighted mean Σw y / Σw and the weighted residual sum of squares Σ w (y − μ̂)² (= yᵀPy). */
export function weightedFit(y: ArrayLike<number>, w: ArrayLike<number>): { mu: number; rss: number; sw: number } {
  const k = y.length;
  let sw = 0;
  let swy = 0;
  for (let i = 0; i < k; i++) {
    sw += w[i];
    swy += w[i] * y[i];
  }
  const mu = swy / sw;
  let rss = 0;
  for (let i = 0; i < k; i++) {
    const r = y[i] - mu;
    rss += w[i] * r * r;
  }
  return { mu, rss, sw };
}

function weights(vi: ArrayLike<number>, tau2: number): Float64Array {
  const k = vi.length;
  const w = new Float64Array(k);
  for (let i = 0; i < k; i++) w[i] = 1 / (vi[i] + tau2);
  return w;
}

function median(values: number[]): number {
  const s = [...values].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/** R's mad(): 1.4826 · median(|y − median(y)|). */
export function mad(values: number[]): number {
  const m = median(values);
  return 1.4826 * median(values.map((v) => Math.abs(v - m)));
}

/** Q(τ²) − objective with Q(τ²) = Σ (y − μ̂(τ²))² / (v + τ²) (metafor .QE.func, intercept only). */
export function qGen(yi: ArrayLike<number>, vi: ArrayLike<number>, tau2: number): number {
  return weightedFit(yi, weights(vi, tau2)).rss;
}

/** Restricted (REML) or full (ML) log-likelihood of the intercept-only random-effects model at τ². */
function logLik(yi: ArrayLike<number>, vi: ArrayLike<number>, tau2: number, reml: boolean): number {
  const k = yi.length;
  const w = weights(vi, tau2);
  const { rss, sw } = weightedFit(yi, w);
  let sumLogV = 0;
  for (let i = 0; i < k; i++) sumLogV += Math.log(vi[i] + tau2);
  if (reml) return -0.5 * (k - 1) * Math.log(2 * Math.PI) - 0.5 * sumLogV - 0.5 * Math.log(sw) - 0.5 * rss;
  return -0.5 * k * Math.log(2 * Math.PI) - 0.5 * sumLogV - 0.5 * rss;
}

/**
 * Estimate the between-study variance τ² of an intercept-only random-effects model, as metafor's
 * rma.uni(method = …) does, with its algorithms, defaults and truncation at 0 (tau2.min = 0):
 *
 * - DL: DerSimonian & Laird (1986), (Q − (k−1)) / (Σw − Σw²/Σw), w = 1/v.
 * - HE: Hedges (1983) / Cochran ANOVA, Σ(y − ȳ)²/(k−1) − Σv/k.
 * - HS: Hunter & Schmidt (2004), (Q − k)/Σw.
 * - SJ: Sidik & Jonkman (2005), one step from τ₀² = Σ(y − ȳ)²/k; SJIT iterates it.
 * - PM: Paule & Mandel (1982), root of Q(τ²) = k − 1 via R's uniroot on [0, max(100, 10·mad(y)²)]
 *   with metafor's tolerance (.Machine$double.eps^0.25 unless control.tol is given).
 * - ML / REML / EB: Fisher scoring from the HE value with step halving (Viechtbauer 2005; Morris 1983),
 *   threshold 1e-5, at most 100 iterations; ML/REML fall back to 0 when the likelihood is higher there.
 * - DLIT: iterated DL from 0.
 *
 * yi on the analysis scale, vi > 0 (same units squared). Needs k ≥ 2. Returns τ², its SE (metafor's
 * formula for each estimator) and iterations. Throws MetaInputError when k < 2 or an iteration fails.
 */
export function estimateTau2(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  method: Tau2Method,
  control: Tau2Control = {},
): Tau2Estimate {
  const k = yi.length;
  if (k < 2) throw new MetaInputError("At least 2 studies are needed to estimate the between-study variance.");
  const threshold = control.threshold ?? 1e-5;
  const maxiter = control.maxiter ?? 100;
  const tol = control.tol ?? DEFAULT_TOL;
  const p = 1;
  const df = k - p;
  let sumV = 0;
  let sumV2 = 0;
  let ybar = 0;
  for (let i = 0; i < k; i++) {
    sumV += vi[i];
    sumV2 += vi[i] * vi[i];
    ybar += yi[i];
  }
  ybar /= k;
  let ssUnweighted = 0;
  for (let i = 0; i < k; i++) ssUnweighted += (yi[i] - ybar) ** 2;

  const w0 = weights(vi, 0);
  const fit0 = weightedFit(yi, w0);
  const trP0 = fit0.sw - sumSquares(w0) / fit0.sw;
  let tau2: number;
  let se: number;
  let iterations = 0;

  switch (method) {
    case "DL": {
      tau2 = Math.max(0, (fit0.rss - df) / trP0);
      se = Math.sqrt((2 * df + 4 * tau2 * trP0 + 2 * tau2 * tau2 * sumP2(w0, null, null)) / (trP0 * trP0));
      break;
    }
    case "HS": {
      tau2 = Math.max(0, (fit0.rss - k) / fit0.sw);
      se = Math.sqrt((2 * df + 4 * tau2 * trP0 + 2 * tau2 * tau2 * sumP2(w0, null, null)) / (fit0.sw * fit0.sw));
      break;
    }
    case "HE": {
      tau2 = Math.max(0, heRaw());
      se = heSe(tau2);
      break;
    }
    case "SJ": {
      const tau20 = ssUnweighted / k;
      const w = weights(vi, tau20);
      const fit = weightedFit(yi, w);
      tau2 = Math.max(0, (tau20 * fit.rss) / df);
      se = Math.sqrt(
        ((tau20 * tau20) / (df * df)) *
          (2 * sumP2(w, vi, vi) + 4 * tau2 * sumP2(w, null, vi) + 2 * tau2 * tau2 * sumP2(w, null, null)),
      );
      break;
    }
    case "SJIT": {
      tau2 = ssUnweighted / k;
      let change = threshold + 1;
      while (change > threshold) {
        iterations++;
        const old = tau2;
        tau2 = (tau2 * weightedFit(yi, weights(vi, tau2)).rss) / df;
        change = Math.abs(old - tau2);
        if (iterations > maxiter) throw new MetaInputError("The iterative Sidik–Jonkman estimator did not converge.");
      }
      tau2 = Math.max(0, tau2);
      se = pmSe(tau2);
      break;
    }
    case "DLIT": {
      tau2 = 0;
      let change = threshold + 1;
      while (change > threshold) {
        iterations++;
        const old = tau2;
        const w = weights(vi, tau2);
        const fit = weightedFit(yi, w);
        const trP = fit.sw - sumSquares(w) / fit.sw;
        tau2 = Math.max(0, (fit.rss - df) / trP);
        change = Math.abs(old - tau2);
        if (iterations > maxiter) throw new MetaInputError("The iterative DerSimonian–Laird estimator did not converge.");
      }
      const w = weights(vi, tau2);
      const fit = weightedFit(yi, w);
      const trP = fit.sw - sumSquares(w) / fit.sw;
      se = Math.sqrt((2 * df + 4 * tau2 * trP + 2 * tau2 * tau2 * sumP2(w, null, null)) / (trP * trP));
      break;
    }
    case "PM": {
      const target = df;
      if (fit0.rss < target) {
        tau2 = 0;
      } else {
        const tau2Max = Math.max(100, 10 * mad(Array.from(yi)) ** 2);
        if (qGen(yi, vi, tau2Max) > target) {
          throw new MetaInputError(
            "The Paule–Mandel estimate of the between-study variance is out of range; choose another estimator.",
          );
        }
        tau2 = uniroot((t) => qGen(yi, vi, t) - target, 0, tau2Max, tol, maxiter);
      }
      tau2 = Math.max(0, tau2);
      se = pmSe(tau2);
      break;
    }
    case "ML":
    case "REML":
    case "EB": {
      tau2 = Math.max(0, heRaw());
      let change = threshold + 1;
      while (change > threshold) {
        iterations++;
        const old = tau2;
        const w = weights(vi, tau2);
        const fit = weightedFit(yi, w);
        let adj: number;
        if (method === "EB") {
          adj = ((fit.rss * k) / df - k) / fit.sw;
        } else {
          // yᵀPPy = Σ w²(y − μ̂)²
          let yPPy = 0;
          let sw2 = 0;
          for (let i = 0; i < k; i++) {
            const r = yi[i] - fit.mu;
            yPPy += w[i] * w[i] * r * r;
            sw2 += w[i] * w[i];
          }
          if (method === "ML") adj = (yPPy - fit.sw) / sw2;
          else adj = (yPPy - (fit.sw - sw2 / fit.sw)) / sumP2(w, null, null);
        }
        if (Number.isNaN(adj)) adj = 0;
        while (tau2 + adj < 0) adj /= 2;
        tau2 = tau2 + adj;
        change = Math.abs(old - tau2);
        if (iterations > maxiter) {
          throw new MetaInputError(
            "The Fisher scoring algorithm for the between-study variance did not converge; choose another estimator.",
          );
        }
      }
      if (method !== "EB") {
        const reml = method === "REML";
        const ll0 = logLik(yi, vi, 0, reml);
        const ll = logLik(yi, vi, tau2, reml);
        if (ll0 - ll > DEFAULT_TOL && tau2 > threshold) tau2 = 0;
      }
      tau2 = Math.max(0, tau2);
      const w = weights(vi, tau2);
      if (method === "ML") se = Math.sqrt(2 / sumSquares(w));
      else if (method === "REML") se = Math.sqrt(2 / sumP2(w, null, null));
      else se = pmSe(tau2);
      break;
    }
    default:
      throw new MetaInputError(`Unknown estimator of the between-study variance "${String(method)}".`);
  }
  return { tau2, se, iterations };

  function heRaw(): number {
    return (ssUnweighted - (sumV * (k - 1)) / k) / df;
  }
  function heSe(t2: number): number {
    const trPV = (sumV * (k - 1)) / k;
    const trPVPV = sumV2 - (2 * sumV2) / k + (sumV * sumV) / (k * k);
    return Math.sqrt((2 * trPVPV + 4 * t2 * trPV + 2 * t2 * t2 * df) / (df * df));
  }
  function pmSe(t2: number): number {
    let sw = 0;
    for (let i = 0; i < k; i++) sw += 1 / (vi[i] + t2);
    return Math.sqrt((2 * k * k) / df / (sw * sw));
  }
}

function sumSquares(w: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < w.length; i++) s += w[i] * w[i];
  return s;
}
