import { describe, expect, it } from "vitest";
import { extractArms, parseReport } from "./index.ts";

/**
 * Round 9's rule "no-events" (docs/methods/arm-extraction.md "Round 9"): a sentence saying that no event of the
 * outcome occurred, naming no single arm, gives 0 events in both arms. Invented reports of the family (safety and
 * secondary-outcome sentences); each read with no probability threshold, so the reading is what is tested, with the
 * rule off and on.
 */

const off = { abstainBelow: 0, recallRules: [] } as const;
const on = { abstainBelow: 0, recallRules: ["no-events"] } as const;

const report = (results: string) =>
  parseReport(
    [
      "# Methods",
      "Sixty adults were randomised to oral zinc (n = 30) or placebo (n = 30) for eight weeks.",
      "# Results",
      results,
    ].join("\n\n"),
    "markdown",
  );

describe("round 9 rule: a sentence saying no event occurred", () => {
  it("gives 0 events in both arms, with the arms' n, only with the rule on", () => {
    const r = report("No serious adverse events were reported during the study. Mean zinc levels rose in both groups.");
    const question = { intervention: "oral zinc", comparator: "placebo", outcome: "serious adverse events" };
    expect(extractArms(r, question, off).intervention.events).toBeNull();
    const result = extractArms(r, question, on);
    expect(result.outcomeType).toBe("binary");
    expect(result.intervention.events).toBe(0);
    expect(result.comparator.events).toBe(0);
    expect(result.intervention.groupSize).toBe(30);
    expect(result.comparator.groupSize).toBe(30);
    expect(result.reason?.intervention?.events ?? "").toContain("No serious adverse events were reported");
  });

  it('reads "there were no X in either group"', () => {
    const r = report("There were no deaths in either group, and all participants completed follow-up.");
    const result = extractArms(r, { intervention: "oral zinc", comparator: "placebo", outcome: "deaths" }, on);
    expect(result.intervention.events).toBe(0);
    expect(result.comparator.events).toBe(0);
  });

  it("gives nothing for a difference, a single arm, another event or a continuous question", () => {
    const cases: [string, string][] = [
      ["No significant difference in adverse events was observed between the groups.", "adverse events"],
      ["No adverse events were reported in the placebo group.", "adverse events"],
      ["No serious adverse events were reported.", "wound infection"],
      ["No change in body weight was observed.", "body weight"],
    ];
    for (const [sentence, outcome] of cases) {
      const result = extractArms(report(sentence), { intervention: "oral zinc", comparator: "placebo", outcome }, on);
      expect(result.intervention.events ?? null).toBeNull();
      expect(result.comparator.events ?? null).toBeNull();
    }
  });
});
