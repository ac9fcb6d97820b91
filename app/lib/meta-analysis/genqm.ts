/**
 * The distribution of a positively weighted sum of independent χ²₁ variables, and the median-
 * unbiased generalised Q estimator of τ² (metafor rma(method = "GENQM", weights); Jackson 2013,
 * DerSimonian & Kacker 2007). metafor evaluates the distribution with CompQuadForm's farebrother();
 * here Ruben's (1962) series, the expansion Farebrother's (1984) algorithm AS 204 sums:
 * P(Σλⱼχ²₁ ≤ q) = Σₖ aₖ·P(χ²_{m+2k} ≤ q/β) with β < min λ, a₀ = Π(β/λⱼ)^{1/2},
 * aₖ = (1/k)Σ_{r<k} g_{k−r}·a_r, g_s = ½Σⱼ(1 − β/λⱼ)^s. Pure.
 */
import { pchisq, uniroot } from "./distributions.ts";
import { MetaInputError } from "./errors.ts";
import { invertSym } from "./linear.ts";

/**
 * P(Σ λⱼ χ²₁ > q) for λⱼ > 0 (upper tail, as farebrother()'s Qq), to about 1e-12.
 * @throws MetaInputError for an empty or non-positive λ.
 */
export function weightedChisqUpper(q: number, lambda: readonly number[]): number {
  if (lambda.length === 0 || lambda.some((l) => !(l > 0) || !Number.isFinite(l))) throw new MetaInputError("The weights of the χ² sum must be positive.");
  if (q <= 0) return 1;
  const m = lambda.length;
  const beta = (29 / 32) * Math.min(...lambda);
  const ratios = lambda.map((l) => 1 - beta / l);
  let logA0 = 0;
  for (const l of lambda) logA0 += 0.5 * Math.log(beta / l);
  const a: number[] = [Math.exp(logA0)];
  const g: number[] = [0];
  const x = q / beta;
  // P(χ²_n ≤ x) for n = m, m + 2, …: F_{n+2} = F_n − x^{n/2} e^{−x/2} / Γ(n/2 + 1) / 2^{n/2}.
  let cdf = pchisq(x, m, true);
  let logTerm = (m / 2) * Math.log(x / 2) - x / 2 - lgammaHalf(m + 2);
  let sum = a[0]! * cdf;
  let mass = a[0]!;
  const powers = ratios.slice();
  for (let k = 1; k < 100000 && 1 - mass > 1e-14; k++) {
    let gk = 0;
    for (let j = 0; j < m; j++) {
      gk += powers[j]!;
      powers[j]! *= ratios[j]!;
    }
    g.push(gk / 2);
    let ak = 0;
    for (let r = 0; r < k; r++) ak += g[k - r]! * a[r]!;
    ak /= k;
    a.push(ak);
    cdf -= Math.exp(logTerm);
    const n = m + 2 * k;
    logTerm += Math.log(x / 2) - Math.log(n / 2);
    sum += ak * Math.max(0, cdf);
    mass += ak;
  }
  return Math.min(1, Math.max(0, 1 - sum));
}

/** log Γ(n/2) for an integer n ≥ 1 (exact recursion from Γ(1/2) = √π, Γ(1) = 1). */
function lgammaHalf(n: number): number {
  let v = n % 2 === 0 ? 0 : 0.5 * Math.log(Math.PI);
  for (let h = n % 2 === 0 ? 1 : 0.5; h < n / 2; h += 1) v += Math.log(h);
  return v;
}

/** Eigenvalues of a symmetric k×k matrix (row-major), by cyclic Jacobi rotations; descending. */
export function symmetricEigenvalues(matrix: ArrayLike<number>, k: number): number[] {
  const a = Float64Array.from(matrix);
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) off += a[i * k + j]! ** 2;
    if (off < 1e-30) break;
    for (let p = 0; p < k; p++) {
      for (let q = p + 1; q < k; q++) {
        const apq = a[p * k + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * k + q]! - a[p * k + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let r = 0; r < k; r++) {
          const arp = a[r * k + p]!;
          const arq = a[r * k + q]!;
          a[r * k + p] = c * arp - s * arq;
          a[r * k + q] = s * arp + c * arq;
        }
        for (let r = 0; r < k; r++) {
          const apr = a[p * k + r]!;
          const aqr = a[q * k + r]!;
          a[p * k + r] = c * apr - s * aqr;
          a[q * k + r] = s * apr + c * aqr;
        }
      }
    }
  }
  return Array.from({ length: k }, (_, i) => a[i * k + i]!).sort((x, y) => y - x);
}

