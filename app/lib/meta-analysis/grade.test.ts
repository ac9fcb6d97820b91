import { describe, expect, it } from "vitest";
import type { EffectData } from "~/lib/meta-analysis/types";
import { gradeAnalysis, type GradeInput } from "./grade";

const counts = (e1: number, n1: number, e2: number, n2: number): EffectData => ({
  kind: "counts",
  events1: e1,
  n1,
  events2: e2,
  n2,
});

function input(over: Partial<GradeInput> = {}): GradeInput {
  return {
    measure: "RR",
    k: 3,
    ci_lb: -0.5,
    ci_ub: -0.1,
    pi_lb: -0.6,
    pi_ub: -0.05,
    I2: 10,
    egger: null,
    rows: [
      { design: "RCT", totalN: 400, data: counts(60, 200, 80, 200) },
      { design: "RCT", totalN: 400, data: counts(50, 200, 70, 200) },
      { design: "RCT", totalN: 400, data: counts(40, 200, 60, 200) },
    ],
    ...over,
  };
}

const domain = (a: ReturnType<typeof gradeAnalysis>, d: string) => a.judgements.find((j) => j.domain === d)!;

describe("gradeAnalysis", () => {
  it("RCTs, precise, consistent, enough events: high; every domain has a reason", () => {
    const a = gradeAnalysis(input());
    expect(a.certainty).toBe("high");
    expect(a.judgements.map((j) => j.domain)).toEqual([
      "risk of bias",
      "inconsistency",
      "indirectness",
      "imprecision",
      "publication bias",
    ]);
    expect(a.judgements.every((j) => j.reason.length > 20)).toBe(true);
    expect(domain(a, "imprecision").reason).toContain("360 events in 1200 participants");
    expect(domain(a, "publication bias").reason).toMatch(/fewer than 10/);
  });

  it("observational studies start low", () => {
    const rows = input().rows.map((r) => ({ ...r, design: "cohort" }));
    expect(gradeAnalysis(input({ rows })).certainty).toBe("low");
  });

  it("I² ≥ 75% is −2, ≥ 50% is −1", () => {
    expect(domain(gradeAnalysis(input({ I2: 80 })), "inconsistency").downgrade).toBe(-2);
    expect(domain(gradeAnalysis(input({ I2: 55 })), "inconsistency").downgrade).toBe(-1);
    const piOnly = gradeAnalysis(input({ I2: 20, pi_lb: -0.8, pi_ub: 0.3 }));
    expect(domain(piOnly, "inconsistency")).toMatchObject({
      downgrade: -1,
      reason: expect.stringMatching(/prediction interval/),
    });
  });

  it("imprecision: a CI crossing the null and fewer than 300 events is −2", () => {
    const rows = input().rows.map((r) => ({ ...r, totalN: 40, data: counts(5, 20, 6, 20) }));
    const a = gradeAnalysis(input({ ci_lb: -0.4, ci_ub: 0.2, rows }));
    expect(domain(a, "imprecision")).toMatchObject({ downgrade: -2 });
    expect(a.certainty).toBe("low");
  });

  it("publication bias only with k ≥ 10 and Egger p < 0.10", () => {
    const rows = Array.from({ length: 10 }, () => input().rows[0]!);
    const egger = { statistic: 2.5, df: 8, pval: 0.04, intercept: 0, slope: 1 };
    expect(domain(gradeAnalysis(input({ k: 10, rows, egger })), "publication bias").downgrade).toBe(-1);
    expect(domain(gradeAnalysis(input({ egger })), "publication bias").downgrade).toBe(0);
  });

  it("never goes below very low", () => {
    const rows = input().rows.map((r) => ({ ...r, design: "cohort", totalN: 30, data: counts(2, 15, 3, 15) }));
    expect(gradeAnalysis(input({ rows, I2: 90, ci_lb: -1, ci_ub: 1 })).certainty).toBe("very low");
  });

  describe("with the reviewer's inputs", () => {
    it("risk of bias from RoB 2 judgements weighted by the studies' weights", () => {
      const low = gradeAnalysis(input({ riskOfBias: ["low", "low", "high"], weights: [45, 45, 10] }));
      expect(domain(low, "risk of bias")).toMatchObject({
        downgrade: 0,
        reason: expect.stringMatching(/90% low risk, 10% high risk/),
      });
      const serious = gradeAnalysis(input({ riskOfBias: ["low", "some_concerns", "high"], weights: [40, 30, 30] }));
      expect(domain(serious, "risk of bias").downgrade).toBe(-1); // score (0·40 + 1·30 + 2·30)/100 = 0.9
      expect(serious.certainty).toBe("moderate");
      const verySerious = gradeAnalysis(
        input({ riskOfBias: ["high", "high", "some_concerns"], weights: [40, 30, 30] }),
      );
      expect(domain(verySerious, "risk of bias")).toMatchObject({
        downgrade: -2,
        reason: expect.stringMatching(/very serious/),
      });
      expect(verySerious.certainty).toBe("low");
    });

    it("RoB 2 judgements count only when studies with half the weight are assessed; the rest is named", () => {
      const partial = gradeAnalysis(input({ riskOfBias: ["high", null, null], weights: [60, 20, 20] }));
      expect(domain(partial, "risk of bias")).toMatchObject({
        downgrade: -2,
        reason: expect.stringMatching(/2 of 3 studies not assessed, 40% of the weight/),
      });
      const tooFew = gradeAnalysis(input({ riskOfBias: ["high", null, null], weights: [20, 40, 40] }));
      expect(domain(tooFew, "risk of bias").reason).toMatch(/randomised trials/); // falls back to designs
      expect(domain(tooFew, "risk of bias").downgrade).toBe(0);
    });

    it("inconsistency: τ² in the reason; non-overlapping CIs on opposite sides of the null → −1", () => {
      const apart = gradeAnalysis(
        input({
          I2: 30,
          tau2: 0.04,
          effects: [
            { yi: -0.5, vi: 0.01 },
            { yi: 0.3, vi: 0.01 },
            { yi: -0.1, vi: 0.02 },
          ],
        }),
      );
      expect(domain(apart, "inconsistency")).toMatchObject({
        downgrade: -1,
        reason: expect.stringMatching(/τ² = 0\.040.*do not overlap/),
      });
      const overlap = gradeAnalysis(
        input({
          I2: 30,
          effects: [
            { yi: -0.2, vi: 0.01 },
            { yi: 0.05, vi: 0.01 },
          ],
        }),
      );
      expect(domain(overlap, "inconsistency").downgrade).toBe(0);
    });

    it("imprecision: a CI crossing the reviewer's decision threshold", () => {
      const crosses = gradeAnalysis(input({ decisionThreshold: Math.log(0.75) }));
      expect(domain(crosses, "imprecision")).toMatchObject({
        downgrade: -1,
        reason: expect.stringMatching(/includes the decision threshold \(RR 0\.75\)/),
      });
      const clear = gradeAnalysis(input({ decisionThreshold: Math.log(0.95) }));
      expect(domain(clear, "imprecision")).toMatchObject({
        downgrade: 0,
        reason: expect.stringMatching(/one side of the decision threshold/),
      });
    });

    it("indirectness: the reviewer's call with its reason", () => {
      const a = gradeAnalysis(input({ indirectness: { levels: 1, reason: "Two trials enrolled only older adults." } }));
      expect(domain(a, "indirectness")).toEqual({
        domain: "indirectness",
        downgrade: -1,
        reason: "Serious indirectness (reviewer's judgement): Two trials enrolled only older adults.",
      });
      expect(a.certainty).toBe("moderate");
    });
  });
});
