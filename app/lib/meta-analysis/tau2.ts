import { qchisq, uniroot } from "./distributions.ts";
import { pQuadForm, rankOneDowndateEigenvalues, symmetricEigenvalues } from "./quadform.ts";
import { MetaInputError } from "./errors.ts";
import { moderatorColumns, wls, type Moderators, type WlsFit } from "./linear.ts";
import type { GenqWeights, Method } from "./types.ts";

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
  /** Starting value of SJ/SJIT/DLIT (metafor control = list(tau2.init)); default: metafor's. */
  tau2Init?: number;
  /** Weights a_i of the generalised Q estimators GENQ / GENQM (metafor rma(method = "GENQ", weights)). */
  weights?: ArrayLike<number>;
  /**
   * GENQ / GENQM without `weights`: the rule a = f(v) the weights follow (default "inverse-variance").
   * Every fit on a subset of the studies then has its studies' own weights, as metafor's weights[subset].
   */
  weightScheme?: GenqWeights;
}

export const DEFAULT_TOL = Math.pow(2.220446049250313e-16, 0.25);

export interface Tau2Estimate {
  tau2: number;
  /** Standard error of τ² as metafor reports it for the estimator. */
  se: number;
  /** Iterations used (0 for closed-form estimators). */
  iterations: number;
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

/** Inverse-variance weights 1/(v_i + τ²). */
export function weights(vi: ArrayLike<number>, tau2: number): Float64Array {
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

/**
 * Generalised Q at τ²: Σ (y − ŷ(τ²))² / (v + τ²) (metafor .QE.func), with an optional moderator x.
 */
export function qGen(yi: ArrayLike<number>, vi: ArrayLike<number>, tau2: number, x: Moderators = null): number {
  if (moderatorColumns(x).length > 0) return wls(yi, weights(vi, tau2), x).rss;
  // intercept only, without allocating: two passes over w = 1/(v + τ²)
  const k = yi.length;
  let sw = 0;
  let swy = 0;
  for (let i = 0; i < k; i++) {
    const w = 1 / (vi[i] + tau2);
    sw += w;
    swy += w * yi[i];
  }
  const mu = swy / sw;
  let rss = 0;
  for (let i = 0; i < k; i++) {
    const r = yi[i] - mu;
    rss += (r * r) / (vi[i] + tau2);
  }
  return rss;
}

/** Restricted (REML) or full (ML) log-likelihood of the random-effects model at τ². */
function logLik(yi: ArrayLike<number>, vi: ArrayLike<number>, tau2: number, reml: boolean, x: Moderators): number {
  const k = yi.length;
  let p: number;
  let rss: number;
  let logDet: number;
  if (x) {
    const fit = wls(yi, weights(vi, tau2), x);
    p = fit.p;
    rss = fit.rss;
    logDet = fit.logDetXWX;
  } else {
    let sw = 0;
    for (let i = 0; i < k; i++) sw += 1 / (vi[i] + tau2);
    p = 1;
    rss = qGen(yi, vi, tau2);
    logDet = Math.log(sw);
  }
  let sumLogV = 0;
  for (let i = 0; i < k; i++) sumLogV += Math.log(vi[i] + tau2);
  if (reml) return -0.5 * (k - p) * Math.log(2 * Math.PI) - 0.5 * sumLogV - 0.5 * logDet - 0.5 * rss;
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
 * - HSk: Hunter–Schmidt with the k/(k−p) small-sample factor, (k/(k−p)·Q − k)/Σw.
 * - PMM: median-unbiased Paule–Mandel, root of Q(τ²) = χ²₀.₅(k−p).
 * - GENQ: generalised Q with user weights a (control.weights), (Q_a − tr(P_a V))/tr(P_a) (DerSimonian
 *   & Kacker 2007). GENQM: its median-unbiased version (Jackson, Turner, Rhodes & Viechtbauer 2014),
 *   the τ² at which Q_a is the median of its distribution Σ λ_j(τ²) χ²₁ (see genqUpperTail), found with
 *   uniroot on [0, max(100, 10·mad(y)²)]; 0 when Q_a is below the median at τ² = 0. DL2 / CA2: two-step estimators = GENQ with a = 1/(v + τ²_DL) / 1/(v + τ²_HE);
 *   SJ2: Sidik–Jonkman started from τ²_HE (DerSimonian & Kacker 2007; metafor's example
 *   "dersimonian2007").
 *
 * With a moderator x (metafor mods = x) the same estimators are applied to the meta-regression.
 * yi on the analysis scale, vi > 0 (same units squared). Needs k > p (2 without, 3 with a moderator). Returns τ², its SE (metafor's
 * formula for each estimator) and iterations. Throws MetaInputError when k < 2 or an iteration fails.
 */
export function estimateTau2(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  method: Tau2Method,
  control: Tau2Control = {},
  xIn: Moderators = null,
): Tau2Estimate {
  const k = yi.length;
  const cols = moderatorColumns(xIn);
  const x: ArrayLike<number>[] | null = cols.length > 0 ? cols : null;
  const p = cols.length + 1;
  if (k <= p) {
    throw new MetaInputError(
      p === 1
        ? "At least 2 studies are needed to estimate the between-study variance."
        : `At least ${p + 1} studies are needed for a meta-regression with ${p - 1} moderator column(s).`,
    );
  }
  const threshold = control.threshold ?? 1e-5;
  const maxiter = control.maxiter ?? 100;
  const tol = control.tol ?? DEFAULT_TOL;
  const df = k - p;
  let ybar = 0;
  for (let i = 0; i < k; i++) ybar += yi[i];
  ybar /= k;
  let ssUnweighted = 0;
  for (let i = 0; i < k; i++) ssUnweighted += (yi[i] - ybar) ** 2;

  let fit0Cache: WlsFit | null = null;
  const fit0 = (): WlsFit => (fit0Cache ??= wls(yi, weights(vi, 0), x));
  let tau2: number;
  let se: number;
  let iterations = 0;
  const dlSe = (fit: WlsFit, t2: number, denom: number) =>
    Math.sqrt((2 * df + 4 * t2 * fit.trP() + 2 * t2 * t2 * fit.sumP2(null, null)) / (denom * denom));

  switch (method) {
    case "DL": {
      const f0 = fit0();
      const trP = f0.trP();
      tau2 = Math.max(0, (f0.rss - df) / trP);
      se = dlSe(f0, tau2, trP);
      break;
    }
    case "HS": {
      const f0 = fit0();
      tau2 = Math.max(0, (f0.rss - k) / f0.sw);
      se = dlSe(f0, tau2, f0.sw);
      break;
    }
    case "HSk": {
      const f0 = fit0();
      tau2 = Math.max(0, ((k / df) * f0.rss - k) / f0.sw);
      se = (k / df) * dlSe(f0, tau2, f0.sw);
      break;
    }
    case "HE": {
      tau2 = Math.max(0, heRaw());
      se = heSe(tau2);
      break;
    }
    case "SJ":
    case "SJ2": {
      const tau20 = method === "SJ2" ? Math.max(0, heRaw()) : (control.tau2Init ?? ssUnweighted / k);
      const fit = wls(yi, weights(vi, tau20), x);
      tau2 = Math.max(0, (tau20 * fit.rss) / df);
      se = Math.sqrt(
        ((tau20 * tau20) / (df * df)) *
          (2 * fit.sumP2(vi, vi) + 4 * tau2 * fit.sumP2(null, vi) + 2 * tau2 * tau2 * fit.sumP2(null, null)),
      );
      break;
    }
    case "SJIT": {
      tau2 = control.tau2Init ?? ssUnweighted / k;
      let change = threshold + 1;
      while (change > threshold) {
        iterations++;
        const old = tau2;
        tau2 = (tau2 * wls(yi, weights(vi, tau2), x).rss) / df;
        change = Math.abs(old - tau2);
        if (iterations > maxiter) throw new MetaInputError("The iterative Sidik–Jonkman estimator did not converge.");
      }
      tau2 = Math.max(0, tau2);
      se = pmSe(tau2);
      break;
    }
    case "DLIT": {
      // Iterated generalised-Q step τ² ← (yᵀPy − tr(PV)) / tr(P) with P at the current τ² (metafor ≥ 4.x);
      // its fixed point is the Paule–Mandel solution.
      tau2 = control.tau2Init ?? 0;
      let change = threshold + 1;
      while (change > threshold) {
        iterations++;
        const old = tau2;
        const fit = wls(yi, weights(vi, tau2), x);
        tau2 = Math.max(0, (fit.rss - fit.trPD(vi)) / fit.trP());
        change = Math.abs(old - tau2);
        if (iterations > maxiter)
          throw new MetaInputError("The iterative DerSimonian–Laird estimator did not converge.");
      }
      se = pmSe(tau2);
      break;
    }
    case "GENQ":
    case "DL2":
    case "CA2": {
      let a: ArrayLike<number>;
      if (method === "GENQ") {
        a = genqWeights(control.weights, k);
      } else {
        const first = method === "DL2" ? estimateTau2(yi, vi, "DL", control, x).tau2 : Math.max(0, heRaw());
        a = weights(vi, first);
      }
      const fa = wls(yi, a, x);
      const trP = fa.trP();
      tau2 = Math.max(0, (fa.rss - fa.trPD(vi)) / trP);
      se = Math.sqrt(
        (2 * fa.sumP2(vi, vi) + 4 * tau2 * fa.sumP2(null, vi) + 2 * tau2 * tau2 * fa.sumP2(null, null)) / (trP * trP),
      );
      break;
    }
    case "GENQM": {
      const a = genqWeights(control.weights, k);
      const P = genqProjection(a, x);
      const Q = wls(yi, a, x).rss;
      const tail = (t: number) => genqUpperTail(t, P, vi, Q, p, a);
      const tau2Max = Math.max(100, 10 * mad(Array.from(yi)) ** 2);
      if (tail(0) > 0.5) tau2 = 0;
      else {
        if (tail(tau2Max) < 0.5) {
          throw new MetaInputError(
            "The median-unbiased generalised Q estimate of the between-study variance is out of range; choose another estimator.",
          );
        }
        tau2 = uniroot((t) => 1 - tail(t) - 0.5, 0, tau2Max, tol, maxiter);
      }
      const fa = wls(yi, a, x);
      const trP = fa.trP();
      se = Math.sqrt(
        (2 * fa.sumP2(vi, vi) + 4 * tau2 * fa.sumP2(null, vi) + 2 * tau2 * tau2 * fa.sumP2(null, null)) / (trP * trP),
      );
      break;
    }
    case "PM":
    case "PMM": {
      const target = method === "PMM" ? qchisq(0.5, df) : df;
      if (fit0().rss < target) {
        tau2 = 0;
      } else {
        const tau2Max = Math.max(100, 10 * mad(Array.from(yi)) ** 2);
        if (qGen(yi, vi, tau2Max, x) > target) {
          throw new MetaInputError(
            "The Paule–Mandel estimate of the between-study variance is out of range; choose another estimator.",
          );
        }
        tau2 = uniroot((t) => qGen(yi, vi, t, x) - target, 0, tau2Max, tol, maxiter);
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
        let adj: number;
        if (!x) {
          adj = interceptStep(yi, vi, tau2, method, k);
        } else {
          const w = weights(vi, tau2);
          const fit = wls(yi, w, x);
          if (method === "EB") {
            adj = ((fit.rss * k) / df - k) / fit.sw;
          } else {
            // yᵀPPy = Σ w² e²
            let yPPy = 0;
            let sw2 = 0;
            for (let i = 0; i < k; i++) {
              yPPy += w[i] * w[i] * fit.e[i] * fit.e[i];
              sw2 += w[i] * w[i];
            }
            if (method === "ML") adj = (yPPy - fit.sw) / sw2;
            else adj = (yPPy - fit.trP()) / fit.sumP2(null, null);
          }
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
      // metafor's check for a local maximum (ll0check): only matters when τ² > threshold
      if (method !== "EB" && tau2 > threshold) {
        const reml = method === "REML";
        const ll0 = logLik(yi, vi, 0, reml, x);
        const ll = logLik(yi, vi, tau2, reml, x);
        if (ll0 - ll > DEFAULT_TOL) tau2 = 0;
      }
      tau2 = Math.max(0, tau2);
      const w = weights(vi, tau2);
      if (method === "ML") se = Math.sqrt(2 / sumSquares(w));
      else if (method === "REML") {
        let trPP: number;
        if (!x) {
          let sw = 0;
          let sw2 = 0;
          let sw3 = 0;
          for (let i = 0; i < k; i++) {
            sw += w[i];
            sw2 += w[i] * w[i];
            sw3 += w[i] * w[i] * w[i];
          }
          trPP = sw2 - (2 * sw3) / sw + (sw2 * sw2) / (sw * sw);
        } else {
          trPP = wls(yi, w, x).sumP2(null, null);
        }
        se = Math.sqrt(2 / trPP);
      } else se = pmSe(tau2);
      break;
    }
    default:
      throw new MetaInputError(`Unknown estimator of the between-study variance "${String(method)}".`);
  }
  return { tau2, se, iterations };

  function heRaw(): number {
    if (!x) {
      let sumV = 0;
      for (let i = 0; i < k; i++) sumV += vi[i];
      return (ssUnweighted - (sumV * (k - 1)) / k) / df;
    }
    const ols = wls(yi, new Float64Array(k).fill(1), x);
    return (ols.rss - trPV(ols)) / df;
  }
  function trPV(ols: WlsFit): number {
    // tr(P₀V) with P₀ = I − X(XᵀX)⁻¹Xᵀ: Σ v_i (1 − h_ii)
    return ols.trPD(vi);
  }
  function heSe(t2: number): number {
    const ones = new Float64Array(k).fill(1);
    const ols = wls(yi, ones, x);
    const tpv = trPV(ols);
    const tpvpv = ols.sumP2(vi, vi);
    return Math.sqrt((2 * tpvpv + 4 * t2 * tpv + 2 * t2 * t2 * df) / (df * df));
  }
  function pmSe(t2: number): number {
    let sw = 0;
    for (let i = 0; i < k; i++) sw += 1 / (vi[i] + t2);
    return Math.sqrt((2 * k * k) / df / (sw * sw));
  }
}

/**
 * One Fisher-scoring (ML/REML) or EB step for the intercept-only model in two passes without
 * allocation: μ̂, then Σw, Σw², Σw³, Σw(y−μ̂)², Σw²(y−μ̂)² with w = 1/(v + τ²).
 */
function interceptStep(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  tau2: number,
  method: "ML" | "REML" | "EB",
  k: number,
): number {
  let sw = 0;
  let swy = 0;
  for (let i = 0; i < k; i++) {
    const w = 1 / (vi[i] + tau2);
    sw += w;
    swy += w * yi[i];
  }
  const mu = swy / sw;
  let sw2 = 0;
  let sw3 = 0;
  let rss = 0;
  let yPPy = 0;
  for (let i = 0; i < k; i++) {
    const w = 1 / (vi[i] + tau2);
    const r = yi[i] - mu;
    const w2 = w * w;
    sw2 += w2;
    sw3 += w2 * w;
    rss += w * r * r;
    yPPy += w2 * r * r;
  }
  if (method === "EB") return ((rss * k) / (k - 1) - k) / sw;
  if (method === "ML") return (yPPy - sw) / sw2;
  const trP = sw - sw2 / sw;
  const trPP = sw2 - (2 * sw3) / sw + (sw2 * sw2) / (sw * sw);
  return (yPPy - trP) / trPP;
}

function sumSquares(w: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < w.length; i++) s += w[i] * w[i];
  return s;
}

function genqWeights(w: ArrayLike<number> | undefined, k: number): ArrayLike<number> {
  if (!w || w.length !== k || Array.from(w).some((x) => !(x > 0) || !Number.isFinite(x))) {
    throw new MetaInputError("The generalised Q estimator needs one positive weight per study.");
  }
  return w;
}

/**
 * P_A = A − A X (XᵀAX)⁻¹ XᵀA for weights a (A = diag(a)) and the design X = [1, moderators], as a
 * k×k array of rows (metafor rma.uni / confint.rma.uni, method GENQ/GENQM).
 */
export function genqProjection(a: ArrayLike<number>, x: Moderators = null): number[][] {
  const k = a.length;
  const cols = moderatorColumns(x);
  const fit = wls(new Float64Array(k), a, cols.length > 0 ? cols : null);
  const p = fit.p;
  const row = (i: number) => [1, ...cols.map((c) => c[i])];
  const xs = Array.from({ length: k }, (_, i) => row(i));
  const ax = xs.map((xi) => {
    const out = new Array<number>(p).fill(0);
    for (let r = 0; r < p; r++) for (let c = 0; c < p; c++) out[r] += fit.A[r * p + c] * xi[c];
    return out;
  });
  const P: number[][] = [];
  for (let i = 0; i < k; i++) {
    const ri = new Array<number>(k);
    for (let j = 0; j < k; j++) {
      let q = 0;
      for (let r = 0; r < p; r++) q += xs[i][r] * ax[j][r];
      ri[j] = (i === j ? a[i] : 0) - a[i] * a[j] * q;
    }
    P.push(ri);
  }
  return P;
}

/**
 * P(Q_A > Q) at τ² under the random-effects model: Q_A = yᵀP_A y is distributed as Σ λ_j χ²₁ with
 * λ the k − p largest eigenvalues of S P_A S, S = diag(√(v + τ²)) (Jackson 2013; metafor .GENQ.func,
 * which calls CompQuadForm::farebrother; here Imhof's method, see quadform.ts). With the weights a of an
 * intercept-only model (p = 1) the eigenvalues come from the O(k²) secular equation instead of Jacobi.
 */
export function genqUpperTail(
  tau2: number,
  P: number[][],
  vi: ArrayLike<number>,
  Q: number,
  p: number,
  weightsA?: ArrayLike<number>,
): number {
  const k = vi.length;
  if (p === 1 && weightsA) {
    // intercept only: S P_A S = diag(a(v + τ²)) − s sᵀ/Σa with s_i = a_i √(v_i + τ²) (a_i = P_ii + a_i²/Σa)
    const a = Array.from(weightsA);
    let sa = 0;
    for (const x of a) sa += x;
    const d = a.map((x, i) => x * (vi[i] + tau2));
    const z2 = a.map((x, i) => x * x * (vi[i] + tau2));
    return pQuadForm(
      Q,
      rankOneDowndateEigenvalues(d, z2, sa).map((l) => Math.max(0, l)),
    );
  }
  const s = Array.from({ length: k }, (_, i) => Math.sqrt(vi[i] + tau2));
  const sps = P.map((row, i) => row.map((v, j) => s[i] * v * s[j]));
  const lambda = symmetricEigenvalues(sps).slice(0, k - p);
  return pQuadForm(
    Q,
    lambda.map((l) => Math.max(0, l)),
  );
}

/**
 * Generalised Q-profile confidence interval for τ² (Jackson 2013; metafor confint.rma.uni(type = "GENQ"),
 * the default for GENQ/GENQM): the τ² values at which the observed Q_A = yᵀP_A y is the upper (lower
 * bound) and lower (upper bound) α/2 quantile of its distribution, found with R's uniroot on
 * [0, max(100, 10·τ̂²)] at metafor's tolerance; a bound is 0 when Q_A is below the quantile at τ² = 0,
 * and the upper end of the search range when the root lies beyond it. weights: a_i > 0 per study.
 */
export function tau2GenQConfidenceInterval(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  weightsA: ArrayLike<number>,
  tau2: number,
  level = 95,
  x: Moderators = null,
  tol = DEFAULT_TOL,
): [number, number] {
  const k = yi.length;
  const a = genqWeights(weightsA, k);
  const cols = moderatorColumns(x);
  const xm = cols.length > 0 ? cols : null;
  const p = cols.length + 1;
  const P = genqProjection(a, xm);
  const Q = wls(yi, a, xm).rss;
  const half = (1 - level / 100) / 2;
  const tau2Min = Math.min(0, tau2);
  const tau2Max = Math.max(100, 10 * tau2, 10 * tau2Min);
  const tail = (t: number) => genqUpperTail(t, P, vi, Q, p, a);
  const atMax = tail(tau2Max);
  const atMin = tail(tau2Min);
  let lb = tau2Min;
  let ub = tau2Min;
  if (!(atMin > 1 - half)) {
    ub = atMax < 1 - half ? tau2Max : uniroot((t) => 1 - tail(t) - half, tau2Min, tau2Max, tol, 1000);
  }
  if (atMax < half) {
    lb = tau2Max;
    ub = tau2Max;
  } else if (!(atMin > half)) {
    lb = uniroot((t) => tail(t) - half, tau2Min, tau2Max, tol, 1000);
  }
  return [lb, ub];
}

/**
 * GENQ/GENQM weights a_i from the sampling variances by `scheme` (see GenqWeights): 1/v
 * ("inverse-variance", DerSimonian & Kacker 2007), 1/√v ("inverse-se", Jackson 2013) or 1 ("equal").
 */
export function genqWeightsFor(scheme: GenqWeights, vi: ArrayLike<number>): Float64Array {
  if (scheme === "equal") return Float64Array.from(vi, () => 1);
  if (scheme === "inverse-se") return Float64Array.from(vi, (v) => 1 / Math.sqrt(v));
  if (scheme === "inverse-variance") return Float64Array.from(vi, (v) => 1 / v);
  throw new MetaInputError(`Unknown generalised Q weights "${String(scheme)}".`);
}

/**
 * The control for estimateTau2 with the GENQ/GENQM weights filled in when none are given: by
 * control.weightScheme, default a = 1/v (the product's convention; the DerSimonian–Laird weights).
 * Other methods: unchanged.
 */
export function withDefaultGenqWeights(
  method: string,
  vi: ArrayLike<number>,
  control: Tau2Control | undefined,
): Tau2Control | undefined {
  if ((method !== "GENQ" && method !== "GENQM") || control?.weights) return control;
  return { ...control, weights: genqWeightsFor(control?.weightScheme ?? "inverse-variance", vi) };
}
