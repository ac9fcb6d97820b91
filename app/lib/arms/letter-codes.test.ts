import { describe, expect, it } from "vitest";
import { pipeTable } from "../../../tests/arm-reports";
import { extractArms, parseReport } from "./index.ts";

/**
 * Round 9's rule "letter-codes" (docs/methods/arm-extraction.md "Round 9"): arms the question names by a letter code
 * ("Placebo group (P)", "E group") are named by that code in the report. Invented reports of the family (trials that
 * code their groups by letters in tables and results); each read with no probability threshold, so the reading is
 * what is tested, with the rule off and on.
 */

const off = { abstainBelow: 0, recallRules: [] } as const;
const on = { abstainBelow: 0, recallRules: ["letter-codes"] } as const;

const table = pipeTable(
  "Table 3. Time to first rescue analgesic (min), mean ± SD",
  ["Variable", "Group (P) (n = 30)", "Group (K) (n = 31)", "Group (K/M) (n = 29)", "P value"],
  [["Time to first rescue analgesic", "182 ± 41", "236 ± 52", "301 ± 60", "<0.001"]],
);
const text = [
  "# Methods",
  "Patients were allocated to four groups receiving placebo, ketorolac, magnesium, or both before induction.",
  "# Results",
  table,
].join("\n\n");

describe("round 9 rule: arms named by a letter code", () => {
  it("reads the columns the question's codes name, not with the rule off", () => {
    const report = parseReport(text, "markdown");
    const question = {
      intervention: "ketorolac and magnesium (group K/M)",
      comparator: "Placebo group (P)",
      outcome: "time to first rescue analgesic",
    };
    const before = extractArms(report, question, off);
    expect(before.intervention.mean).toBeNull();
    const after = extractArms(report, question, on);
    expect(after.intervention.mean).toBe(301);
    expect(after.intervention.sd).toBe(60);
    expect(after.intervention.groupSize).toBe(29);
    expect(after.comparator.mean).toBe(182);
    expect(after.comparator.groupSize).toBe(30);
    expect(after.reason?.intervention?.mean ?? "").toContain("group K/M");
  });

  it('a code is never part of a longer code, and "K group" names group K', () => {
    const report = parseReport(text, "markdown");
    const result = extractArms(
      report,
      { intervention: "K group", comparator: "P group", outcome: "time to first rescue analgesic" },
      on,
    );
    // "K" is the K column (236), not the K/M column (301).
    expect(result.intervention.mean).toBe(236);
    expect(result.comparator.mean).toBe(182);
  });

  it("gives no code for a bare letter, the letter N, or a shared code", () => {
    const report = parseReport(text, "markdown");
    // "P value" is not group P: a question without a code is unaffected.
    for (const question of [
      { intervention: "ketorolac", comparator: "placebo (N)", outcome: "time to first rescue analgesic" },
      { intervention: "ketorolac (P)", comparator: "placebo (P)", outcome: "time to first rescue analgesic" },
    ])
      expect(extractArms(report, question, on).comparator.mean).toBe(
        extractArms(report, question, off).comparator.mean,
      );
  });
});
