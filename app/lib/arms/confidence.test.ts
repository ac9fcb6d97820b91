import { describe, expect, it } from "vitest";
import { pipeTable } from "../../../tests/arm-reports";
import { ABSTAIN_BELOW, extractArms, parseReport } from "./index.ts";
import { applyEdit, type ArmStudyRow } from "./review.ts";

/**
 * Precision first: every value carries a confidence and a reason, and a value without showable,
 * matching evidence is withheld ('not found', with the candidate's quotes). All reports below are
 * invented, one per family of reports the rules serve.
 */
/** A table as pandoc writes one from JATS: a captioned table-wrap around a pipe table. */

function ask(
  text: string,
  intervention: string,
  comparator: string,
  outcome: string,
  options: Parameters<typeof extractArms>[2] = {},
) {
  return extractArms(parseReport(text, "markdown"), { intervention, comparator, outcome }, options);
}
/** Round 2's gate (every evidence item shown; the bench's comparison): tests that an item is detected. */
const ITEMS = { gate: "evidence-items" } as const;

describe("confidence and reason per value", () => {
  // Family: outcome tables with one column per arm, the group size in the column header and 'mean (SD)' cells.
  const outcomeTable = pipeTable(
    "Table 2. Outcomes at 12 weeks",
    ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)", "P"],
    [
      ["Pain score (0-10)", "3.1 (1.2)", "4.6 (1.5)", "<0.001"],
      ["Sleep hours", "6.9 (0.8)", "6.1 (1.1)", "0.01"],
    ],
  );

  it("gives a matched table row's values with a confidence ≥ the threshold and names the row and columns", () => {
    const r = ask(`Results.\n\n${outcomeTable}`, "velatrin", "placebo", "pain score");
    expect(r.intervention).toMatchObject({ mean: 3.1, sd: 1.2, groupSize: 48 });
    expect(r.comparator).toMatchObject({ mean: 4.6, sd: 1.5, groupSize: 50 });
    expect(r.confidence?.intervention.mean).toBeGreaterThanOrEqual(ABSTAIN_BELOW);
    expect(r.confidence?.intervention.mean).toBeLessThanOrEqual(1);
    expect(r.confidence?.intervention.events).toBeNull();
    expect(r.reason?.intervention.mean).toContain('row "Pain score (0-10)"');
    expect(r.reason?.intervention.mean).toContain('"Velatrin (n = 48)" / "Placebo (n = 50)"');
    expect(r.reason?.comparator.groupSize).toContain("Placebo (n = 50)");
  });

  it("says 'not found' for fields of the outcome type that no evidence gives", () => {
    const r = ask(`Results.\n\n${outcomeTable}`, "velatrin", "placebo", "quality of life");
    expect(r.intervention.mean).toBeNull();
    expect(r.reason?.intervention.mean).toMatch(/^not found/);
  });

  // Family: tables of mean changes from baseline ("Mean change in …"), asked about the value itself.
  it("withholds a change-from-baseline table's numbers for a question about values, keeping them as candidates", () => {
    const changes = pipeTable(
      "Table 3. Mean change from baseline in lipids after 16 weeks",
      ["Parameter", "Rosuvex (n = 30)", "Placebo (n = 31)"],
      [["LDL cholesterol (mg/dl)", "-28.4 (12.0)", "-2.1 (10.3)"]],
    );
    // Calibrated (ADR 0044): the mismatch is one missing item among the features and the fitted model still rates
    // this table row high, so the value is given with the missing item in its reason (a known weakness, ADR 0044).
    const calibrated = ask(`Results.\n\n${changes}`, "rosuvex", "placebo", "LDL cholesterol");
    expect(calibrated.intervention.mean).toBe(-28.4);
    expect(calibrated.reason?.intervention.mean).toMatch(
      /estimated probability right \d\.\d\d; 6\/7 evidence items; .*missing: outcome: changes from baseline where the question asks for values/,
    );
    const r = ask(`Results.\n\n${changes}`, "rosuvex", "placebo", "LDL cholesterol", ITEMS);
    expect(r.intervention.mean).toBeNull();
    expect(r.comparator.sd).toBeNull();
    expect(r.reason?.intervention.mean).toMatch(/^not found: the best candidate \(-28\.4/);
    expect(r.reason?.intervention.mean).toContain("changes from baseline where the question asks for values");
    expect(r.candidates?.some((q) => q.text.includes("-28.4"))).toBe(true);
    // Asked for the change, the same table is the evidence.
    const asked = ask(`Results.\n\n${changes}`, "rosuvex", "placebo", "change in LDL cholesterol");
    expect(asked.intervention).toMatchObject({ mean: -28.4, sd: 12 });
  });

  // Family: baseline-characteristics tables with percentages under 'Group (n = N)' headers, asked for a baseline proportion.
  it("reads a baseline question from the baseline table and names the Handbook derivation of events from %", () => {
    const baseline = pipeTable(
      "Table 1. Baseline characteristics",
      ["Characteristic", "Coaching (n = 40)", "Usual care (n = 44)"],
      [
        ["Age, years", "61 (9)", "63 (8)"],
        ["Diabetes, %", "45", "25"],
      ],
    );
    const r = ask(`Methods.\n\n${baseline}`, "coaching", "usual care", "Baseline diabetes");
    expect(r.outcomeType).toBe("binary");
    expect(r.intervention).toMatchObject({ events: 18, groupSize: 40 });
    expect(r.comparator).toMatchObject({ events: 11, groupSize: 44 });
    expect(r.derived).toContainEqual({ arm: "intervention", field: "events", from: "45% of n = 40" });
    expect(r.reason?.intervention.events).toContain("Cochrane Handbook 6.5.2");
  });

  // Family: tables with several timepoints per arm; the question names none.
  it("says which timepoint it took when the question names none", () => {
    const timed = pipeTable(
      "Table 2. Weight by visit",
      ["Outcome", "Diet 4 weeks", "Control 4 weeks", "Diet 12 weeks", "Control 12 weeks"],
      [["Body weight (kg)", "81.0 ± 9.0", "82.2 ± 8.7", "78.4 ± 8.8", "82.0 ± 9.1"]],
    );
    // The last column by position is a guess: withheld by round 2's gate, the candidate shown with the reason.
    const r = ask(`Results.\n\n${timed}`, "diet", "control", "body weight", ITEMS);
    expect(r.intervention.mean).toBeNull();
    expect(r.reason?.intervention.mean).toMatch(
      /not found: the best candidate \(78\.4.*the last timepoint .*12 weeks.* \(the question names none\).*missing: timepoint: several and the question names none/,
    );
    expect(r.candidates?.some((q) => q.text.includes("78.4"))).toBe(true);
    const at4 = ask(`Results.\n\n${timed}`, "diet", "control", "body weight at 4 weeks");
    expect(at4.intervention.mean).toBe(81);
    expect(at4.reason?.intervention.mean).toContain("the question's timepoint (4w)");
  });

  // Family: three-arm trials with an active and a placebo control; another table has only the active arm and placebo.
  it("does not give the placebo column's n to an active comparator matched only by role", () => {
    const text = [
      "Results.",
      "",
      pipeTable(
        "Table 4. Adverse events",
        ["Event", "Coxabrin (N = 210)", "Placebo (N = 105)"],
        [["Headache", "12", "6"]],
      ),
    ].join("\n");
    const r = ask(text, "coxabrin", "naprolen 500 mg", "tender joint count");
    expect(r.comparator.groupSize).toBeNull();
  });

  // Family: tables whose cells are medians with interquartile ranges: a median is not a mean.
  it("abstains from a 'median [IQR]' cell for a mean", () => {
    const medians = pipeTable(
      "Table 2. Length of stay, median [IQR]",
      ["Outcome", "Early feeding (n = 60)", "Standard (n = 58)"],
      [["Length of stay, days", "5 [4-7]", "6 [5-9]"]],
    );
    const r = ask(`Results.\n\n${medians}`, "early feeding", "standard", "length of stay");
    expect(r.intervention.mean).toBeNull();
    expect(r.comparator.mean).toBeNull();
  });

  it("can run without abstention (the bench's calibration mode)", () => {
    const changes = pipeTable(
      "Table 3. Mean change from baseline in lipids after 16 weeks",
      ["Parameter", "Rosuvex (n = 30)", "Placebo (n = 31)"],
      [["LDL cholesterol (mg/dl)", "-28.4 (12.0)", "-2.1 (10.3)"]],
    );
    const r = extractArms(
      parseReport(`Results.\n\n${changes}`, "markdown"),
      { intervention: "rosuvex", comparator: "placebo", outcome: "LDL cholesterol" },
      { abstainBelow: 0, gate: "evidence-items" },
    );
    expect(r.intervention.mean).toBe(-28.4);
    expect(r.confidence?.intervention.mean).toBeCloseTo(0.86, 2);
    // The consistency and provenance checks stay hard gates whatever the threshold: 48 + 50 exceed the 60 randomised.
    const table = pipeTable(
      "Table 2. Outcomes at 12 weeks",
      ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)"],
      [["Pain score (0-10)", "3.1 (1.2)", "4.6 (1.5)"]],
    );
    const text = `Methods.\n\nWe randomised 60 patients.\n\nResults.\n\n${table}`;
    const raw = ask(text, "velatrin", "placebo", "pain score", { abstainBelow: 0 });
    expect(raw.intervention.mean).toBeNull();
    expect(raw.reason?.intervention.mean).toMatch(/fails a consistency or provenance check .*exceeds the 60/);
    expect(
      ask(text, "velatrin", "placebo", "pain score", { abstainBelow: 0, withholdInconsistent: false }).intervention
        .mean,
    ).toBe(3.1);
  });
});

