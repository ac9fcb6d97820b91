/**
 * Distribution of a positively weighted sum of independent χ²₁ variables, X = Σ λ_j χ²₁ (λ_j > 0),
 * the null distribution of the generalised Q statistic y'P_A y (Jackson 2013; metafor's GENQM
 * estimator and its generalised Q-profile confidence interval, where metafor calls CompQuadForm).
 *
 * Method: Imhof (1961), "Computing the distribution of quadratic forms in normal variables",
 * Biometrika 48:419–426, eq. 3.2 with h_j = 1, δ_j = 0:
 *   P(X > q) = ½ + (1/π) ∫₀^∞ sin θ(u) / (u ρ(u)) du,
 *   θ(u) = ½ Σ atan(λ_j u) − ½ q u,   ρ(u) = Π (1 + λ_j² u²)^{1/4}.
 * The integral is evaluated on consecutive intervals of length 2π/q (half the period of the
 * asymptotic oscillation −qu/2) with adaptive Gauss–Kronrod (7/15) quadrature; the partial sums of
 * the slowly decaying alternating tail are accelerated with Wynn's ε-algorithm (Wynn 1956), as
 * QUADPACK's QAWF does for Fourier integrals. Absolute accuracy is about 1e-12.
 */

const XGK = [
  0.9914553711208126, 0.9491079123427585, 0.8648644233597691, 0.7415311855993945, 0.5860872354676911,
  0.4058451513773972, 0.20778495500789848, 0,
];
const WGK = [
  0.022935322010529224, 0.06309209262997856, 0.10479001032225019, 0.14065325971552592, 0.1690047266392679,
  0.19035057806478542, 0.20443294007529889, 0.20948214108472782,
];
const WG = [0.1294849661688697, 0.27970539148927664, 0.3818300505051189, 0.4179591836734694];

/** One 15-point Gauss–Kronrod rule on [a, b]: the Kronrod value and |Kronrod − Gauss| as error. */
function gk15(f: (u: number) => number, a: number, b: number): { value: number; error: number } {
  const c = 0.5 * (a + b);
  const h = 0.5 * (b - a);
  const fc = f(c);
  let resK = fc * WGK[7];
  let resG = fc * WG[3];
  for (let j = 0; j < 7; j++) {
    const x = h * XGK[j];
    const s = f(c - x) + f(c + x);
    resK += WGK[j] * s;
    if (j % 2 === 1) resG += WG[(j - 1) / 2] * s;
  }
  return { value: resK * h, error: Math.abs((resK - resG) * h) };
}

/**
 * Globally adaptive Gauss–Kronrod on [a, b] (QUADPACK QAG strategy): bisect the interval with the
 * largest error estimate until the total error is below tol or 500 intervals are used.
 */
function integrate(f: (u: number) => number, a: number, b: number, tol: number): number {
  const parts: { a: number; b: number; value: number; error: number }[] = [{ a, b, ...gk15(f, a, b) }];
  let value = parts[0].value;
  let error = parts[0].error;
  while (error > tol && parts.length < 500) {
    let worst = 0;
    for (let i = 1; i < parts.length; i++) if (parts[i].error > parts[worst].error) worst = i;
    const w = parts[worst];
    const mid = 0.5 * (w.a + w.b);
    const left = { a: w.a, b: mid, ...gk15(f, w.a, mid) };
    const right = { a: mid, b: w.b, ...gk15(f, mid, w.b) };
    parts[worst] = left;
    parts.push(right);
    value += left.value + right.value - w.value;
    error += left.error + right.error - w.error;
  }
  return value;
}

/** Wynn's ε-algorithm on partial sums s[0..n−1]: the last even-column estimate. */
function wynnEpsilon(s: number[]): number {
  const n = s.length;
  let prev = new Array<number>(n + 1).fill(0);
  let cur = s.slice();
  let best = s[n - 1];
  for (let col = 1; col < n; col++) {
    const next: number[] = [];
    for (let i = 0; i + 1 < cur.length; i++) {
      const d = cur[i + 1] - cur[i];
      if (d === 0) return cur[i + 1];
      next.push(prev[i + 1] + 1 / d);
    }
    prev = cur;
    cur = next;
    if (col % 2 === 0 && cur.length > 0) best = cur[cur.length - 1];
  }
  return best;
}

/**
 * P(Σ λ_j χ²₁ > q) (lowerTail = false, the default, = CompQuadForm's `Qq`) or P(Σ λ_j χ²₁ ≤ q),
 * for weights λ_j > 0 (zero weights are dropped) and q ≥ 0, by Imhof's method (see the module
 * docstring). Throws RangeError when a weight is negative or not finite or no weight is positive.
 */
