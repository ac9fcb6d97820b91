import { describe, expect, it } from "vitest";
import { estimateRelevantRemaining, logHypergeometricCdf, stoppingCriterion, trailingExclusions } from "./stopping.ts";

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
    const truth = Array.from({ length: total - screened }, (_, k) => a * Math.exp(-b * (screened + k + 1))).reduce(
      (s, x) => s + x,
      0,
    );
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

describe("logHypergeometricCdf", () => {
  // Oracle: R 4's phyper(k, K, N − K, n, log.p = TRUE), printed with 17 digits.
  it.each([
    [0, 1000, 6, 500, -4.173966112058574],
    [3, 1000, 50, 100, -1.4136538331501742],
    [10, 20100, 100, 2000, -0.52803419438990373],
    [40, 1847, 106, 600, -0.10385162794793229],
    [0, 50000, 30, 25000, -20.803120553333237],
  ])("phyper(%i) in a population of %i with %i successes, %i draws", (k, population, successes, draws, expected) => {
    // Log-factorials of numbers up to 50,000 carry ~1e-12 absolute rounding.
    expect(logHypergeometricCdf(k, population, successes, draws)).toBeCloseTo(expected, 9);
  });

  it("is exact at the edges of the support", () => {
    expect(Math.exp(logHypergeometricCdf(0, 2000, 1, 3))).toBeCloseTo(0.9985, 10);
    // 5 failures, 8 draws: at least 3 successes are drawn.
    expect(logHypergeometricCdf(2, 15, 10, 8)).toBe(-Infinity);
    expect(logHypergeometricCdf(8, 15, 10, 8)).toBe(0);
    expect(() => logHypergeometricCdf(0, 10, 11, 3)).toThrow(RangeError);
  });
});

/** buscar's calculate_h0 literally: every tail of the last n decisions, p = min over n. */
function bruteForceP(sequence: boolean[], total: number, target = 0.95): number {
  const found = sequence.filter(Boolean).length;
  let best = 1;
  let k = 0;
  for (let n = 1; n <= sequence.length; n++) {
    if (sequence[sequence.length - n]) k++;
    const successes = Math.floor(found / target + 1 - (found - k));
    const population = total - (sequence.length - n);
    const p = successes > population ? 0 : Math.exp(logHypergeometricCdf(k, population, successes, n));
    best = Math.min(best, p);
  }
  return best;
}

const bits = (text: string) => [...text].map((c) => c === "1");

describe("stoppingCriterion (Callaghan & Müller-Hansen 2020)", () => {
  it("matches buscar's calculate_h0 computed in R", () => {
    // R: min over tails of phyper(cumsum(rev(s)), K, pop − K, n) for the same sequences.
    const s = bits("1101100101" + "0".repeat(300));
    expect(stoppingCriterion(s, 500).pValue).toBeCloseTo(0.38775510204081631, 10);
    expect(stoppingCriterion([...s, ...bits("0".repeat(100))], 500).pValue).toBeCloseTo(0.18367346938775519, 10);
    expect(stoppingCriterion(bits("1001" + "0".repeat(20)), 2000).pValue).toBeCloseTo(0.98997995991984011, 10);
  });

  it("tests only the longest tail of each include count, with the same p as every tail", () => {
    let seed = 7;
    const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let trial = 0; trial < 20; trial++) {
      const length = 50 + Math.floor(rand() * 400);
      const rate = 0.02 + rand() * 0.3;
      const sequence = Array.from({ length }, (_, i) => rand() < rate * Math.exp(-i / 80));
      sequence[0] = true;
      const total = length + Math.floor(rand() * 600);
      expect(stoppingCriterion(sequence, total).pValue!).toBeCloseTo(bruteForceP(sequence, total), 12);
    }
  });

  it("gives no estimate before the first include", () => {
    const result = stoppingCriterion(bits("0000000000"), 1000);
    expect(result).toMatchObject({ pValue: null, reached: false, reachedAfter: null, recallLowerBound: null });
    expect(result.relevantLeftUpperBound).toBeNull();
  });

  it("stops after a long run of exclusions once the relevant records have been found", () => {
    // 40 includes in the first 200 of 2,000 records, then exclusions.
    const head = Array.from({ length: 200 }, (_, i) => i % 5 === 0);
    const tooEarly = stoppingCriterion([...head, ...Array(100).fill(false)], 2000);
    expect(tooEarly.reached).toBe(false);
    expect(tooEarly.recallLowerBound!).toBeLessThan(0.95);
    const later = [...head, ...Array(1200).fill(false)];
    const result = stoppingCriterion(later, 2000);
    expect(result.reached).toBe(true);
    expect(result.pValue!).toBeLessThan(0.05);
    expect(result.recallLowerBound!).toBeGreaterThanOrEqual(0.95);
    // reachedAfter is the first prefix at which the criterion held.
    const after = result.reachedAfter!;
    expect(after).toBeGreaterThan(300);
    expect(after).toBeLessThan(1400);
    expect(stoppingCriterion(later.slice(0, after), 2000).reached).toBe(true);
    expect(stoppingCriterion(later.slice(0, after - 1), 2000).reached).toBe(false);
  });

  it("does not stop while includes keep turning up at a random-sampling rate", () => {
    // One include in every 20 records, the rate of the whole review: nothing suggests the rest is empty.
    const sequence = Array.from({ length: 1500 }, (_, i) => i % 20 === 0);
    const result = stoppingCriterion(sequence, 2000);
    expect(result.reached).toBe(false);
    expect(result.recallLowerBound ?? 0).toBeLessThan(0.9);
  });

  it("reaches the target exactly when the recall bound does, and is certain once all are screened", () => {
    for (const extra of [100, 400, 700, 1000, 1300]) {
      const sequence = [...Array.from({ length: 150 }, (_, i) => i % 6 === 0), ...Array(extra).fill(false)];
      const result = stoppingCriterion(sequence, 2000);
      expect(result.reached).toBe((result.recallLowerBound ?? 0) >= 0.95);
      expect(result.relevantLeftUpperBound ?? Infinity).toBeGreaterThanOrEqual(0);
    }
    const all = stoppingCriterion(bits("0101000000"), 10);
    expect(all).toMatchObject({ reached: true, recallLowerBound: 1, relevantLeftUpperBound: 0, reachedAfter: 10 });
  });
});
