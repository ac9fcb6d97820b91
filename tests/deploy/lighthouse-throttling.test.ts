/**
 * The Lighthouse audits (bench/lighthouse, tests/e2e/lighthouse.spec.ts) emulate Lighthouse's
 * default phone: 4× CPU slowdown on a host of benchmarkIndex ≥ 1500 (the class Lighthouse
 * calibrates 4× for), proportionally less on a slower host, never more lenient than the emulated
 * phone (bench/lib/lighthouse-run.mjs cpuSlowdownFor).
 */
import { describe, expect, it } from "vitest";
import { CALIBRATED_BENCHMARK_INDEX, cpuSlowdownFor } from "../../bench/lib/lighthouse-run.mjs";

describe("cpuSlowdownFor", () => {
  it("keeps Lighthouse's 4× on a host as fast as the one it is calibrated for, or faster", () => {
    expect(CALIBRATED_BENCHMARK_INDEX).toBe(1500);
    for (const index of [1500, 1700, 2400]) expect(cpuSlowdownFor(index)).toBe(4);
  });

  it("slows a slower host less, so the emulated phone stays as fast: index ÷ multiplier = 375", () => {
    for (const index of [1000, 1250, 1499]) {
      expect(index / cpuSlowdownFor(index)).toBeCloseTo(375, 9);
      expect(cpuSlowdownFor(index)).toBeLessThan(4);
    }
  });

  it("keeps 4× when the index is unknown", () => {
    for (const index of [null, 0, Number.NaN]) expect(cpuSlowdownFor(index)).toBe(4);
  });
});
