import { describe, expect, it } from "vitest";
import { pipeTable } from "../../../tests/arm-reports";
import { extractArms, parseReport } from "./index.ts";

/**
 * A question that names baseline only as the reference of a change ("change in LDL from baseline to week 12") asks
 * for the change, not for values at baseline (docs/methods/arm-extraction.md "Round 17"). Every report is invented.
 */
function ask(text: string, outcome: string) {
  return extractArms(parseReport(text, "markdown"), { intervention: "velatrin", comparator: "placebo", outcome });
}

// Family: outcome tables of mean changes from baseline at the end of treatment, with the baseline table beside them.
const report = [
  "Results.",
  pipeTable(
    "Table 1. Baseline characteristics",
    ["Characteristic", "Velatrin (n = 60)", "Placebo (n = 58)"],
    [
      ["Age, years", "58.2 (9.1)", "57.4 (8.8)"],
      ["LDL cholesterol, mg/dL", "142.5 (21.3)", "140.9 (22.7)"],
    ],
  ),
  pipeTable(
    "Table 2. Change from baseline to week 12",
    ["Outcome", "Velatrin (n = 60)", "Placebo (n = 58)"],
    [["LDL cholesterol, mg/dL", "-38.4 (14.2)", "-3.1 (12.9)"]],
  ),
].join("\n\n");

describe("a change-from-baseline question is not a baseline question", () => {
  for (const outcome of [
    "change in LDL cholesterol from baseline to week 12",
    "LDL cholesterol change from baseline at 12 weeks",
    "change in LDL cholesterol at 12 weeks compared with baseline",
  ])
    it(`reads the change table for "${outcome}", without a baseline item missing`, () => {
      const r = ask(report, outcome);
      expect(r.intervention.mean).toBe(-38.4);
      expect(r.comparator.mean).toBe(-3.1);
      expect(r.intervention.groupSize).toBe(60);
      expect(r.reason?.intervention.mean ?? "").not.toContain("baseline values as asked");
    });

  it("a question about values at baseline still reads the baseline table", () => {
    const r = ask(report, "baseline LDL cholesterol");
    expect(r.intervention.mean).toBe(142.5);
    expect(r.comparator.mean).toBe(140.9);
  });
});
