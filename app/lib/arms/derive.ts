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
  if (!Number.isFinite(percent) || !Number.isInteger(groupSize) || groupSize <= 0 || percent < 0 || percent > 100) return null;
  const half = 0.5 * 10 ** -Math.min(decimals, 4) + 1e-9;
  const low = Math.ceil(((percent - half) * groupSize) / 100 - 1e-9);
  const high = Math.floor(((percent + half) * groupSize) / 100 + 1e-9);
  const fits: number[] = [];
  for (let k = Math.max(0, low); k <= Math.min(groupSize, high); k += 1) {
    const value = (100 * k) / groupSize;
    if (Math.abs(value - percent) <= half) fits.push(k);
  }
  return fits.length === 1 ? fits[0] : null;
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
