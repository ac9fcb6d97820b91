import { describe, expect, it } from "vitest";
import { robAgreement, robDifferences, type RobAssessmentPair } from "./dual";
import { ROB_JUDGEMENTS, type RobJudgement } from "./rob2";
import type { RobJudgementSet } from "./types";

const LOW = {
  "1.1": "Y",
  "1.2": "Y",
  "1.3": "N",
  "2.1": "N",
  "2.2": "N",
  "2.6": "Y",
  "3.1": "Y",
  "4.1": "N",
  "4.2": "N",
  "4.3": "N",
  "5.1": "Y",
  "5.2": "N",
  "5.3": "N",
} as const;
const all = (j: RobJudgement): RobJudgementSet => ({ D1: j, D2: j, D3: j, D4: j, D5: j, overall: j });

describe("robDifferences", () => {
  it("lists differing answers of asked questions in the tool's order and differing final judgements", () => {
    const a = {
      variant: "assignment" as const,
      answers: { ...LOW, "1.2": "N" as const },
      final: { ...all("low"), D1: "high" as const, overall: "high" as const },
    };
    const b = {
      variant: "assignment" as const,
      answers: { ...LOW, "2.1": "Y" as const, "2.3": "N" as const, "5.3": "PN" as const },
      final: all("low"),
    };
    const d = robDifferences(a, b);
    // 2.3 is asked only in b (2.1 Y): it counts as differing; 5.3 N vs PN differs (exact answers).
    expect(d).toEqual({ variant: false, questions: ["1.2", "2.1", "2.3", "5.3"], judgements: ["D1", "overall"] });
  });

  it("ignores answers to questions the algorithm does not ask", () => {
    const a = { variant: "assignment" as const, answers: { ...LOW, "3.2": "N" as const }, final: all("low") };
    const b = { variant: "assignment" as const, answers: { ...LOW }, final: all("low") };
    expect(robDifferences(a, b)).toEqual({ variant: false, questions: [], judgements: [] });
    expect(robDifferences(a, { ...b, variant: "adhering" }).variant).toBe(true);
  });
});

describe("robAgreement", () => {
  it("reuses Cohen's κ: a 3×3 table of overall judgements reproduces Fleiss, Levin & Paik (2003) Table 18.1 (κ = 0.23/0.34)", () => {
    const table = [
      [75, 1, 4],
      [5, 4, 1],
      [0, 0, 10],
    ];
    const pairs: RobAssessmentPair[] = [];
    table.forEach((row, i) =>
      row.forEach((n, j) => {
        for (let x = 0; x < n; x++)
          pairs.push({
            first: { userId: "a", final: all(ROB_JUDGEMENTS[i]!) },
            second: { userId: "b", final: all(ROB_JUDGEMENTS[j]!) },
          });
      }),
    );
    const r = robAgreement(pairs);
    expect(r.n).toBe(100);
    expect(r.weighting).toBe("unweighted");
    expect(r.categories).toEqual(["low", "some_concerns", "high"]);
    expect(r.overall.table).toEqual(table);
    expect(r.overall.agreement).toBeCloseTo(0.89, 12);
    expect(r.overall.kappa).toBeCloseTo(0.23 / 0.34, 12);
    expect(r.domains.D3.kappa).toBeCloseTo(0.23 / 0.34, 12);
  });

  it("per domain: disagreement in one domain only", () => {
    const pairs: RobAssessmentPair[] = [
      {
        first: { userId: "a", final: { ...all("low"), D1: "high", overall: "high" } },
        second: { userId: "b", final: all("low") },
      },
      { first: { userId: "a", final: all("low") }, second: { userId: "b", final: all("low") } },
    ];
    const r = robAgreement(pairs);
    expect(r.domains.D1).toMatchObject({
      n: 2,
      agreement: 0.5,
      kappa: 0,
      table: [
        [1, 0, 0],
        [0, 0, 0],
        [1, 0, 0],
      ],
    });
    // Every judgement Low on both sides: p_e = 1, κ undefined.
    expect(r.domains.D2).toMatchObject({ n: 2, agreement: 1, kappa: null });
    expect(robAgreement([]).overall).toMatchObject({ n: 0, agreement: null, kappa: null });
  });
});
