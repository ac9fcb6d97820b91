import { countFromPercent, sdFromCi, sdFromSe } from "./derive.ts";
import type { ArmField } from "./types.ts";

/** Numbers written in a quote (unicode minus and decimal commas normalised). */
export function numbersIn(quote: string): number[] {
  return (quote.replace(/[−–]/g, "-").match(/-?\d+(?:[.,]\d+)?/g) ?? []).map((raw) => Number(raw.replace(",", ".")));
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

/**
 * Whether a number a language model proposed for `field` is grounded in its quote: it is written in
 * the quote, or it follows from numbers in the quote by one of the derivations the rules use (events
 * from a percentage of `groupSize` when exactly one integer fits; SD = SE·√n; SD from a 95% CI of a
 * mean, Cochrane Handbook 6.5.2.2). Returns the derivation text, "" when written verbatim, or null.
 */
export function groundProposedValue(value: number, field: ArmField, quote: string, groupSize: number | null): string | null {
  if (!Number.isFinite(value)) return null;
  const nums = numbersIn(quote);
  const counts = field === "events" || field === "groupSize";
  const verbatim = counts ? numbersIn(quote.replace(/-?\d+(?:[.,]\d+)?\s*%/g, " ")) : nums;
  if (verbatim.some((n) => close(n, value))) return "";
  if (groupSize === null || groupSize <= 0) return null;
  if (field === "events") {
    for (const raw of quote.matchAll(/(\d+(?:\.\d+)?)\s*%/g)) {
      const decimals = raw[1].split(".")[1]?.length ?? 0;
      if (countFromPercent(Number(raw[1]), decimals, groupSize) === value) return `${raw[1]}% of n = ${groupSize}`;
    }
  }
  if (field === "sd") {
    for (const n of nums) {
      if (n > 0 && Math.abs(sdFromSe(n, groupSize) - value) <= 0.01 * Math.max(1, value)) return `SE ${n} × √${groupSize}`;
    }
    for (let i = 0; i + 1 < nums.length; i += 1) {
      const [low, high] = [nums[i], nums[i + 1]];
      if (high > low && Math.abs(sdFromCi(low, high, groupSize) - value) <= 0.01 * Math.max(1, value)) return `95% CI ${low} to ${high}, n = ${groupSize}`;
    }
  }
  return null;
}
