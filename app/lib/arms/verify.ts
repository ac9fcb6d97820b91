import { numbersIn } from "../extraction/core/index.ts";
import { countFromPercent, sdFromCi, sdFromSe } from "./derive.ts";
import type { ArmField } from "./types.ts";

/** Numbers written in a quote, signed, read by the extraction core's one number reader. */
function numbersOf(quote: string, options: { withoutPercents?: boolean } = {}): number[] {
  return numbersIn(quote)
    .filter((n) => !(options.withoutPercents && n.percent))
    .map((n) => n.value);
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

/**
 * Whether a number a language model proposed for `field` is grounded in its quote: it is written in
 * the quote, or it follows from numbers in the quote by one of the derivations the rules use (events
 * from a percentage of `groupSize` when exactly one integer fits; SD = SE·√n; SD from a 95% CI of a
 * mean, Cochrane Handbook 6.5.2.2). Returns the derivation text, "" when written verbatim, or null.
 */
export function groundProposedValue(
  value: number,
  field: ArmField,
  quote: string,
  groupSize: number | null,
): string | null {
  if (!Number.isFinite(value)) return null;
  const nums = numbersOf(quote);
  const counts = field === "events" || field === "groupSize";
  const verbatim = counts ? numbersOf(quote, { withoutPercents: true }) : nums;
  if (verbatim.some((n) => close(n, value))) return "";
  if (groupSize === null || groupSize <= 0) return null;
  if (field === "events") {
    for (const p of numbersIn(quote).filter((n) => n.percent && n.value >= 0)) {
      const raw = quote.slice(p.start, p.end);
      if (countFromPercent(p.value, p.decimals, groupSize) === value) return `${raw}% of n = ${groupSize}`;
    }
  }
  if (field === "sd") {
    for (const n of nums) {
      if (n > 0 && Math.abs(sdFromSe(n, groupSize) - value) <= 0.01 * Math.max(1, value))
        return `SE ${n} × √${groupSize}`;
    }
    for (let i = 0; i + 1 < nums.length; i += 1) {
      const [low, high] = [nums[i], nums[i + 1]];
      if (high > low && Math.abs(sdFromCi(low, high, groupSize) - value) <= 0.01 * Math.max(1, value))
        return `95% CI ${low} to ${high}, n = ${groupSize}`;
    }
  }
  return null;
}
