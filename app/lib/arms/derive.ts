/**
 * Derivations that turn what a report states indirectly into arm-level data, each checked so that a
 * derived number is only given when the report leaves no doubt (Cochrane Handbook, chapter 6.5.2).
 */

/** Number of decimals written in a numeral ("78.20" → 2, "62" → 0). */
export function decimalsOf(numeral: string): number {
  const match = /[.,](\d+)\s*$/.exec(numeral.trim());
  return match ? match[1].length : 0;
}

/**
 * Events from a percentage of a known group size: the integers k in [0, n] whose 100·k/n rounds to
 * the written percentage (half a unit of its last decimal either side). Returns k only when exactly
 * one integer fits, otherwise null (a blank beats a wrong number).
 */
export function countFromPercent(percent: number, decimals: number, groupSize: number): number | null {
  const fits = countsFromPercent(percent, decimals, groupSize);
  return fits.length === 1 ? fits[0] : null;
}

/**
 * Every whole number of events k (0 ≤ k ≤ groupSize) for which 100·k/groupSize rounds to `percent` at `decimals`
 * decimals (half a unit of the last decimal); empty for an impossible percentage or group size. Round 23: none means
 * the percentage is not of this n; several, that the percentage cannot tell them apart (Cochrane Handbook 6.5.2).
 */
export function countsFromPercent(percent: number, decimals: number, groupSize: number): number[] {
  if (!Number.isFinite(percent) || !Number.isInteger(groupSize) || groupSize <= 0 || percent < 0 || percent > 100)
    return [];
  const half = 0.5 * 10 ** -Math.min(decimals, 4) + 1e-9;
  const low = Math.ceil(((percent - half) * groupSize) / 100 - 1e-9);
  const high = Math.floor(((percent + half) * groupSize) / 100 + 1e-9);
  const fits: number[] = [];
  for (let k = Math.max(0, low); k <= Math.min(groupSize, high); k += 1) {
    const value = (100 * k) / groupSize;
    if (Math.abs(value - percent) <= half) fits.push(k);
  }
  return fits;
}

/** Whether `percent` is 100·events/n written with `decimals` decimals (rounding tolerance half a unit, +0.05 for sloppy rounding). */
export function percentMatches(events: number, groupSize: number, percent: number, decimals: number): boolean {
  if (groupSize <= 0) return false;
  const half = 0.5 * 10 ** -Math.min(decimals, 4) + 0.05;
  return Math.abs((100 * events) / groupSize - percent) <= half;
}

/** SD from the standard error of a mean: SD = SE · √n (Cochrane Handbook 6.5.2.2). */
export function sdFromSe(se: number, groupSize: number): number {
  return se * Math.sqrt(groupSize);
}

/**
 * SD from a 95% confidence interval of a mean: SD = √n · (upper − lower) / (2 · q), where q is the
 * 0.975 quantile of t with n − 1 degrees of freedom for n < 60 and 1.96 otherwise (Cochrane Handbook
 * 6.5.2.2).
 */
export function sdFromCi(lower: number, upper: number, groupSize: number): number {
  const q = groupSize < 60 ? tQuantile975(groupSize - 1) : 1.959964;
  return (Math.sqrt(groupSize) * (upper - lower)) / (2 * q);
}

/** 0.975 quantile of Student's t with `df` degrees of freedom (Cornish–Fisher expansion; |error| < 1e-4 for df ≥ 2). */
export function tQuantile975(df: number): number {
  if (df <= 1) return 12.7062;
  const z = 1.959964;
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  const z9 = z ** 9;
  return (
    z +
    (z3 + z) / (4 * df) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3) +
    (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * df ** 4)
  );
}

/** Rounds a derived value to `digits` decimals (derived SDs are given to two decimals more than their source). */
export function roundTo(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * Standard normal quantile Φ⁻¹(q) for 0 < q < 1 (Acklam's rational approximation, relative error
 * < 1.2e-9). Throws RangeError outside (0, 1).
 */
export function normalQuantile(q: number): number {
  if (!(q > 0 && q < 1)) throw new RangeError("q must be in (0, 1)");
  const a = [
    -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1,
    2.506628277459239,
  ];
  const b = [
    -5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1,
  ];
  const c = [
    -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (q < low) {
    const r = Math.sqrt(-2 * Math.log(q));
    return (
      (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
      ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1)
    );
  }
  if (q > 1 - low) return -normalQuantile(1 - q);
  const r = q - 0.5;
  const s = r * r;
  return (
    ((((((a[0] * s + a[1]) * s + a[2]) * s + a[3]) * s + a[4]) * s + a[5]) * r) /
    (((((b[0] * s + b[1]) * s + b[2]) * s + b[3]) * s + b[4]) * s + 1)
  );
}

/**
 * Upper quantile of Student's t: the t with P(T > t) = q for `df` degrees of freedom, from the
 * normal quantile by the Cornish–Fisher expansion (as tQuantile975; |error| < 1e-3 for df ≥ 5 and
 * q ≥ 0.0005).
 */
export function tQuantileUpper(q: number, df: number): number {
  const z = normalQuantile(1 - q);
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  const z9 = z ** 9;
  return (
    z +
    (z3 + z) / (4 * df) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3) +
    (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * df ** 4)
  );
}

/**
 * Pooled SD of two arms from the difference of their means and the two-sample t statistic
 * (Cochrane Handbook 6.5.2.3): SE(MD) = |MD| / |t|, SD = SE / √(1/n₁ + 1/n₂). The same SD is used
 * for both arms. Returns null when t is 0 or a group size is < 2.
 */
export function sdFromT(meanDifference: number, t: number, n1: number, n2: number): number | null {
  if (t === 0 || n1 < 2 || n2 < 2 || !Number.isFinite(meanDifference) || !Number.isFinite(t)) return null;
  const se = Math.abs(meanDifference) / Math.abs(t);
  return se / Math.sqrt(1 / n1 + 1 / n2);
}

/**
 * The two-sample t statistic behind an exact two-sided p value (Cochrane Handbook 6.5.2.3): the upper
 * p/2 quantile of t with n₁ + n₂ − 2 degrees of freedom. Returns null for p outside (0, 1) — a bound
 * such as "p < 0.05" is not an exact p and must not be passed.
 */
export function tFromP(p: number, n1: number, n2: number): number | null {
  if (!(p > 0 && p < 1) || n1 + n2 - 2 < 1) return null;
  return tQuantileUpper(p / 2, n1 + n2 - 2);
}