export function pQuadForm(q: number, lambda: ArrayLike<number>, lowerTail = false): number {
  const lam: number[] = [];
  for (let j = 0; j < lambda.length; j++) {
    const l = lambda[j];
    if (!(l >= 0) || !Number.isFinite(l))
      throw new RangeError("The weights of a quadratic form must be finite and non-negative.");
    if (l > 0) lam.push(l);
  }
  if (lam.length === 0) throw new RangeError("A quadratic form needs at least one positive weight.");
  if (!(q > 0)) return lowerTail ? 0 : 1;
  const m = lam.length;
  let sumLam = 0;
  for (const l of lam) sumLam += l;
  const f = (u: number): number => {
    if (u === 0) return 0.5 * (sumLam - q);
    let theta = -0.5 * q * u;
    let logRho = 0;
    for (let j = 0; j < m; j++) {
      const lu = lam[j] * u;
      theta += 0.5 * Math.atan(lu);
      logRho += 0.25 * Math.log1p(lu * lu);
    }
    return Math.sin(theta) / (u * Math.exp(logRho));
  };
  const h = (2 * Math.PI) / q;
  const tol = 1e-14;
  const sums: number[] = [];
  let total = 0;
  let a = 0;
  let lastEstimate = NaN;
  let stable = 0;
  // the first intervals carry the non-oscillatory bulk; afterwards accelerate the alternating tail
  let n = 0;
  for (; n < 100000; n++) {
    const piece = integrate(f, a, a + h, tol);
    total += piece;
    a += h;
    sums.push(total);
    if (sums.length > 30) sums.shift();
    const bound = Math.abs(piece);
    if (bound < 1e-17) {
      lastEstimate = total;
      break;
    }
    if (sums.length >= 12 && n >= 20) {
      const est = wynnEpsilon(sums);
      if (Math.abs(est - lastEstimate) < 1e-14 * Math.max(1, Math.abs(est))) {
        stable++;
        if (stable >= 3) {
          lastEstimate = est;
          break;
        }
      } else stable = 0;
      lastEstimate = est;
    }
  }
  const upper = Math.min(1, Math.max(0, 0.5 + lastEstimate / Math.PI));
  return lowerTail ? 1 - upper : upper;
}

/**
 * Eigenvalues of a real symmetric n×n matrix (row-major array of rows), in decreasing order, by
 * the cyclic Jacobi method (Golub & Van Loan, Matrix Computations, §8.5), O(n³) per sweep.
 */
export function symmetricEigenvalues(a: number[][]): number[] {
  const n = a.length;
  const m = a.map((row) => row.slice());
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    let diag = 0;
    for (let i = 0; i < n; i++) {
      diag += m[i][i] * m[i][i];
      for (let j = i + 1; j < n; j++) off += m[i][j] * m[i][j];
    }
    if (off <= 1e-32 * diag || off === 0) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = m[p][q];
        if (apq === 0) continue;
        const tau = (m[q][q] - m[p][p]) / (2 * apq);
        const t = Math.sign(tau || 1) / (Math.abs(tau) + Math.sqrt(1 + tau * tau));
        const c = 1 / Math.sqrt(1 + t * t);
        const s = t * c;
        for (let r = 0; r < n; r++) {
          const arp = m[r][p];
          const arq = m[r][q];
          m[r][p] = c * arp - s * arq;
          m[r][q] = s * arp + c * arq;
        }
        for (let r = 0; r < n; r++) {
          const apr = m[p][r];
          const aqr = m[q][r];
          m[p][r] = c * apr - s * aqr;
          m[q][r] = s * apr + c * aqr;
        }
      }
    }
  }
  return m.map((row, i) => row[i]).sort((x, y) => y - x);
}

/**
 * The n − 1 non-zero eigenvalues of D − z zᵀ/c for D = diag(d), d > 0, when the matrix is positive
 * semi-definite with one zero eigenvalue (c = Σ z_i²/d_i, as for S P_A S of an intercept-only model),
 * in decreasing order. Secular equation 1 − (1/c) Σ z_i²/(d_i − λ) = 0 (Golub 1973), solved by bisection
 * between consecutive distinct d (monotone there); tied d of multiplicity r give r − 1 eigenvalues d,
 * and z_i = 0 gives d_i. O(n²).
 */
export function rankOneDowndateEigenvalues(d: ArrayLike<number>, z2: ArrayLike<number>, c: number): number[] {
  const n = d.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => d[i] - d[j]);
  const poles: { d: number; w: number }[] = [];
  const out: number[] = [];
  for (const i of order) {
    const last = poles[poles.length - 1];
    if (z2[i] === 0) out.push(d[i]);
    else if (last && Math.abs(d[i] - last.d) <= 1e-14 * Math.abs(d[i])) {
      last.w += z2[i] / c;
      out.push(d[i]);
    } else poles.push({ d: d[i], w: z2[i] / c });
  }
  const g = (lambda: number) => {
    let s = 1;
    for (const p of poles) s -= p.w / (p.d - lambda);
    return s;
  };
  for (let j = 0; j + 1 < poles.length; j++) {
    let lo = poles[j].d;
    let hi = poles[j + 1].d;
    for (let it = 0; it < 200; it++) {
      const mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) break;
      if (g(mid) > 0) lo = mid;
      else hi = mid;
    }
    out.push(0.5 * (lo + hi));
  }
  return out.sort((x, y) => y - x);
}
