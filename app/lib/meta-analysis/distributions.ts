/**
 * Probability distributions used by the meta-analysis engine: normal, Student t, chi-square and F
 * CDFs and quantiles, plus log-gamma and R's Brent root finder (zeroin). Pure functions, no I/O.
 *
 * The CDFs are built on the regularised incomplete gamma and beta functions (series and Lentz
 * continued fractions, Numerical Recipes §6.2/§6.4), accurate to about 1e-14 relative over the
 * range a meta-analysis needs; quantiles are found by safeguarded Newton iterations on those CDFs,
 * so they are accurate to the same order.
 */

const EPS = 1e-16;
const FPMIN = 1e-300;
const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/**
 * Natural log of the gamma function, log Γ(x), for x > 0. Stirling's series for x ≥ 15, with the
 * upward recurrence Γ(x+1) = xΓ(x) below; relative error ~1e-15.
 */
export function lgamma(x: number): number {
  if (!(x > 0)) return x === 0 ? Infinity : NaN;
  if (x < 15) {
    // Shift up: log Γ(x) = log Γ(x + n) − log(x (x+1) … (x+n−1)).
    let shift = 0;
    let prod = 1;
    let y = x;
    while (y < 15) {
      prod *= y;
      y += 1;
      if (prod > 1e250) {
        shift += Math.log(prod);
        prod = 1;
      }
    }
    shift += Math.log(prod);
    return stirling(y) - shift;
  }
  return stirling(x);
}

function stirling(x: number): number {
  const x2 = 1 / (x * x);
  const series =
    (1 / x) *
    (1 / 12 -
      x2 * (1 / 360 - x2 * (1 / 1260 - x2 * (1 / 1680 - x2 * (1 / 1188 - x2 * (691 / 360360 - x2 * (1 / 156)))))));
  return (x - 0.5) * Math.log(x) - x + LOG_SQRT_2PI + series;
}

/** Regularised lower incomplete gamma P(a, x) and upper Q(a, x) = 1 − P(a, x), both returned accurately. */
export function incompleteGamma(a: number, x: number): { lower: number; upper: number } {
  if (x <= 0) return { lower: 0, upper: 1 };
  if (!Number.isFinite(x)) return { lower: 1, upper: 0 };
  const logPrefactor = -x + a * Math.log(x) - lgamma(a);
  if (x < a + 1) {
    // Series: P = e^{-x} x^a / Γ(a) Σ x^n / (a (a+1) … (a+n)).
    let ap = a;
    let del = 1 / a;
    let sum = del;
    for (let n = 0; n < 100000; n++) {
      ap += 1;
      del *= x / ap;
      sum += del;
      if (Math.abs(del) < Math.abs(sum) * EPS) break;
    }
    const lower = sum * Math.exp(logPrefactor);
    return { lower, upper: 1 - lower };
  }
  // Continued fraction for Q (modified Lentz).
  let b = x + 1 - a;
  let c = 1 / FPMIN;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 100000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < FPMIN) d = FPMIN;
    c = b + an / c;
    if (Math.abs(c) < FPMIN) c = FPMIN;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  const upper = Math.exp(logPrefactor) * h;
  return { lower: 1 - upper, upper };
}

function betacf(a: number, b: number, x: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < FPMIN) d = FPMIN;
  d = 1 / d;
  let h = d;
  for (let m = 1; m < 100000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < FPMIN) d = FPMIN;
    c = 1 + aa / c;
    if (Math.abs(c) < FPMIN) c = FPMIN;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < FPMIN) d = FPMIN;
    c = 1 + aa / c;
    if (Math.abs(c) < FPMIN) c = FPMIN;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return h;
}

/**
 * Regularised incomplete beta I_x(a, b) and its complement 1 − I_x(a, b). `y` = 1 − x may be given
 * separately to avoid cancellation when x is close to 1.
 */
export function incompleteBeta(x: number, a: number, b: number, y = 1 - x): { lower: number; upper: number } {
  if (x <= 0) return { lower: 0, upper: 1 };
  if (y <= 0) return { lower: 1, upper: 0 };
  const logBt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * Math.log(x) + b * Math.log(y);
  const bt = Math.exp(logBt);
  if (x < (a + 1) / (a + b + 2)) {
    const lower = (bt * betacf(a, b, x)) / a;
    return { lower, upper: 1 - lower };
  }
  const upper = (bt * betacf(b, a, y)) / b;
  return { lower: 1 - upper, upper };
}

/** Standard normal density. */
export function dnorm(x: number): number {
  return Math.exp(-0.5 * x * x - LOG_SQRT_2PI);
}

