import { describe, expect, it } from "vitest";
import { pipeTable } from "../../../tests/arm-reports";
import { diagnoseNoReading, parseReport } from "./index.ts";

/**
 * Round 9's bench diagnosis (docs/methods/arm-extraction.md "Round 9"): for a question with no reading, the first step
 * that fails — outcome, arms, statistic — on invented reports.
 */

const text = [
  "# Methods",
  "Adults with hip pain were randomised to exercise therapy (n = 40) or usual care (n = 40).",
  "# Results",
  pipeTable(
    "Table 2. Outcomes at 12 weeks",
    ["Outcome", "Exercise therapy (n = 40)", "Usual care (n = 40)"],
    [
      ["Pain score, mean (SD)", "3.1 (1.2)", "4.4 (1.5)"],
      ["Walking speed", "faster", "slower"],
    ],
  ),
  "Knee stiffness improved by 2 points more with the new programme than with the standard one.",
].join("\n\n");
const report = parseReport(text, "markdown");
const arms = { intervention: "exercise therapy", comparator: "usual care" };

describe("diagnoseNoReading (round 9 bench diagnosis)", () => {
  it("returns null for a question with a reading", () => {
    expect(diagnoseNoReading(report, { ...arms, outcome: "pain score" })).toBeNull();
  });

  it("(i) outcome: nothing names it; prints the best match", () => {
    const d = diagnoseNoReading(report, { ...arms, outcome: "sleep quality" });
    expect(d?.step).toBe("outcome");
    expect(d?.bestOutcome.score).toBeLessThan(0.5);
  });

  it("(ii) arms: the outcome is named where the arms are not", () => {
    const d = diagnoseNoReading(report, { ...arms, outcome: "knee stiffness" });
    expect(d?.step).toBe("arms");
    expect(d?.bestOutcome.score).toBeGreaterThanOrEqual(0.5);
    expect(d?.detail).toContain("Knee stiffness improved");
  });

  it("(iii) statistic: outcome and arms matched, no parsable statistic", () => {
    const d = diagnoseNoReading(report, { ...arms, outcome: "walking speed" });
    expect(d?.step).toBe("statistic");
    expect(d?.detail).toContain("faster");
  });
});
