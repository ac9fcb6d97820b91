import { describe, expect, it } from "vitest";
import { extractArms, parseReport, type ArmExtraction } from "./index.ts";

/**
 * Round 20 (docs/methods/arm-extraction.md "Round 20"): each arm's value before and after treatment in one sentence
 * ("2.6 ± 0.5 to 1.6 ± 0.7"). Every report here is invented.
 */
function readingsOf(text: string, outcome: string, intervention = "exercise", comparator = "control") {
  const readings: ArmExtraction[] = [];
  extractArms(
    parseReport(text, "text"),
    { intervention, comparator, outcome },
    { abstainBelow: 0, withholdInconsistent: false, readings },
  );
  return readings;
}

const pain =
  "Results. Pain fell in the exercise group, 6.1 ± 1.2 to 3.4 ± 1.5 (mean ± SD; p < 0.001), versus the control group, 6.0 ± 1.1 to 5.8 ± 1.3.";

describe("an arm's value before and after treatment, joined by 'to'", () => {
  it("reads each arm's value after treatment for an outcome question", () => {
    const [best] = readingsOf(pain, "pain score");
    expect(best.intervention).toMatchObject({ mean: 3.4, sd: 1.5 });
    expect(best.comparator).toMatchObject({ mean: 5.8, sd: 1.3 });
  });

  it("reads each arm's value before treatment for a baseline question", () => {
    const [best] = readingsOf(pain, "pain score at baseline");
    expect(best.intervention).toMatchObject({ mean: 6.1, sd: 1.2 });
    expect(best.comparator).toMatchObject({ mean: 6.0, sd: 1.1 });
  });

  it("reads counts the same way ('28% (17/60) to 57% (26/46)')", () => {
    const text =
      "Results. Guideline-concordant care rose in the exercise group, 28% (17/60) to 57% (26/46), and in the control group, 35% (34/97) to 39% (30/77).";
    const [best] = readingsOf(text, "guideline-concordant care");
    expect(best.intervention).toMatchObject({ events: 26, groupSize: 46 });
    expect(best.comparator).toMatchObject({ events: 30, groupSize: 77 });
  });

  it("leaves a sentence alone when not every value of the kind is in such a pair", () => {
    const text =
      "Results. Pain scores were 3.4 ± 1.5 in the exercise group and 5.8 ± 1.3 in the control group, and 4.0 ± 1.0 to 2.0 ± 1.1 overall.";
    const [best] = readingsOf(text, "pain score");
    expect(best.intervention).toMatchObject({ mean: 3.4, sd: 1.5 });
    expect(best.comparator).toMatchObject({ mean: 5.8, sd: 1.3 });
  });
});
