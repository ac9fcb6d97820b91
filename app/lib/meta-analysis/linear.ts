/**
 * Weighted least squares for the meta-analytic models: an intercept plus any number of moderator
 * columns (p = 1 + m coefficients), with the traces of P = W − W X (XᵀWX)⁻¹ XᵀW that metafor's
 * rma.uni needs, computed in O(k p²) without forming the k×k matrix.
 */
import { MetaInputError } from "./errors.ts";

/**
 * Moderators of a model: null (intercept only), one moderator column (k values), or a list of
 * moderator columns (each k values). The intercept is always added in front.
 */
export type Moderators = ArrayLike<number> | ArrayLike<number>[] | null;

/** The moderator columns of `x` as a list (empty for an intercept-only model). */
export function moderatorColumns(x: Moderators): ArrayLike<number>[] {
  if (!x) return [];
  if (x.length > 0 && typeof (x as ArrayLike<unknown>)[0] !== "number") return x as ArrayLike<number>[];
  if (x.length === 0) return [];
  return [x as ArrayLike<number>];
}

export interface WlsFit {
  /** Number of coefficients (1 = intercept only, 1 + m with m moderators). */
  p: number;
  /** Coefficients [intercept, moderator 1, …]. */
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
  /** Leverage-type quadratic form x_iᵀ (XᵀWX)⁻¹ x_i (the hat value is w_i times it). */
  h(i: number): number;
  /** Σ_ij P_ij² a_i b_j (a or b null = vector of ones). */
  sumP2(a: ArrayLike<number> | null, b: ArrayLike<number> | null): number;
  /** tr(P). */
  trP(): number;
  /** tr(P D) for the diagonal matrix D = diag(d): Σ d_i (w_i − w_i² h_ii). */
  trPD(d: ArrayLike<number>): number;
}

/** M = Σ c_i w_i^pow x_i x_iᵀ with x_i = (1, cols[0][i], …), row-major p×p (one tight loop per entry). */
export function cross(
  w: ArrayLike<number>,
  cols: ArrayLike<number>[],
  c: ArrayLike<number> | null,
  pow: 1 | 2,
): number[] {
  const k = w.length;
  const p = cols.length + 1;
  const wc = new Float64Array(k);
  let s0 = 0;
  for (let i = 0; i < k; i++) {
    let wi = pow === 1 ? w[i] : w[i] * w[i];
    if (c) wi *= c[i];
    wc[i] = wi;
    s0 += wi;
  }
  if (p === 1) return [s0];
  const M = new Array<number>(p * p).fill(0);
  M[0] = s0;
  for (let r = 1; r < p; r++) {
    const xr = cols[r - 1];
    let s = 0;
    for (let i = 0; i < k; i++) s += wc[i] * xr[i];
    M[r] = s;
    M[r * p] = s;
    for (let t = r; t < p; t++) {
      const xt = cols[t - 1];
      let u = 0;
      for (let i = 0; i < k; i++) u += wc[i] * xr[i] * xt[i];
      M[r * p + t] = u;
      M[t * p + r] = u;
    }
  }
  return M;
}

/**
 * Inverse and log-determinant of a symmetric positive-definite p×p matrix (closed form for p ≤ 2,
 * else Gauss–Jordan with partial pivoting). With `strict`, or for p > 2, throws MetaInputError when
 * the matrix is singular (redundant moderators); otherwise a singular 1×1 or 2×2 matrix gives
 * non-finite entries, which the degenerate-data paths (Egger's test on equal variances) rely on.
 */
export function invertSym(m: number[], p: number, strict = false): { inv: number[]; logDet: number } {
  if (p === 1) {
    if (strict && !(m[0] > 0)) throw new MetaInputError("The model matrix is singular.");
    return { inv: [1 / m[0]], logDet: Math.log(m[0]) };
  }
  if (p === 2 && !strict) {
    const det = m[0] * m[3] - m[1] * m[2];
    return { inv: [m[3] / det, -m[1] / det, -m[2] / det, m[0] / det], logDet: Math.log(det) };
  }
  const a = m.slice();
  const inv = new Array<number>(p * p).fill(0);
  for (let i = 0; i < p; i++) inv[i * p + i] = 1;
  let logDet = 0;
  let scale = 0;
  for (let i = 0; i < p; i++) scale = Math.max(scale, Math.abs(a[i * p + i]));
  for (let col = 0; col < p; col++) {
    let piv = col;
    for (let r = col + 1; r < p; r++) if (Math.abs(a[r * p + col]) > Math.abs(a[piv * p + col])) piv = r;
    const pv = a[piv * p + col];
    if (!(Math.abs(pv) > 1e-12 * scale)) {
      throw new MetaInputError("The moderators are redundant (collinear): remove a moderator or merge subgroups.");
    }
    if (piv !== col) {
      for (let s = 0; s < p; s++) {
        [a[col * p + s], a[piv * p + s]] = [a[piv * p + s], a[col * p + s]];
        [inv[col * p + s], inv[piv * p + s]] = [inv[piv * p + s], inv[col * p + s]];
      }
    }
    logDet += Math.log(Math.abs(pv));
    for (let s = 0; s < p; s++) {
      a[col * p + s] /= pv;
      inv[col * p + s] /= pv;
    }
    for (let r = 0; r < p; r++) {
      if (r === col) continue;
      const f = a[r * p + col];
      if (f === 0) continue;
      for (let s = 0; s < p; s++) {
        a[r * p + s] -= f * a[col * p + s];
        inv[r * p + s] -= f * inv[col * p + s];
      }
    }
  }
  return { inv, logDet };
}

