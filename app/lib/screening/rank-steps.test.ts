import { describe, expect, it } from "vitest";
import { kthSmallest } from "./rank.ts";
import { buildScreeningCorpus, rankScreening, rankScreeningSteps, SCORE_CHUNK, type ScreeningLabel } from "./index.ts";

/** A deterministic pseudo-random sequence in [0, 1) (LCG), so the tests need no seed library. */
function lcg(seed: number) {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

describe("kthSmallest (Hoare's selection)", () => {
  it("selects the value a sort puts at every rank, with and without ties", () => {
    const random = lcg(7);
    for (const [n, distinct] of [
      [1, 1],
      [2, 2],
      [17, 3],
      [500, 500],
      [1000, 4],
      [1001, 1],
    ]) {
      const values = Float64Array.from({ length: n }, () => Math.floor(random() * distinct) - distinct / 2);
      const sorted = Float64Array.from(values).sort();
      for (let k = 0; k < n; k += Math.max(1, Math.floor(n / 37))) {
        expect(kthSmallest(Float64Array.from(values), k)).toBe(sorted[k]);
      }
      expect(kthSmallest(Float64Array.from(values), n - 1)).toBe(sorted[n - 1]);
    }
  });
});

describe("rankScreeningSteps", () => {
  const topics = [
    "statin therapy cardiovascular events",
    "exercise chronic low back pain",
    "asthma inhaler children",
    "depression psychotherapy adults",
  ];
  const size = 2 * SCORE_CHUNK + 137;
  const records = Array.from({ length: size }, (_, i) => ({
    id: `r${i}`,
    title: `${topics[i % 4]} study ${i % 11}`,
    abstract: i % 3 === 0 ? `${topics[(i + 1) % 4]} outcome ${i % 7}` : `${topics[i % 4]} trial`,
  }));
  const corpus = buildScreeningCorpus(records);
  const labels = new Map<string, ScreeningLabel>(
    Array.from(
      { length: 24 },
      (_, k) => [`r${k * 5}`, (k * 5) % 4 === 0 ? "include" : "exclude"] as [string, ScreeningLabel],
    ),
  );

  function drive(steps: Generator<void, ReturnType<typeof rankScreening>>) {
    let pauses = 0;
    for (;;) {
      const step = steps.next();
      if (step.done) return { result: step.value, pauses };
      pauses++;
    }
  }

  it("gives rankScreening's result, pausing at least once per SCORE_CHUNK rows scored", () => {
    for (const options of [{}, { limit: 50 }, { limit: 1 }, { model: "nb" as const, limit: 300 }]) {
      const whole = rankScreening(corpus, labels, { question: "statin therapy" }, undefined, options);
      const { result, pauses } = drive(
        rankScreeningSteps(corpus, labels, { question: "statin therapy" }, undefined, options),
      );
      expect(result.ranked.map((r) => [r.id, r.score, r.terms])).toEqual(
        whole.ranked.map((r) => [r.id, r.score, r.terms]),
      );
      expect(result.mode).toBe("active");
      expect(result.stopping).toEqual(whole.stopping);
      expect(result.estimatedRelevantRemaining).toBe(whole.estimatedRelevantRemaining);
      expect(pauses).toBeGreaterThanOrEqual(Math.ceil((size - labels.size) / SCORE_CHUNK));
    }
  });

  it("keeps the full ranking's head under a limit, ties (identical records) included", () => {
    const full = rankScreening(corpus, labels).ranked.map((r) => [r.id, r.score]);
    for (const limit of [1, 10, 999, size - labels.size - 1]) {
      const { result } = drive(rankScreeningSteps(corpus, labels, undefined, undefined, { limit }));
      expect(result.ranked.map((r) => [r.id, r.score])).toEqual(full.slice(0, limit));
    }
    // Prior mode with nothing to go on: every score ties, so the head is the corpus order.
    const { result } = drive(rankScreeningSteps(corpus, new Map(), undefined, undefined, { limit: 20 }));
    expect(result.mode).toBe("prior");
    expect(result.ranked.map((r) => r.id)).toEqual(
      rankScreening(corpus, new Map())
        .ranked.slice(0, 20)
        .map((r) => r.id),
    );
  });
});
