import { describe, expect, it } from "vitest";
import { outcomeTypeGuess } from "./extract.ts";
import { extractArms, hintsOf, parseReport, proseValues, type ArmExtraction } from "./index.ts";

/**
 * Round 20 (docs/methods/arm-extraction.md "Round 20"): an arm's bracketed group label written word for word, a mean ±
 * SD in percent, and a threshold that makes an outcome binary. Every report here is invented.
 */
function readingsOf(text: string, outcome: string, intervention: string, comparator: string) {
  const readings: ArmExtraction[] = [];
  extractArms(
    parseReport(text, "text"),
    { intervention, comparator, outcome },
    { abstainBelow: 0, withholdInconsistent: false, readings },
  );
  return readings;
}

const intervention = "advice by nurse and pharmacist (pharmacist group)";
const comparator = "advice by nurse only (nurse group)";
const report =
  "Results. At 6 months, the mean (± SD) fall in systolic pressure was 5% ± 9% in the nurse group and 11% ± 8% in the pharmacist group (P = 0.01). A fall of 10% or more was seen in 20 of 80 patients in the nurse group and 38 of 82 patients in the pharmacist group.";

describe("an arm's bracketed group label, written word for word", () => {
  it("names the arm, though every word of it is in the other arm's name too", () => {
    const [best] = readingsOf(report, "percentage fall in systolic pressure at 6 months", intervention, comparator);
    expect(best.intervention).toMatchObject({ mean: 11, sd: 8 });
    expect(best.comparator).toMatchObject({ mean: 5, sd: 9 });
  });

  it("does not name either arm when both names give the same phrase", () => {
    const same = readingsOf(
      report,
      "percentage fall in systolic pressure",
      "nurse group (with leaflet)",
      "nurse group",
    );
    for (const r of same) expect(r.intervention.mean).not.toBe(5);
  });
});

describe("a mean ± SD written in percent", () => {
  it("is one continuous value, not two percentages", () => {
    const s = "The fall was 5% ± 9% in the nurse group.";
    expect(proseValues(s, hintsOf(s)).map((v) => v.stats)).toEqual([{ kind: "continuous", mean: 5, sd: 9 }]);
  });
});

describe("a threshold makes the outcome the event of crossing it", () => {
  it("types a phrase with a threshold as binary", () => {
    for (const phrase of [
      "LDL cholesterol decrease of 10% or more at 3 months",
      "HbA1c < 7%",
      "weight loss of at least 5%",
      "EPDS score ≥ 12 at six months",
    ])
      expect(outcomeTypeGuess(phrase)).toBe("binary");
    expect(outcomeTypeGuess("change in HbA1c at 12 months")).toBe("continuous");
    expect(outcomeTypeGuess("change in HbA1c in patients with HbA1c ≥ 7%")).toBe("continuous");
  });

  it("reads the counts of the threshold's sentence, not the means of the measure", () => {
    const [best] = readingsOf(report, "fall in systolic pressure of 10% or more", intervention, comparator);
    expect(best.intervention).toMatchObject({ events: 38, groupSize: 82 });
    expect(best.comparator).toMatchObject({ events: 20, groupSize: 80 });
  });
});

describe("a list's one percent sign after its last number", () => {
  it("makes every number of the list a percentage", () => {
    const s =
      "Antibodies were detected in 13.2 and 15.0% of patients in the nurse and pharmacist groups, respectively.";
    expect(proseValues(s, hintsOf(s)).map((v) => v.stats)).toEqual([
      { kind: "count", percent: 13.2, percentDecimals: 1 },
      { kind: "count", percent: 15, percentDecimals: 1 },
    ]);
  });

  it("reads the arms' events from those percentages and the arms' n stated elsewhere, in the order 'respectively' gives", () => {
    const text =
      "Methods. We randomised 38 patients to the nurse group and 20 to the pharmacist group. Results. Antibodies were detected in 13.2 and 15.0% of patients in the nurse and pharmacist groups, respectively.";
    const [best] = readingsOf(text, "antibodies", "pharmacist group", "nurse group");
    expect(best.intervention).toMatchObject({ events: 3, groupSize: 20 });
    expect(best.comparator).toMatchObject({ events: 5, groupSize: 38 });
  });

  it("leaves a number alone when no percent sign ends its list", () => {
    const s = "At weeks 4 and 8, 15% of patients responded.";
    expect(proseValues(s, hintsOf(s)).map((v) => v.stats)).toEqual([
      { kind: "count", percent: 15, percentDecimals: 0 },
    ]);
  });
});