/**
 * The generalised Q statistic Q_a = yᵀP_a y (weights a, design [1, mods]; P_a = A − AX(XᵀAX)⁻¹XᵀA)
 * and its upper tail P(Q_a > q_obs | τ²): Q_a ~ Σ λⱼχ²₁ with λ the k − p largest eigenvalues of
 * (V + τ²I)^{1/2} P_a (V + τ²I)^{1/2} (metafor's .GENQ.func).
 */
export function generalisedQ(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  a: ArrayLike<number>,
  cols: readonly ArrayLike<number>[],
): { Q: number; upperAt: (tau2: number) => number } {
  const k = yi.length;
  const p = cols.length + 1;
  const X = (i: number, j: number) => (j === 0 ? 1 : cols[j - 1]![i]!);
  const xtax: number[] = new Array<number>(p * p).fill(0);
  for (let r = 0; r < p; r++)
    for (let c = 0; c < p; c++) {
      let s = 0;
      for (let i = 0; i < k; i++) s += X(i, r) * a[i]! * X(i, c);
      xtax[r * p + c] = s;
    }
  const { inv } = invertSym(xtax, p, true);
  const P = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      let s = 0;
      for (let r = 0; r < p; r++) for (let c = 0; c < p; c++) s += X(i, r) * inv[r * p + c]! * X(j, c);
      P[i * k + j] = (i === j ? a[i]! : 0) - a[i]! * s * a[j]!;
    }
  }
  let Q = 0;
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) Q += yi[i]! * P[i * k + j]! * yi[j]!;
  const upperAt = (t2: number) => {
    const S = Array.from({ length: k }, (_, i) => Math.sqrt(vi[i]! + t2));
    const M = new Float64Array(k * k);
    for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) M[i * k + j] = S[i]! * P[i * k + j]! * S[j]!;
    const lambda = symmetricEigenvalues(M, k)
      .slice(0, k - p)
      .map((l) => Math.max(l, 1e-300));
    return weightedChisqUpper(Q, lambda);
  };
  return { Q, upperAt };
}

/**
 * metafor's GENQM: the τ² at which the observed generalised Q is the median of its distribution,
 * P(Q_a ≤ q_obs | τ²) = 0.5; as metafor, τ² = 0 when P(Q_a > q_obs | τ² = 0) exceeds 0.5. Root by
 * R's uniroot on [0, tau2Max] with metafor's tolerance.
 * @throws MetaInputError when tau2Max is too low or the weights are invalid.
 */
export function genqmTau2(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  a: ArrayLike<number>,
  cols: readonly ArrayLike<number>[],
  opts: { tau2Max: number; tol: number; maxiter: number },
): number {
  const { upperAt } = generalisedQ(yi, vi, a, cols);
  if (upperAt(0) > 0.5) return 0;
  if (upperAt(opts.tau2Max) < 0.5) throw new MetaInputError("The GENQM estimate of the between-study variance is out of range; choose another estimator.");
  return uniroot((t) => 1 - upperAt(t) - 0.5, 0, opts.tau2Max, opts.tol, opts.maxiter);
}

/**
 * The generalised Q confidence interval of τ² (metafor confint(type = "GENQ") for GENQ/GENQM
 * fits; Jackson 2013): lower bound where P(Q_a > q_obs | τ²) = α/2, upper bound where
 * P(Q_a ≤ q_obs | τ²) = α/2, searched on [0, max(100, 10·τ̂²)] (bounds clamped there, as metafor).
 */
export function genqTau2CI(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  a: ArrayLike<number>,
  cols: readonly ArrayLike<number>[],
  opts: { tau2: number; level?: number; tol?: number; maxiter?: number },
): [number, number] {
  const alpha = 1 - (opts.level ?? 95) / 100;
  const tol = opts.tol ?? Math.pow(2.220446049250313e-16, 0.25);
  const maxiter = opts.maxiter ?? 1000;
  const lo = 0;
  const hi = Math.max(100, 10 * opts.tau2);
  const { upperAt } = generalisedQ(yi, vi, a, cols);
  const atMin = upperAt(lo);
  const atMax = upperAt(hi);
  let lb: number;
  let ub: number;
  if (atMin > 1 - alpha / 2) ub = lo;
  else if (atMax < 1 - alpha / 2) ub = hi;
  else ub = uniroot((t) => 1 - upperAt(t) - alpha / 2, lo, hi, tol, maxiter);
  if (atMax < alpha / 2) {
    lb = hi;
    ub = hi;
  } else if (atMin > alpha / 2) lb = lo;
  else lb = uniroot((t) => upperAt(t) - alpha / 2, lo, hi, tol, maxiter);
  if (atMin > 1 - alpha / 2) lb = lo;
  return [lb, ub];
}