/** tr(A B) for p×p row-major matrices. */
function trProd(a: number[], b: number[], p: number): number {
  let s = 0;
  for (let r = 0; r < p; r++) for (let c = 0; c < p; c++) s += a[r * p + c] * b[c * p + r];
  return s;
}

function mul(a: number[], b: number[], p: number): number[] {
  const out = new Array<number>(p * p).fill(0);
  for (let r = 0; r < p; r++)
    for (let t = 0; t < p; t++) {
      const art = a[r * p + t];
      if (art === 0) continue;
      for (let c = 0; c < p; c++) out[r * p + c] += art * b[t * p + c];
    }
  return out;
}

/**
 * Throws MetaInputError when the design (1, moderators) is rank-deficient, i.e. a moderator is
 * constant or a linear combination of others (metafor drops such columns with a warning; the
 * engine asks the user to choose instead).
 */
export function checkDesignRank(x: Moderators, k: number): void {
  const cols = moderatorColumns(x);
  if (cols.length === 0) return;
  // standardise columns so the pivot threshold is scale-free
  const scaled = cols.map((c) => {
    let mean = 0;
    for (let i = 0; i < k; i++) mean += c[i];
    mean /= k;
    let ss = 0;
    for (let i = 0; i < k; i++) ss += (c[i] - mean) ** 2;
    const sd = Math.sqrt(ss / k);
    return Float64Array.from({ length: k }, (_, i) => (sd > 0 ? (c[i] - mean) / sd : 0));
  });
  const M = cross(new Float64Array(k).fill(1), scaled, null, 1);
  const p = cols.length + 1;
  for (let j = 1; j < p; j++) {
    if (!(M[j * p + j] > 0)) throw new MetaInputError(`Moderator ${j} has the same value in every study: remove it.`);
  }
  invertSym(M, p, true);
}

/** Fit y on (1, moderators) with weights w (x = null: intercept only). */
export function wls(y: ArrayLike<number>, w: ArrayLike<number>, x: Moderators): WlsFit {
  const cols = moderatorColumns(x);
  const k = y.length;
  const p = cols.length + 1;
  const M = cross(w, cols, null, 1);
  const { inv: A, logDet } = invertSym(M, p);
  const r = new Array<number>(p).fill(0);
  for (let i = 0; i < k; i++) {
    const wy = w[i] * y[i];
    r[0] += wy;
    for (let j = 1; j < p; j++) r[j] += wy * cols[j - 1][i];
  }
  const beta = new Array<number>(p).fill(0);
  for (let a = 0; a < p; a++) for (let b = 0; b < p; b++) beta[a] += A[a * p + b] * r[b];
  const e = new Float64Array(k);
  let rss = 0;
  let sw = 0;
  for (let i = 0; i < k; i++) {
    let fitted = beta[0];
    for (let j = 1; j < p; j++) fitted += beta[j] * cols[j - 1][i];
    e[i] = y[i] - fitted;
    rss += w[i] * e[i] * e[i];
    sw += w[i];
  }
  const xi = new Float64Array(p);
  const h = (i: number): number => {
    if (p === 1) return A[0];
    xi[0] = 1;
    for (let j = 1; j < p; j++) xi[j] = cols[j - 1][i];
    let s = 0;
    for (let a = 0; a < p; a++) {
      let t = 0;
      for (let b = 0; b < p; b++) t += A[a * p + b] * xi[b];
      s += xi[a] * t;
    }
    return s;
  };
  let w2xCache: number[] | null = null;
  /** XᵀW²X, computed once per fit. */
  const w2x = (): number[] => (w2xCache ??= cross(w, cols, null, 2));
  return {
    p,
    beta,
    A,
    rss,
    sw,
    logDetXWX: logDet,
    e,
    h,
    trP() {
      // Σw − tr(A XᵀW²X)
      return sw - trProd(A, w2x(), p);
    },
    trPD(d) {
      let s = 0;
      for (let i = 0; i < k; i++) s += d[i] * (w[i] - w[i] * w[i] * h(i));
      return s;
    },
    sumP2(a, b) {
      let diag = 0;
      for (let i = 0; i < k; i++) {
        const ai = a ? a[i] : 1;
        const bi = b ? b[i] : 1;
        const wi = w[i];
        diag += ai * bi * (wi * wi - 2 * wi * wi * wi * h(i));
      }
      const Ma = a ? cross(w, cols, a, 2) : w2x();
      const AMa = mul(A, Ma, p);
      const AMb = b === a ? AMa : mul(A, b ? cross(w, cols, b, 2) : w2x(), p);
      return diag + trProd(AMa, AMb, p);
    },
  };
}