describe("reviewer edits", () => {
  it("marks an edited value as entered by the reviewer with confidence 1", () => {
    const text = `Results.\n\n${pipeTable("Table 2. Outcomes", ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)"], [["Pain score", "3.1 (1.2)", "4.6 (1.5)"]])}`;
    const result = ask(text, "velatrin", "placebo", "pain score");
    const row: ArmStudyRow = { studyId: "s1", title: "Trial", source: { text, format: "markdown" }, result, audit: [] };
    const edited = applyEdit(row, "intervention", "sd", 1.3, "ana@example.org", new Date("2026-01-01T00:00:00Z"));
    expect(edited.result.confidence?.intervention.sd).toBe(1);
    expect(edited.result.reason?.intervention.sd).toBe("entered by ana@example.org");
    expect(edited.result.confidence?.intervention.mean).toBe(result.confidence?.intervention.mean);
  });
});

describe("arm matching by meaning (invented reports)", () => {
  // Family: pandoc markdown from JATS, where statistical symbols are italic ("(*n* = 11)").
  it("reads group sizes written with italic n in the text", () => {
    const text =
      "Methods. Patients were randomized to gelocaine (*n* = 31) or saline (*n* = 29). Results. Nausea occurred in 4 of 31 and 11 of 29 patients, respectively.";
    const report = parseReport(text, "markdown");
    expect(report.text).toContain("(n = 31) or saline (n = 29)");
  });

  // Family: two-arm trials whose control arm is named by what it received ("HA alone") while the question says "control".
  it("takes the one remaining group column as a generically named comparator", () => {
    const table = pipeTable(
      "Table 3. Knee outcomes at 24 months",
      ["Outcome", "Stem cells + HA (n = 12)", "HA alone (n = 7)", "p"],
      [["Pain score", "21.0 (5.0)", "30.5 (6.1)", "0.02"]],
    );
    const r = ask(`Results.\n\n${table}`, "stem cells", "control", "pain score", ITEMS);
    expect(r.intervention).toMatchObject({ mean: 21, sd: 5, groupSize: 12 });
    expect(r.comparator).toMatchObject({ mean: 30.5, sd: 6.1, groupSize: 7 });
    // Calibrated: an arm found by elimination lowers the probability below the threshold; the candidate is kept.
    const calibrated = ask(`Results.\n\n${table}`, "stem cells", "control", "pain score");
    expect(calibrated.comparator.mean).toBeNull();
    expect(calibrated.reason?.comparator.mean).toMatch(
      /too uncertain .*arms: the intervention named, the comparator the only other group/,
    );
    expect(calibrated.candidates?.some((q) => q.text.includes("30.5"))).toBe(true);
    // With two other group columns the comparator is not known: nothing is given.
    const three = pipeTable(
      "Table 3. Knee outcomes at 24 months",
      ["Outcome", "Stem cells + HA (n = 12)", "HA alone (n = 7)", "Saline (n = 8)"],
      [["Pain score", "21.0 (5.0)", "30.5 (6.1)", "33.0 (4.0)"]],
    );
    expect(ask(`Results.\n\n${three}`, "stem cells", "control", "pain score").comparator.mean).toBeNull();
  });

  // Family: arms abbreviated in the plural where defined ("… precursor cells (MPCs)") and in the singular in group names.
  it("matches a singular group name to an abbreviation defined in the plural", () => {
    const text = [
      "Methods. Patients received allogeneic stromal precursor cells (SPCs) or placebo.",
      "",
      pipeTable(
        "Table 2. Outcomes at 12 months",
        ["Outcome", "SPC group (n = 20)", "Placebo (n = 10)"],
        [["Joint space width, mm", "3.9 (0.5)", "3.4 (0.6)"]],
      ),
    ].join("\n");
    const r = ask(text, "Allogeneic stromal precursor cells", "placebo", "joint space width");
    expect(r.intervention).toMatchObject({ mean: 3.9, sd: 0.5, groupSize: 20 });
  });

  // Family: group names shorter than the question's arm, with Latin plurals ("Estradiol–lactobacilli").
  it("matches a short group name whose words are all in the arm's longer name", () => {
    const table = pipeTable(
      "Table 1. Baseline characteristics",
      ["Characteristic", "Estradiol–lactobacilli (n = 40)", "Placebo (n = 41)"],
      [["Height (cm)", "160.2 ± 5.5", "158.9 ± 6.0"]],
    );
    const r = extractArms(
      parseReport(`Methods.\n\n${table}`, "markdown"),
      {
        intervention: "vaginal estradiol plus viable Lactobacillus gasseri",
        comparator: "placebo",
        outcome: "Baseline characteristics: height",
      },
      { abstainBelow: 0 },
    );
    expect(r.intervention).toMatchObject({ mean: 160.2, sd: 5.5, groupSize: 40 });
    expect(r.reason?.intervention.mean, r.reason?.intervention.mean ?? "").toContain(
      "a label names only part of the arm",
    );
  });
});

