/**
 * Weighted least squares for the meta-analytic models with an intercept and at most one
 * moderator (p = 1 or 2), with the traces of P = W − W X (XᵀWX)⁻¹ XᵀW that metafor's rma.uni
 * needs, computed in O(k p²) without forming the k×k matrix.
 */

export interface WlsFit {
  /** Number of coefficients (1 = intercept only, 2 = intercept + moderator). */
  p: number;
  /** Coefficients [intercept, slope?]. */
  beta: number[];
  /** (XᵀWX)⁻¹ as a row-major p×p array. */
  A: number[];
  /** Σ w e² = yᵀPy. */
  rss: number;
  /** Σ w. */
  sw: number;
  /** log det(XᵀWX). */
  logDetXWX: number;
  /** Residuals y − Xβ. */
  e: Float64Array;
  /** Σ_ij P_ij² a_i b_j (a or b null = vector of ones). */
  sumP2(a: ArrayLike<number> | null, b: ArrayLike<number> | null): number;
  /** tr(P). */
  trP(): number;
  /** tr(P D) for the diagonal matrix D = diag(d): Σ d_i (w_i − w_i² h_ii). */
  trPD(d: ArrayLike<number>): number;
}

function cross(w: ArrayLike<number>, x: ArrayLike<number> | null, c: ArrayLike<number> | null, pow = 1): number[] {
  // M = Σ c_i w_i^pow x_i x_iᵀ with x_i = (1, x_i); no allocation.
  const k = w.length;
  let s00 = 0;
  let s01 = 0;
  let s11 = 0;
  for (let i = 0; i < k; i++) {
    let wi = pow === 1 ? w[i] : w[i] * w[i];
    if (c) wi *= c[i];
    s00 += wi;
    if (x) {
      s01 += wi * x[i];
      s11 += wi * x[i] * x[i];
    }
  }
  return x ? [s00, s01, s01, s11] : [s00];
}

function inverse(m: number[]): { inv: number[]; logDet: number } {
  if (m.length === 1) return { inv: [1 / m[0]], logDet: Math.log(m[0]) };
  const det = m[0] * m[3] - m[1] * m[2];
  return { inv: [m[3] / det, -m[1] / det, -m[2] / det, m[0] / det], logDet: Math.log(det) };
}

function trProd(a: number[], b: number[]): number {
  if (a.length === 1) return a[0] * b[0];
  // tr(A B) for 2×2 row-major
  return a[0] * b[0] + a[1] * b[2] + a[2] * b[1] + a[3] * b[3];
}

function mul(a: number[], b: number[]): number[] {
  if (a.length === 1) return [a[0] * b[0]];
  return [
    a[0] * b[0] + a[1] * b[2],
    a[0] * b[1] + a[1] * b[3],
    a[2] * b[0] + a[3] * b[2],
    a[2] * b[1] + a[3] * b[3],
  ];
}

/** Fit y on (1, x) with weights w (x = null: intercept only). */
export function wls(y: ArrayLike<number>, w: ArrayLike<number>, x: ArrayLike<number> | null): WlsFit {
  const k = y.length;
  const p = x ? 2 : 1;
  const M = cross(w, x, null);
  const { inv: A, logDet } = inverse(M);
  let r0 = 0;
  let r1 = 0;
  for (let i = 0; i < k; i++) {
    r0 += w[i] * y[i];
    if (x) r1 += w[i] * x[i] * y[i];
  }
  const beta = x ? [A[0] * r0 + A[1] * r1, A[2] * r0 + A[3] * r1] : [A[0] * r0];
  const e = new Float64Array(k);
  let rss = 0;
  let sw = 0;
  for (let i = 0; i < k; i++) {
    e[i] = y[i] - beta[0] - (x ? beta[1] * x[i] : 0);
    rss += w[i] * e[i] * e[i];
    sw += w[i];
  }
  const hii = (i: number): number => (x ? A[0] + 2 * A[1] * x[i] + A[3] * x[i] * x[i] : A[0]);
  return {
    p,
    beta,
    A,
    rss,
    sw,
    logDetXWX: logDet,
    e,
    trP() {
      // Σw − tr(A XᵀW²X)
      return sw - trProd(A, cross(w, x, null, 2));
    },
    trPD(d) {
      let s = 0;
      for (let i = 0; i < k; i++) s += d[i] * (w[i] - w[i] * w[i] * hii(i));
      return s;
    },
    sumP2(a, b) {
      let diag = 0;
      for (let i = 0; i < k; i++) {
        const ai = a ? a[i] : 1;
        const bi = b ? b[i] : 1;
        const wi = w[i];
        diag += ai * bi * (wi * wi - 2 * wi * wi * wi * hii(i));
      }
      const Ma = cross(w, x, a, 2);
      const Mb = cross(w, x, b, 2);
      return diag + trProd(mul(A, Ma), mul(A, Mb));
    },
  };
}