/** Standard normal CDF Φ(x) (lower tail), or 1 − Φ(x) with lowerTail = false; relative accuracy kept in both tails. */
export function pnorm(x: number, lowerTail = true): number {
  if (Number.isNaN(x)) return NaN;
  const z = lowerTail ? x : -x;
  // Φ(z) = ½ erfc(−z/√2); erfc(t) = Q(½, t²) for t ≥ 0.
  const t = -z / Math.SQRT2;
  const g = incompleteGamma(0.5, t * t);
  return t >= 0 ? 0.5 * g.upper : 1 - 0.5 * g.upper;
}

/** Standard normal quantile Φ⁻¹(p) (Abramowitz & Stegun 26.2.23 start, Halley refinement). */
export function qnorm(p: number, lowerTail = true): number {
  if (!(p >= 0 && p <= 1)) return NaN;
  const pl = lowerTail ? p : 1 - p;
  if (pl === 0) return -Infinity;
  if (pl === 1) return Infinity;
  // Work in the smaller tail for relative accuracy.
  const upperHalf = pl > 0.5;
  const tail = p < 0.5 ? p : 1 - p;
  const t = Math.sqrt(-2 * Math.log(tail));
  let x = -(
    t -
    (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t)
  );
  for (let i = 0; i < 50; i++) {
    const f = pnorm(x) - tail;
    const dens = dnorm(x);
    if (dens === 0) break;
    const u = f / dens;
    const step = u / (1 + 0.5 * x * u);
    x -= step;
    if (Math.abs(step) <= 1e-15 * Math.max(1, Math.abs(x))) break;
  }
  return upperHalf ? -x : x;
}

/** Student t CDF with df degrees of freedom (df > 0, may be non-integer). */
export function pt(x: number, df: number, lowerTail = true): number {
  if (Number.isNaN(x) || !(df > 0)) return NaN;
  if (!Number.isFinite(df)) return pnorm(x, lowerTail);
  if (x === Infinity) return lowerTail ? 1 : 0;
  if (x === -Infinity) return lowerTail ? 0 : 1;
  const x2 = x * x;
  const bx = df / (df + x2);
  const by = x2 / (df + x2);
  // P(|T| > |x|) = I_{df/(df+x²)}(df/2, ½)
  const ib = incompleteBeta(bx, df / 2, 0.5, by);
  const tail = 0.5 * ib.lower;
  const upper = x > 0 ? tail : 1 - tail;
  return lowerTail ? 1 - upper : upper;
}

function dt(x: number, df: number): number {
  return Math.exp(
    lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * Math.log(df * Math.PI) - ((df + 1) / 2) * Math.log1p((x * x) / df),
  );
}

/** Student t quantile (df > 0). */
export function qt(p: number, df: number, lowerTail = true): number {
  if (!(p >= 0 && p <= 1) || !(df > 0)) return NaN;
  const pl = lowerTail ? p : 1 - p;
  if (pl === 0) return -Infinity;
  if (pl === 1) return Infinity;
  if (!Number.isFinite(df)) return qnorm(p, lowerTail);
  if (df === 1) return Math.tan(Math.PI * (pl - 0.5));
  // Solve in the upper half for symmetry: find x > 0 with P(T > x) = tail.
  const upperHalf = pl > 0.5;
  // tail = min(pl, 1 − pl), taken from the argument as given to avoid cancellation.
  const tail = p < 0.5 ? p : 1 - p;
  const z = -qnorm(tail);
  // Cornish–Fisher style start (Abramowitz & Stegun 26.7.5).
  const g1 = (z ** 3 + z) / 4;
  const g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96;
  const g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384;
  let x = z + g1 / df + g2 / df ** 2 + g3 / df ** 3;
  if (!(x > 0) || !Number.isFinite(x)) x = z;
  const root = safeNewton(
    (v) => pt(v, df, false) - tail,
    (v) => -dt(v, df),
    x,
    0,
    Infinity,
  );
  return upperHalf ? root : -root;
}

/** Chi-square CDF with df degrees of freedom. */
export function pchisq(x: number, df: number, lowerTail = true): number {
  if (Number.isNaN(x) || !(df > 0)) return NaN;
  if (x <= 0) return lowerTail ? 0 : 1;
  const g = incompleteGamma(df / 2, x / 2);
  return lowerTail ? g.lower : g.upper;
}

function dchisq(x: number, df: number): number {
  if (x <= 0) return 0;
  const a = df / 2;
  return Math.exp((a - 1) * Math.log(x) - x / 2 - a * Math.LN2 - lgamma(a));
}

