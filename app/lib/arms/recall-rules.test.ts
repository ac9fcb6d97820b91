import { describe, expect, it } from "vitest";
import { pipeTable } from "../../../tests/arm-reports";
import { timesIn } from "./provenance.ts";
import { extractArms, parseReport, RECALL_RULES, RECALL_RULES_ON } from "./index.ts";

/**
 * Round 8's reading rules (docs/methods/arm-extraction.md "Round 8"): each test reads an invented report of the
 * rule's family with no probability threshold (`abstainBelow: 0`), so the reading itself is what is tested, and
 * shows the same question read with the rule off. Round 8's adoption rule kept none of them, so they are off by default
 * (`parseReport(…, "markdown", {inlineFigures: "split"})` and `extractArms(…, {recallRules: RECALL_RULES})` switch
 * them on); the last test checks the default.
 */

const none = { abstainBelow: 0, recallRules: [] } as const;
const on = { abstainBelow: 0, recallRules: RECALL_RULES } as const;

describe("round 8 reading rules (invented reports)", () => {
  it("lists the rules of the arm core (round 22 added bare-means, tested in prose-families.test.ts)", () => {
    expect([...RECALL_RULES]).toEqual(["arm-labels", "decimal-times", "bare-means"]);
  });

  // Family: markdown converted from JATS/HTML keeping each figure inline, between two results sentences.
  it("inline figures: a figure ends the paragraph, so the sentence after it is read on its own", () => {
    const text = [
      "# Results",
      'Time to extubation was 12.1 ± 3.0 min in the warmed infusion group and 14.8 ± 4.2 min in the unwarmed infusion group [Figure 2]. <figure> <p><img src="" /></p> <figcaption>Time course of body temperature</figcaption> </figure> The length of stay was 4.2 ± 1.1 days in the warmed infusion group and 5.6 ± 1.9 days in the unwarmed infusion group.',
    ].join("\n\n");
    const question = { intervention: "warmed infusion", comparator: "unwarmed infusion", outcome: "length of stay" };
    const kept = extractArms(parseReport(text, "markdown", { inlineFigures: "keep" }), question, on);
    const split = extractArms(parseReport(text, "markdown", { inlineFigures: "split" }), question, on);
    // Glued to the sentence before it by the figure, the length of stay is not read as its own sentence.
    expect(kept.intervention.mean).not.toBe(4.2);
    expect(split.intervention.mean).toBe(4.2);
    expect(split.comparator.mean).toBe(5.6);
    expect(split.comparator.sd).toBe(1.9);
    // The caption is a paragraph of its own; no markup is left in the text.
    const report = parseReport(text, "markdown", { inlineFigures: "split" });
    expect(report.text).toContain("Time course of body temperature");
    expect(report.text).not.toMatch(/<\/?fig|<img/);
  });

  // Family: CONSORT-style methods naming the arms by a short label with a description and n at first mention.
  it("arm labels: a label defined with a description and n names the arm the question describes", () => {
    const table = pipeTable(
      "Table 2. Outcomes at 6 months",
      ["Outcome", "Standard", "Extended", "Control"],
      [["Daily steps, mean (SD)", "6210 (1830)", "6890 (1905)", "5630 (1770)"]],
    );
    const text = [
      "# Methods",
      "Adults were randomised to a standard (printed walking plan with weekly reminders; n=212), extended (printed walking plan with weekly reminders and a pedometer; n=208) or control (leaflet only; n=215) group.",
      "# Results",
      table,
    ].join("\n\n");
    const question = {
      intervention: "printed walking plan with weekly reminders and a pedometer",
      comparator: "control",
      outcome: "daily steps",
    };
    const report = parseReport(text, "markdown");
    expect(extractArms(report, question, none).intervention.mean).toBeNull();
    const read = extractArms(report, question, on);
    expect(read.intervention.mean).toBe(6890);
    expect(read.intervention.sd).toBe(1905);
    expect(read.comparator.mean).toBe(5630);
    expect(read.reason?.intervention.mean).toContain('"extended" is the intervention');
    // The shorter description is the other label's: asked the other way, "Standard" is the arm.
    const other = extractArms(
      report,
      { intervention: "printed walking plan with weekly reminders", comparator: "control", outcome: "daily steps" },
      on,
    );
    expect(other.intervention.mean).toBe(6210);
  });

  it("arm labels: a generic word, a bracket without n, or a description naming both arms defines no label", () => {
    const table = pipeTable(
      "Table 2. Outcomes",
      ["Outcome", "Alpha", "Beta"],
      [["Daily steps, mean (SD)", "6210 (1830)", "5630 (1770)"]],
    );
    const question = { intervention: "walking plan with a pedometer", comparator: "leaflet", outcome: "daily steps" };
    for (const methods of [
      // No n in the bracket.
      "Adults were randomised to alpha (walking plan with a pedometer) or beta (leaflet).",
      // A generic word before the bracket.
      "Patients (walking plan with a pedometer; n=212) and patients (leaflet; n=215) were enrolled.",
      // The description names both arms in full.
      "Adults were randomised to alpha (walking plan with a pedometer or leaflet; n=212) or beta (leaflet; n=215).",
    ]) {
      const text = ["# Methods", methods, "# Results", table].join("\n\n");
      expect(extractArms(parseReport(text, "markdown"), question, on).intervention.mean, methods).toBeNull();
    }
  });

  // Family: duration outcomes reported as "mean ± SD min" in prose.
  it("decimal times: the decimal part of a duration is not a follow-up time", () => {
    expect(timesIn("Block lasted 621.67 ± 46.76 min with drug and 500.86 ± 44.58 min with saline.")).toEqual([]);
    expect(timesIn("Block lasted 621.67 ± 46.76 min with drug and 500.86 ± 44.58 min.", [], false).length).toBe(2);
    // Whole numbers are still times: two follow-up times are still two.
    expect(timesIn("Pain at 6 weeks and at 12 weeks was lower.")).toHaveLength(2);
    const text = [
      "# Results",
      "The duration of analgesia was 412.35 ± 38.64 min in the nerve block group and 288.12 ± 41.27 min in the infiltration group.",
    ].join("\n\n");
    const question = { intervention: "nerve block", comparator: "infiltration", outcome: "duration of analgesia" };
    const report = parseReport(text, "markdown");
    const before = extractArms(report, question, { ...none, withholdInconsistent: true });
    expect(before.intervention.mean).toBeNull();
    expect(before.reason?.intervention.mean).toMatch(/follow-up times/);
    const after = extractArms(report, question, { ...on, withholdInconsistent: true });
    expect(after.intervention.mean).toBe(412.35);
    expect(after.comparator.sd).toBe(41.27);
  });

  it("is off by default: round 8's adoption rule kept no rule, round 22's did not keep bare-means", () => {
    expect([...RECALL_RULES_ON]).toEqual([]);
    const text = [
      "# Results",
      'The duration of analgesia was 412.35 ± 38.64 min in the nerve block group and 288.12 ± 41.27 min in the infiltration group. <figure> <p><img src="" /></p> <figcaption>Block</figcaption> </figure> No other outcome.',
    ].join("\n\n");
    const report = parseReport(text, "markdown");
    expect(report.text).toContain("<figure>");
    const question = { intervention: "nerve block", comparator: "infiltration", outcome: "duration of analgesia" };
    expect(extractArms(report, question, { abstainBelow: 0 }).intervention.mean).toBeNull();
  });
});
