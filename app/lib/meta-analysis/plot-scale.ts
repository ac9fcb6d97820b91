import { isFiniteNumber } from "./display";

/**
 * Scale math shared by the forest and funnel plots (pure, client-safe). Values are on the
 * analysis scale (log for ratio measures); ratio axes put their ticks at round ratios (0.5, 1, 2 …)
 * placed at their logarithms.
 */

/** A linear map from [d0, d1] to [r0, r1]; a zero-width domain maps everything to the middle. */
export function linearScale(domain: [number, number], range: [number, number]): (value: number) => number {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  if (d1 === d0) return () => (r0 + r1) / 2;
  const k = (r1 - r0) / (d1 - d0);
  return (value: number) => r0 + (value - d0) * k;
}

/**
 * The axis domain covering every finite value given (with `padding` as a fraction of the span on
 * each side); a degenerate or empty set gives a unit-wide domain around its centre (or 0).
 */
export function paddedDomain(values: readonly number[], padding = 0.05): [number, number] {
  const finite = values.filter(isFiniteNumber);
  if (finite.length === 0) return [-1, 1];
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (hi - lo < 1e-9) {
    lo -= 0.5;
    hi += 0.5;
  }
  const pad = (hi - lo) * padding;
  return [lo - pad, hi + pad];
}

/** Round-number ticks (steps 1, 2, 2.5 or 5 × 10^n) inside [lo, hi], about `target` of them. */
export function niceTicks(lo: number, hi: number, target = 5): number[] {
  if (!isFiniteNumber(lo) || !isFiniteNumber(hi) || hi <= lo) return [];
  const rough = (hi - lo) / Math.max(1, target);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  const ticks: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
    ticks.push(Math.abs(v) < step * 1e-9 ? 0 : Number(v.toPrecision(12)));
  }
  return ticks;
}

/** Round ratios (1-2-5 steps, evenly spaced on a log axis) used as tick labels on log axes. */
const RATIO_STEPS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/**
 * Ticks of a log-scale axis whose domain is [logLo, logHi] (natural logs): round ratios whose
 * logarithm lies inside, thinned to at most `max` while always keeping 1 when it is inside.
 * Returns {value: log position, label: ratio text}.
 */
export function ratioTicks(logLo: number, logHi: number, max = 7): { value: number; label: string }[] {
  if (!isFiniteNumber(logLo) || !isFiniteNumber(logHi) || logHi <= logLo) return [];
  let inside = RATIO_STEPS.filter((r) => Math.log(r) >= logLo - 1e-12 && Math.log(r) <= logHi + 1e-12);
  // Thin evenly, keeping 1 (the null line) when it is on the axis.
  while (inside.length > max) {
    const anchor = inside.indexOf(1);
    const parity = anchor >= 0 ? anchor % 2 : 0;
    inside = inside.filter((_, i) => i % 2 === parity);
  }
  if (inside.length < 3) {
    // Narrow log ranges: fall back to linear ticks of the ratio itself.
    return niceTicks(Math.exp(logLo), Math.exp(logHi), 5)
      .filter((r) => r > 0)
      .map((r) => ({ value: Math.log(r), label: formatTick(r) }));
  }
  return inside.map((r) => ({ value: Math.log(r), label: formatTick(r) }));
}

/** A tick label without float noise (0.25, 2, 1000). */
export function formatTick(value: number): string {
  if (!isFiniteNumber(value)) return "";
  return String(Number(value.toPrecision(6)));
}

/**
 * Side (px) of a study's square on the forest plot: proportional to the square root of its weight
 * (area ∝ weight, as metafor), between `min` and `max`. Non-finite or non-positive weights give
 * `min`.
 */
export function squareSide(weight: number, maxWeight: number, min = 4, max = 16): number {
  if (!isFiniteNumber(weight) || !isFiniteNumber(maxWeight) || weight <= 0 || maxWeight <= 0) return min;
  return min + (max - min) * Math.sqrt(Math.min(1, weight / maxWeight));
}

/** Keeps a value inside [lo, hi] and says whether it was cut (drawn as an arrow). */
export function clampToAxis(value: number, lo: number, hi: number): { value: number; clipped: boolean } {
  if (value < lo) return { value: lo, clipped: true };
  if (value > hi) return { value: hi, clipped: true };
  return { value, clipped: false };
}

/**
 * Splits text into lines of at most `maxChars` characters at spaces (a longer word is cut), for
 * SVG text that cannot wrap itself. At most `maxLines` lines; the last one ends with "…" when cut.
 */
export function wrapText(text: string, maxChars: number, maxLines = Infinity): string[] {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = "";
  for (const word of words) {
    let w = word;
    while (w.length > maxChars) {
      if (line) {
        lines.push(line);
        line = "";
      }
      lines.push(w.slice(0, maxChars));
      w = w.slice(maxChars);
    }
    if (!line) line = w;
    else if (line.length + 1 + w.length <= maxChars) line += ` ${w}`;
    else {
      lines.push(line);
      line = w;
    }
  }
  if (line) lines.push(line);
  if (lines.length > maxLines) {
    const kept = lines.slice(0, maxLines);
    const last = kept[maxLines - 1]!;
    kept[maxLines - 1] = `${last.slice(0, Math.max(0, maxChars - 1))}…`;
    return kept;
  }
  return lines;
}