/** Chi-square quantile (Wilson–Hilferty start, safeguarded Newton). */
export function qchisq(p: number, df: number, lowerTail = true): number {
  if (!(p >= 0 && p <= 1) || !(df > 0)) return NaN;
  const pl = lowerTail ? p : 1 - p;
  if (pl === 0) return 0;
  if (pl === 1) return Infinity;
  const z = qnorm(p, lowerTail);
  const h = 2 / (9 * df);
  let x = df * (1 - h + z * Math.sqrt(h)) ** 3;
  if (!(x > 0) || !Number.isFinite(x)) x = df;
  const useUpper = pl > 0.5;
  const target = useUpper ? 1 - pl : pl;
  return safeNewton(
    (v) => pchisq(v, df, !useUpper) - target,
    (v) => (useUpper ? -dchisq(v, df) : dchisq(v, df)),
    x,
    0,
    Infinity,
  );
}

/** F distribution CDF (df1, df2 > 0). */
export function pf(x: number, df1: number, df2: number, lowerTail = true): number {
  if (x <= 0) return lowerTail ? 0 : 1;
  const u = (df1 * x) / (df1 * x + df2);
  const ib = incompleteBeta(u, df1 / 2, df2 / 2, df2 / (df1 * x + df2));
  return lowerTail ? ib.lower : ib.upper;
}

/**
 * Newton iterations kept inside a bracket that shrinks as the sign of f is learnt; bisection when a
 * step leaves the bracket. f must be monotone on (lo, hi).
 */
function safeNewton(f: (x: number) => number, df: (x: number) => number, x0: number, lo0: number, hi0: number): number {
  let lo = lo0;
  let hi = hi0;
  let x = x0;
  const increasing = df(x0) > 0;
  for (let i = 0; i < 200; i++) {
    const fx = f(x);
    if (fx === 0) return x;
    if (fx > 0 === increasing) hi = x;
    else lo = x;
    const d = df(x);
    let next = d !== 0 && Number.isFinite(d) ? x - fx / d : NaN;
    if (!(next > lo && next < hi)) {
      next = Number.isFinite(hi) ? (lo + hi) / 2 : Math.max(2 * x, x + 1);
    }
    if (Math.abs(next - x) <= 1e-15 * Math.abs(x) || next === x) return next;
    x = next;
  }
  return x;
}

/**
 * R's uniroot() (Brent's zeroin as in R's zeroin.c, R_zeroin2), reproduced step by step so that the
 * roots match metafor's, including its default tolerance. Throws when the interval does not bracket a root.
 */
export function uniroot(
  f: (x: number) => number,
  lower: number,
  upper: number,
  tol = Math.pow(2.220446049250313e-16, 0.25),
  maxiter = 1000,
): number {
  const fa0 = f(lower);
  const fb0 = f(upper);
  if (fa0 * fb0 > 0) throw new RangeError("uniroot: f() values at end points not of opposite sign");
  let a = lower;
  let b = upper;
  let fa = fa0;
  let fb = fb0;
  let c = a;
  let fc = fa;
  if (fa === 0) return a;
  if (fb === 0) return b;
  let it = maxiter + 1;
  const DBL_EPSILON = 2.220446049250313e-16;
  while (it--) {
    const prevStep = b - a;
    if (Math.abs(fc) < Math.abs(fb)) {
      a = b;
      b = c;
      c = a;
      fa = fb;
      fb = fc;
      fc = fa;
    }
    const tolAct = 2 * DBL_EPSILON * Math.abs(b) + tol / 2;
    let newStep = (c - b) / 2;
    if (Math.abs(newStep) <= tolAct || fb === 0) return b;
    if (Math.abs(prevStep) >= tolAct && Math.abs(fa) > Math.abs(fb)) {
      let p: number;
      let q: number;
      const cb = c - b;
      if (a === c) {
        const t1 = fb / fa;
        p = cb * t1;
        q = 1 - t1;
      } else {
        const qq = fa / fc;
        const t1 = fb / fc;
        const t2 = fb / fa;
        p = t2 * (cb * qq * (qq - t1) - (b - a) * (t1 - 1));
        q = (qq - 1) * (t1 - 1) * (t2 - 1);
      }
      if (p > 0) q = -q;
      else p = -p;
      if (p < 0.75 * cb * q - Math.abs(tolAct * q) / 2 && p < Math.abs((prevStep * q) / 2)) newStep = p / q;
    }
    if (Math.abs(newStep) < tolAct) newStep = newStep > 0 ? tolAct : -tolAct;
    a = b;
    fa = fb;
    b += newStep;
    fb = f(b);
    if ((fb > 0 && fc > 0) || (fb < 0 && fc < 0)) {
      c = a;
      fc = fa;
    }
  }
  return b;
}
