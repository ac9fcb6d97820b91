import { describe, expect, it } from "vitest";
import { cohensKappa, screeningAgreement } from "./agreement";

describe("cohensKappa", () => {
  it("matches the textbook 2×2 example (Fleiss, Levin & Paik 2003; statpsych ci.kappa(.05, 31, 12, 4, 58))", () => {
    // f00 = 31, f01 = 12, f10 = 4, f11 = 58 → κ 0.6756757, SE 0.07344761, 95% CI [0.5317210, 0.8196303].
    const r = cohensKappa([
      [31, 12],
      [4, 58],
    ]);
    expect(r.n).toBe(105);
    expect(r.agreement).toBeCloseTo(89 / 105, 12);
    expect(r.kappa).toBeCloseTo(0.6756757, 6);
    expect(r.se).toBeCloseTo(0.07344761, 7);
    expect(r.kappaCi![0]).toBeCloseTo(0.531721, 6);
    expect(r.kappaCi![1]).toBeCloseTo(0.8196303, 6);
  });

  it("matches Stata's kapci analytical interval on a large 2×2 table", () => {
    // Statalist 2009-12 msg00320: κ .3411969, SE .0262914, CI (.2896668, .3927271).
    const r = cohensKappa([
      [1395, 118],
      [261, 158],
    ]);
    expect(r.kappa).toBeCloseTo(0.3411969207847029, 12);
    expect(r.se).toBeCloseTo(0.0262913719660408, 10);
    expect(r.kappaCi![0]).toBeCloseTo(0.2896667786271169, 9);
    expect(r.kappaCi![1]).toBeCloseTo(0.3927270629422889, 9);
  });

  it("k×k: Fleiss, Levin & Paik (2003) Table 18.1 (three diagnoses, 100 subjects) gives κ = 0.676", () => {
    const r = cohensKappa([
      [75, 1, 4],
      [5, 4, 1],
      [0, 0, 10],
    ]);
    expect(r.agreement).toBeCloseTo(0.89, 12);
    expect(r.kappa).toBeCloseTo(0.23 / 0.34, 12);
  });

  it("is undefined without items or when chance agreement is certain", () => {
    expect(
      cohensKappa([
        [0, 0],
        [0, 0],
      ]),
    ).toMatchObject({ n: 0, agreement: null, kappa: null, kappaCi: null });
    expect(
      cohensKappa([
        [5, 0],
        [0, 0],
      ]),
    ).toMatchObject({ n: 5, agreement: 1, kappa: null, se: null });
    expect(
      cohensKappa([
        [3, 0],
        [0, 2],
      ]),
    ).toMatchObject({ kappa: 1, se: 0, kappaCi: [1, 1] });
  });
});

describe("screeningAgreement", () => {
  it("counts 'maybe' as include, each record once with its first two votes, per pair of reviewers", () => {
    const votes = [
      { recordId: 1, userId: "b", decision: "include" as const },
      { recordId: 1, userId: "a", decision: "maybe" as const },
      { recordId: 2, userId: "a", decision: "exclude" as const },
      { recordId: 2, userId: "b", decision: "include" as const },
      { recordId: 3, userId: "a", decision: "exclude" as const },
      { recordId: 3, userId: "c", decision: "exclude" as const },
      { recordId: 3, userId: "b", decision: "include" as const }, // a third vote is ignored
      { recordId: 4, userId: "a", decision: "include" as const }, // one vote: not counted
    ];
    const r = screeningAgreement(votes);
    expect(r.n).toBe(3);
    expect(r.table).toEqual([
      [1, 0],
      [1, 1],
    ]);
    expect(r.agreement).toBeCloseTo(2 / 3, 12);
    expect(r.pairs.map((p) => [p.reviewers, p.table])).toEqual([
      [
        ["a", "b"],
        [
          [1, 0],
          [1, 0],
        ],
      ],
      [
        ["a", "c"],
        [
          [0, 0],
          [0, 1],
        ],
      ],
    ]);
  });
});
