import { describe, expect, it } from "vitest";
import type { EffectData } from "~/lib/meta-analysis/types";
import { gradeAnalysis, type GradeInput } from "./grade";

const counts = (e1: number, n1: number, e2: number, n2: number): EffectData => ({ kind: "counts", events1: e1, n1, events2: e2, n2 });

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
    expect(a.judgements.map((j) => j.domain)).toEqual(["risk of bias", "inconsistency", "indirectness", "imprecision", "publication bias"]);
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
    expect(domain(piOnly, "inconsistency")).toMatchObject({ downgrade: -1, reason: expect.stringMatching(/prediction interval/) });
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
});
