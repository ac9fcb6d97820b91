import { describe, expect, it } from "vitest";
import { estimateRelevantRemaining, trailingExclusions } from "./stopping.ts";

/** Deterministic 0/1 sequence whose inclusion rate decays as a·e^(−b t). */
function decaying(n: number, a: number, b: number): boolean[] {
  let expected = 0;
  let found = 0;
  return Array.from({ length: n }, (_, i) => {
    expected += a * Math.exp(-b * (i + 1));
    if (expected - found >= 0.5) {
      found++;
      return true;
    }
    return false;
  });
}

describe("estimateRelevantRemaining", () => {
  it("extrapolates a decaying discovery curve to the unscreened records", () => {
    const a = 0.5;
    const b = 0.01;
    const total = 2000;
    const screened = 200;
    const truth = Array.from({ length: total - screened }, (_, k) => a * Math.exp(-b * (screened + k + 1))).reduce((s, x) => s + x, 0);
    const estimate = estimateRelevantRemaining(decaying(screened, a, b), total)!;
    expect(truth).toBeGreaterThan(5);
    expect(estimate).toBeGreaterThan(truth * 0.6);
    expect(estimate).toBeLessThan(truth * 2.5);
  });

  it("projects a constant rate when inclusions do not thin out", () => {
    const seq = Array.from({ length: 100 }, (_, i) => i % 10 === 5);
    const estimate = estimateRelevantRemaining(seq, 1100)!;
    expect(estimate).toBeGreaterThan(50);
    expect(estimate).toBeLessThanOrEqual(1000);
  });

  it("is near zero after a long run of exclusions and exactly zero when nothing is left", () => {
    const seq = [...Array.from({ length: 30 }, (_, i) => i % 2 === 0), ...Array(500).fill(false)];
    expect(estimateRelevantRemaining(seq, 1000)!).toBeLessThan(2);
    expect(estimateRelevantRemaining(seq, seq.length)).toBe(0);
  });

  it("returns null before any inclusion", () => {
    expect(estimateRelevantRemaining([], 10)).toBeNull();
    expect(estimateRelevantRemaining([false, false], 10)).toBeNull();
  });
});

describe("trailingExclusions", () => {
  it("counts the exclusions after the last inclusion", () => {
    expect(trailingExclusions([true, false, true, false, false])).toBe(2);
    expect(trailingExclusions([false, false])).toBe(2);
    expect(trailingExclusions([false, true])).toBe(0);
    expect(trailingExclusions([])).toBe(0);
  });
});
