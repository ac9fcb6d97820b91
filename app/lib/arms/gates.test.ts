import { describe, expect, it } from "vitest";
import { pipeTable } from "../../../tests/arm-reports";
import { DEFINITIONAL_GATES, extractArms, parseReport } from "./index.ts";

/**
 * Round 7's definitional gates (docs/methods/arm-extraction.md "Round 7", ADR 0044): a value whose reading is of
 * another kind than the question asks is withheld whatever its probability, and the reason names the gate. Each
 * test reads with no probability threshold (`abstainBelow: 0`), so only the gate can withhold, and shows the same
 * value given with the gates off. The gates are off by default (round 7's adoption rule did not keep them).
 * Every report below is invented, one per family of reports the gate serves.
 */

function ask(text: string, intervention: string, comparator: string, outcome: string, definitionalGates: boolean) {
  return extractArms(
    parseReport(text, "markdown"),
    { intervention, comparator, outcome },
    { abstainBelow: 0, definitionalGates },
  );
}

describe("definitional gates (invented reports)", () => {
  it("lists the four gates", () => {
    expect([...DEFINITIONAL_GATES]).toEqual([
      "outcome-kind",
      "timepoint-by-position",
      "not-one-sentence",
      "ambiguous-n",
    ]);
  });

  // Family: tables of mean changes from baseline ("Mean change in …"), asked about the value itself.
  it("outcome-kind: withholds change-from-baseline values for a question about values", () => {
    const changes = pipeTable(
      "Table 3. Mean change from baseline in lipids after 16 weeks",
      ["Parameter", "Rosuvex (n = 30)", "Placebo (n = 31)"],
      [["LDL cholesterol (mg/dl)", "-28.4 (12.0)", "-2.1 (10.3)"]],
    );
    const text = `Results.\n\n${changes}`;
    expect(ask(text, "rosuvex", "placebo", "LDL cholesterol", false).intervention.mean).toBe(-28.4);
    const gated = ask(text, "rosuvex", "placebo", "LDL cholesterol", true);
    expect(gated.intervention.mean).toBeNull();
    expect(gated.comparator.sd).toBeNull();
    expect(gated.reason?.intervention.mean).toMatch(
      /^not found: the best candidate \(-28\.4, confidence \d\.\d\d\) fails a definitional gate \(outcome-kind: changes from baseline where the question asks for values\)/,
    );
    expect(gated.candidates?.some((q) => q.text.includes("-28.4"))).toBe(true);
    // Asked for the change, the same table is of the kind asked: no gate.
    expect(ask(text, "rosuvex", "placebo", "change in LDL cholesterol", true).intervention.mean).toBe(-28.4);
  });

  // Family: a question about baseline values, where the report's only table of the outcome is of results.
  it("outcome-kind: withholds a result table's values for a question about baseline values", () => {
    const results = pipeTable(
      "Table 2. Outcomes at 12 weeks",
      ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)"],
      [["Pain score (0-10)", "3.1 (1.2)", "4.6 (1.5)"]],
    );
    const text = `Results.\n\n${results}`;
    expect(ask(text, "velatrin", "placebo", "baseline pain score", false).intervention.mean).toBe(3.1);
    const gated = ask(text, "velatrin", "placebo", "baseline pain score", true);
    expect(gated.intervention.mean).toBeNull();
    expect(gated.reason?.intervention.mean).toContain(
      "fails a definitional gate (outcome-kind: the question asks for baseline values and the reading is not of baseline values)",
    );
  });

  // Family: outcome tables whose row pools alternative drugs ("ACE inhibitor or ARB"), asked about one of them.
  it("outcome-kind: withholds a row pooling alternatives of which the question names one", () => {
    const pooled = pipeTable(
      "Table 2. Medication use at 6 months",
      ["Medication", "Nurse-led care (n = 60)", "Usual care (n = 58)"],
      [["ACE inhibitor or angiotensin receptor blocker", "41 (68.3)", "30 (51.7)"]],
    );
    const text = `Results.\n\n${pooled}`;
    const free = ask(text, "nurse-led care", "usual care", "ACE inhibitor use", false);
    expect(free.intervention.events).toBe(41);
    const gated = ask(text, "nurse-led care", "usual care", "ACE inhibitor use", true);
    expect(gated.intervention.events).toBeNull();
    expect(gated.reason?.intervention.events).toContain(
      "fails a definitional gate (outcome-kind: the row pools alternatives of which the question names one)",
    );
  });

  // Family: tables with several follow-up columns, none marked as the end of treatment, asked with no time.
  it("timepoint-by-position: withholds the last column taken by position, not a column labelled post-treatment", () => {
    const byVisit = pipeTable(
      "Table 2. Weight by visit",
      ["Outcome", "Diet 4 weeks", "Control 4 weeks", "Diet 12 weeks", "Control 12 weeks"],
      [["Body weight (kg)", "81.0 ± 9.0", "82.2 ± 8.7", "78.4 ± 8.8", "82.0 ± 9.1"]],
    );
    const text = `Results.\n\n${byVisit}`;
    expect(ask(text, "diet", "control", "body weight", false).intervention.mean).toBe(78.4);
    const gated = ask(text, "diet", "control", "body weight", true);
    expect(gated.intervention.mean).toBeNull();
    expect(gated.reason?.intervention.mean).toContain(
      "fails a definitional gate (timepoint-by-position: several times, the question names none and no column is labelled post-treatment)",
    );
    // The question names the time: shown, not chosen.
    expect(ask(text, "diet", "control", "body weight at 12 weeks", true).intervention.mean).toBe(78.4);
    const post = pipeTable(
      "Table 2. Weight",
      ["Outcome", "Diet baseline", "Control baseline", "Diet post-treatment", "Control post-treatment"],
      [["Body weight (kg)", "84.0 ± 9.0", "83.2 ± 8.7", "78.4 ± 8.8", "82.0 ± 9.1"]],
    );
    expect(ask(`Results.\n\n${post}`, "diet", "control", "body weight", true).intervention.mean).toBe(78.4);
  });

  // Family: results paragraphs glued to figure markup by the converter (one long "sentence").
  it("not-one-sentence: withholds numbers from a run of text the splitter did not break", () => {
    const glued = `Results.\n\nThe groups were comparable. <aside> <p>Block characteristics</p> </aside> The duration of analgesia was 878.3 ± 90.0 min with clonidine and 613.1 ± 51.8 min with saline.`;
    expect(ask(glued, "clonidine", "saline", "duration of analgesia", false).intervention.mean).toBe(878.3);
    const gated = ask(glued, "clonidine", "saline", "duration of analgesia", true);
    expect(gated.intervention.mean).toBeNull();
    expect(gated.reason?.intervention.mean).toContain("fails a definitional gate (not-one-sentence:");
    const clean = `Results.\n\nThe duration of analgesia was 878.3 ± 90.0 min with clonidine and 613.1 ± 51.8 min with saline.`;
    expect(ask(clean, "clonidine", "saline", "duration of analgesia", true).intervention.mean).toBe(878.3);
  });

  // Family: group sizes only in the text, which states both the allocated and the analysed numbers.
  it("ambiguous-n: withholds the text's n when the text states more than one n for the arm, not the means", () => {
    const noN = pipeTable(
      "Table 2. Outcomes at 12 weeks",
      ["Outcome", "Velatrin", "Placebo"],
      [["Pain score (0-10)", "3.1 (1.2)", "4.6 (1.5)"]],
    );
    const dropouts = `Methods.\n\nWe randomised 98 patients: 48 to velatrin and 50 to placebo.\n\nResults.\n\nIn the end, 41 patients in the velatrin group (n = 41) and 47 in the placebo group (n = 47) were analysed; 48 to velatrin had been allocated.\n\n${noN}`;
    const free = ask(dropouts, "velatrin", "placebo", "pain score", false);
    expect(free.intervention.groupSize).not.toBeNull();
    const gated = ask(dropouts, "velatrin", "placebo", "pain score", true);
    expect(gated.intervention.mean).toBe(3.1);
    expect(gated.intervention.groupSize).toBeNull();
    expect(gated.reason?.intervention.groupSize).toContain(
      "fails a definitional gate (ambiguous-n: the text states more than one n for the arm and the values' table gives none)",
    );
    // One n stated for the arm: not ambiguous.
    const one = `Methods.\n\nWe randomised 98 patients: 48 to velatrin and 50 to placebo.\n\nResults.\n\n${noN}`;
    expect(ask(one, "velatrin", "placebo", "pain score", true).intervention.groupSize).toBe(48);
  });

  it("is off in the product by default (round 7's adoption rule) and never withholds a fully evidenced row", () => {
    const byVisit = pipeTable(
      "Table 2. Weight by visit",
      ["Outcome", "Diet 4 weeks", "Control 4 weeks", "Diet 12 weeks", "Control 12 weeks"],
      [["Body weight (kg)", "81.0 ± 9.0", "82.2 ± 8.7", "78.4 ± 8.8", "82.0 ± 9.1"]],
    );
    const r = extractArms(
      parseReport(`Results.\n\n${byVisit}`, "markdown"),
      { intervention: "diet", comparator: "control", outcome: "body weight" },
      { abstainBelow: 0 },
    );
    expect(r.intervention.mean).toBe(78.4);
    const named = pipeTable(
      "Table 2. Outcomes at 12 weeks",
      ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)"],
      [["Pain score (0-10)", "3.1 (1.2)", "4.6 (1.5)"]],
    );
    const full = ask(`Results.\n\n${named}`, "velatrin", "placebo", "pain score", true);
    expect(full.intervention).toMatchObject({ mean: 3.1, sd: 1.2, groupSize: 48 });
  });
});
