import { describe, expect, it } from "vitest";
import { pipeTable } from "../../../tests/arm-reports";
import { HARD_GATES, HARD_GATES_ON, extractArms, parseReport } from "./index.ts";
import type { HardGateName } from "./index.ts";

/**
 * Round 14's definitional hard rules (docs/methods/arm-extraction.md "Round 14"): a value wrong by definition is
 * withheld whatever its calibrated probability. Every report below is invented, one per family the rule serves.
 */
function ask(text: string, outcome: string, hardGates?: readonly HardGateName[], abstainBelow?: number) {
  return extractArms(
    parseReport(text, "markdown"),
    { intervention: "velatrin", comparator: "placebo", outcome },
    { hardGates, abstainBelow },
  );
}

describe("timepoint-other: the question's timepoint is not the one time the reading shows", () => {
  // Family: outcome tables whose caption names one follow-up time, asked about at another time.
  const at12 = pipeTable(
    "Table 2. Outcomes at 12 weeks",
    ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)"],
    [["Pain score (0-10)", "3.1 (1.2)", "4.6 (1.5)"]],
  );

  it("is on in the product", () => {
    expect([...HARD_GATES].slice(0, 3)).toEqual(["timepoint-other", "median-not-mean", "range-not-ci"]);
    expect([...HARD_GATES_ON]).toEqual(HARD_GATES.filter((name) => name !== "outcome-elsewhere"));
  });

  it("withholds the value whatever its probability, naming the rule, and keeps the candidate", () => {
    const r = ask(`Results.\n\n${at12}`, "pain score at 6 months", undefined, 0.01);
    expect(r.intervention.mean).toBeNull();
    expect(r.comparator.sd).toBeNull();
    expect(r.reason?.intervention.mean).toContain(
      "is wrong by definition (timepoint-other: the question asks for 6m and the reading shows only 12w)",
    );
    expect(r.candidates?.some((q) => q.text.includes("3.1"))).toBe(true);
    // Off, the same threshold gives it: only the rule withholds it.
    expect(ask(`Results.\n\n${at12}`, "pain score at 6 months", [], 0.01).intervention.mean).toBe(3.1);
    // The bench's raw reading (no threshold) still reads it, as a training value.
    expect(ask(`Results.\n\n${at12}`, "pain score at 6 months", undefined, 0).intervention.mean).toBe(3.1);
  });

  it("does not apply when the reading shows the question's time, an equivalent one, or no time", () => {
    expect(ask(`Results.\n\n${at12}`, "pain score at 12 weeks", undefined, 0.01).intervention.mean).toBe(3.1);
    expect(ask(`Results.\n\n${at12}`, "pain score at 3 months", undefined, 0.01).intervention.mean).toBe(3.1);
    const untimed = at12.replace("Outcomes at 12 weeks", "Outcomes");
    const r = ask(`Results.\n\n${untimed}`, "pain score at 6 months", undefined, 0.01);
    expect(r.reason?.intervention.mean ?? "").not.toContain("timepoint-other");
  });

  it("does not apply when the reading shows several times (left to the calibrated confidence)", () => {
    const two = at12.replace("Outcomes at 12 weeks", "Outcomes at 12 weeks (follow-up to 24 weeks)");
    const r = ask(`Results.\n\n${two}`, "pain score at 6 months", undefined, 0.01);
    expect(r.reason?.intervention.mean ?? "").not.toContain("timepoint-other");
  });
});
