import { describe, expect, it } from "vitest";
import { gradeInputs, judgementsByOutcome } from "./job-inputs";
import type { ApiGradeSettings, ApiRobAssessment, ApiRobOverview } from "./types";

const set = (overall: "low" | "high") =>
  ({ D1: overall, D2: "low", D3: "low", D4: "low", D5: "low", overall }) as const;
const assessment = (recordId: number, outcomeId: number, overall: "low" | "high") =>
  ({ recordId, outcomeId, final: set(overall) }) as unknown as ApiRobAssessment;

describe("the review's risk-of-bias inputs of a meta-analysis job", () => {
  it("keys the final judgements by outcome name and record id, leaving out assessments of unknown outcomes", () => {
    const overview: ApiRobOverview = {
      outcomes: [
        { id: 1, name: "mortality" },
        { id: 2, name: "length of stay" },
      ],
      studies: [],
      assessments: [
        assessment(10, 1, "low"),
        assessment(11, 1, "high"),
        assessment(10, 2, "high"),
        assessment(12, 99, "low"),
      ],
    };
    expect(judgementsByOutcome(overview)).toEqual({
      mortality: { "10": set("low"), "11": set("high") },
      "length of stay": { "10": set("high") },
    });
  });

  it("turns stored GRADE settings into reviewerRatings, decisionThresholds and per-outcome assumed control risks", () => {
    const s = (outcome: string, extra: Partial<ApiGradeSettings>): ApiGradeSettings => ({
      outcomeId: 1,
      outcome,
      rating: { overrides: {}, rateUp: [] },
      assumedControlRisk: null,
      decisionThreshold: null,
      updatedBy: "a@example.org",
      updatedAt: "2026-11-26T00:00:00.000Z",
      ...extra,
    });
    const rating = {
      overrides: { indirectness: { downgrade: -1 as const, justification: "Older adults only." } },
      rateUp: [],
    };
    expect(
      gradeInputs([
        s("mortality", { rating, assumedControlRisk: 0.15 }),
        s("stroke", { decisionThreshold: 0.9 }),
        s("pain", {}),
      ]),
    ).toEqual({
      reviewerRatings: { mortality: rating },
      decisionThresholds: { stroke: 0.9 },
      assumedControlRiskByOutcome: { mortality: 0.15 },
    });
  });
});