describe("derivations shown with their source (invented reports)", () => {
  // Family: small trials reporting means per arm with only a p value for the comparison.
  it("offers a pooled SD from an exact p value (Handbook 6.5.2.3) for the reviewer, below the threshold", () => {
    const table = pipeTable(
      "Table 2. Outcomes at 8 weeks",
      ["Outcome", "Yoga (n = 25)", "Waiting list (n = 22)", "P value"],
      [["Anxiety score", "12.1", "15.9", "0.0274"]],
    );
    const text = `Results.\n\n${table}`;
    const r = ask(text, "yoga", "waiting list", "anxiety score");
    expect(r.intervention).toMatchObject({ mean: 12.1, groupSize: 25, sd: null });
    expect(r.reason?.intervention.sd).toMatch(
      /^not found: .*pooled SD = \|MD\| \/ \|t\| \/ √\(1\/n₁ \+ 1\/n₂\) from p = 0\.0274 .*Cochrane Handbook 6\.5\.2\.3/,
    );
    const all = extractArms(
      parseReport(text, "markdown"),
      { intervention: "yoga", comparator: "waiting list", outcome: "anxiety score" },
      { abstainBelow: 0 },
    );
    // |MD| 3.8 with t(45 df) = 2.28 for p = 0.0274: SD = 3.8 / 2.28 / √(1/25 + 1/22) ≈ 5.70 (R: qt(1 - 0.0137, 45)).
    expect(all.intervention.sd).toBeCloseTo(5.7, 1);
    expect(all.comparator.sd).toBe(all.intervention.sd);
    // A bound ("<0.05") is not an exact p: nothing is derived.
    const bound = pipeTable(
      "Table 2. Outcomes at 8 weeks",
      ["Outcome", "Yoga (n = 25)", "Waiting list (n = 22)", "P value"],
      [["Anxiety score", "12.1", "15.9", "<0.05"]],
    );
    const none = extractArms(
      parseReport(`Results.\n\n${bound}`, "markdown"),
      { intervention: "yoga", comparator: "waiting list", outcome: "anxiety score" },
      { abstainBelow: 0 },
    );
    expect(none.intervention.sd).toBeNull();
  });
});
