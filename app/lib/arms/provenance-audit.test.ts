import { describe, expect, it } from "vitest";
import { pipeTable } from "../../../tests/arm-reports";
import { eventOther, populationOther, subscaleOther, unitOther, unitsIn } from "./definitions.ts";
import { HARD_GATES, HARD_GATES_ON, extractArms, parseReport } from "./index.ts";

/**
 * Round 16's definitional audit of which row, column or population a number belongs to (docs/methods/arm-extraction.md
 * "Round 16"): for each family where the core could give a number that by definition is not the quantity asked,
 * invented reports of that family. Families the core already handled keep their tests as guards; the ones it got
 * wrong are the hard rules unit-other, subscale-other, population-other and event-other (HARD_GATES), each shown off
 * (the round-15 list) and on. `abstainBelow: 0.01` shows what a rule withholds whatever the probability; 0 is the
 * bench's raw reading, which still reads the value (it stays a training value).
 */

const ROUND15_GATES = ["timepoint-other", "median-not-mean", "range-not-ci"] as const;
const question = (outcome: string) => ({ intervention: "velatrin", comparator: "placebo", outcome });
function ask(text: string, outcome: string, options: { abstainBelow?: number; off?: boolean } = {}) {
  return extractArms(parseReport(text, "markdown"), question(outcome), {
    abstainBelow: options.abstainBelow ?? 0.01,
    ...(options.off ? { hardGates: ROUND15_GATES } : {}),
  });
}
const AT12 = "Table 2. Outcomes at 12 weeks";
/** One outcome table, arms as columns (n = 48 and 50). */
const table = (row: string, a: string, b: string, caption = AT12) =>
  pipeTable(caption, ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)"], [[row, a, b]]);
const results = (body: string) => `# Results\n\n${body}`;
/** A safety table of counts, n (%). */
const events = (row: string) =>
  pipeTable(
    "Table 3. Adverse events, n (%)",
    ["Event", "Velatrin (n = 48)", "Placebo (n = 50)"],
    [[row, "12 (25.0)", "20 (40.0)"]],
  );

/** The rule withholds the mean (or events) the round-15 product gave, names itself and keeps the quote. */
function expectRuled(text: string, outcome: string, rule: string, field: "mean" | "events", wrong: number) {
  expect(ask(text, outcome, { off: true })[`intervention`][field]).toBe(wrong);
  expect(ask(text, outcome, { abstainBelow: 0 }).intervention[field]).toBe(wrong);
  const r = ask(text, outcome);
  expect(r.intervention[field]).toBeNull();
  expect(r.comparator[field]).toBeNull();
  expect(r.reason?.intervention[field]).toContain(`is wrong by definition (${rule}:`);
  expect(r.candidates?.some((q) => q.text.includes(String(wrong)))).toBe(true);
  // The product (its calibrated threshold) never gives it either.
  expect(extractArms(parseReport(text, "markdown"), question(outcome)).intervention[field]).toBeNull();
}

describe("round 16: the switches", () => {
  it("the four row rules are hard rules, on in the product", () => {
    expect([...HARD_GATES]).toEqual([
      ...ROUND15_GATES,
      "unit-other",
      "subscale-other",
      "population-other",
      "event-other",
      "outcome-elsewhere",
      "subsample-n",
      "abstract-outcome-elsewhere",
    ]);
    // Round 18's outcome-elsewhere was not kept by its adoption rule: every hard rule but it is on.
    expect([...HARD_GATES_ON]).toEqual([...HARD_GATES].filter((name) => name !== "outcome-elsewhere"));
  });
});

// Family 1: the question states a unit or scale; the row, column, caption or sentence states another.
describe("family 1, unit-other: a number in another unit or on another scale is not the number asked", () => {
  it("reads the units and scales a label states, and not a CI level or a count's notation", () => {
    const units = (t: string, percent = true) => unitsIn(t, percent).map((u) => u.unit);
    expect(units("Body weight (kg)")).toEqual(["kg"]);
    expect(units("HbA1c (mmol/mol)")).toEqual(["mmol/mol"]);
    expect(units("HbA1c (%)")).toEqual(["%"]);
    expect(units("Pain, VAS (0–100 mm)")).toEqual(["0–100 scale", "mm"]);
    expect(units("FEV1 % predicted")).toEqual(["% predicted"]);
    expect(units("FEV1 (L)")).toEqual(["L"]);
    expect(units("LDL cholesterol, % change from baseline")).toEqual(["relative (%) change"]);
    expect(units("Systolic blood pressure (mm Hg)")).toEqual(["mmHg"]);
    expect(units("BMI (kg/m2)")).toEqual(["kg/m²"]);
    expect(units("Mean difference (95% CI)")).toEqual([]);
    expect(units("Nausea, n (%)")).toEqual([]);
    expect(units("Velatrin (n = 48), %", false)).toEqual([]);
    expect(units("Pain at weeks 0–12")).toEqual([]);
    // One scale however its lower end is written.
    expect(unitOther("pain (0-10)", { row: "Pain (1–10)" })).toBeNull();
  });

  for (const [label, row, outcome, a, b, found] of [
    [
      "kg asked, lb read",
      "Body weight (lb)",
      "body weight (kg)",
      "180.1 (20.2)",
      "182.6 (21.5)",
      "kg and the reading is in lb",
    ],
    [
      "HbA1c % asked, mmol/mol read",
      "HbA1c (mmol/mol)",
      "HbA1c (%)",
      "53.1 (8.2)",
      "58.6 (9.5)",
      "% and the reading is in mmol/mol",
    ],
    [
      "0–10 VAS asked, 0–100 mm read",
      "Pain, VAS (0–100 mm)",
      "pain on a 0–10 VAS",
      "31 (12)",
      "46 (15)",
      "0–10 scale and the reading is in 0–100 scale",
    ],
    [
      "relative change asked, mg/dL read",
      "LDL cholesterol, change from baseline (mg/dL)",
      "percent change in LDL cholesterol from baseline",
      "-35.1 (8.2)",
      "-3.6 (9.5)",
      "relative (%) change and the reading is in mg/dL",
    ],
  ] as const) {
    it(`${label}: withheld whatever its probability (the round-15 product gave it)`, () => {
      const text = results(table(row, a, b));
      expectRuled(text, outcome, "unit-other", "mean", Number(a.split(" ")[0]));
      expect(ask(text, outcome).reason?.intervention.mean).toContain(`unit-other: the question asks for ${found}`);
    });
  }

  it("a caption stating the only unit, and a sentence stating its unit, count too", () => {
    expectRuled(
      results(table("Body weight", "180.1 (20.2)", "182.6 (21.5)", "Table 2. Body weight (lb) at 12 weeks")),
      "body weight (kg)",
      "unit-other",
      "mean",
      180.1,
    );
    const sentence = results(
      "At 12 weeks HbA1c was 53.1 ± 8.2 mmol/mol in the velatrin group (n = 48) and 58.6 ± 9.5 mmol/mol in the placebo group (n = 50).",
    );
    expectRuled(sentence, "HbA1c (%)", "unit-other", "mean", 53.1);
  });

  it("does not apply when either side states no unit, the units agree, or they measure different things", () => {
    expect(
      ask(results(table("Body weight (lb)", "180.1 (20.2)", "182.6 (21.5)")), "body weight").intervention.mean,
    ).toBe(180.1);
    expect(ask(results(table("Body weight", "80.1 (10.2)", "82.6 (11.5)")), "body weight (kg)").intervention.mean).toBe(
      80.1,
    );
    expect(
      ask(results(table("Body weight (kg)", "80.1 (10.2)", "82.6 (11.5)")), "body weight (kg)").intervention.mean,
    ).toBe(80.1);
    // A 10 cm VAS is a 0–10 scale: a length and a range are not two units of one quantity.
    expect(ask(results(table("Pain, VAS (cm)", "3.1 (1.2)", "4.6 (1.5)")), "pain (0-10 VAS)").intervention.mean).toBe(
      3.1,
    );
    // Both units stated on the row: the question's is among them.
    expect(unitOther("body weight (kg)", { row: "Body weight, kg (lb)" })).toBeNull();
    // A caption listing several units says nothing about the row's.
    expect(unitOther("HbA1c (%)", { row: "HbA1c", caption: "Weight in kg, glucose in mmol/L" })).toBeNull();
    // An absolute change in a measure stated in % is still in %.
    expect(unitOther("absolute change in HbA1c (%)", { row: "HbA1c change (%)" })).toBeNull();
  });
});

// Family 2: relative against absolute change.
describe("family 2: relative (%) against absolute change", () => {
  it("explicit on both sides is unit-other (absolute change asked, % change read; and the reverse above)", () => {
    expect(unitOther("absolute change in body weight", { row: "Body weight, percent change" })).toContain(
      "absolute change and the reading is in relative (%) change",
    );
    expect(unitOther("change in body weight (kg)", { row: "Weight change (%)" })).toContain(
      "kg and the reading is in %",
    );
  });

  it("a change question naming no scale, read at a '% change' column: left to the calibrated confidence", () => {
    const text = results(
      pipeTable(
        AT12,
        ["Outcome", "Velatrin (n = 48), percent change", "Placebo (n = 50), percent change"],
        [["LDL cholesterol", "-25.1 (8.2)", "-3.6 (9.5)"]],
      ),
    );
    const r = ask(text, "change in LDL cholesterol from baseline");
    expect(r.reason?.intervention.mean ?? "").not.toContain("unit-other");
    expect(r.intervention.mean).toBe(-25.1);
  });
});

// Family 3: another component or condition of the same measure.
describe("family 3, subscale-other: another component of the measure is not the component asked", () => {
  for (const [label, row, outcome, a, b] of [
    [
      "SF-36 physical for mental component",
      "SF-36 physical component summary",
      "SF-36 mental component summary",
      "41.1 (8.2)",
      "38.6 (9.5)",
    ],
    [
      "diastolic for systolic pressure",
      "Diastolic blood pressure (mmHg)",
      "systolic blood pressure",
      "81.1 (8.2)",
      "84.6 (9.5)",
    ],
  ] as const) {
    it(`${label}: withheld whatever its probability (the round-15 product gave it)`, () => {
      expectRuled(results(table(row, a, b)), outcome, "subscale-other", "mean", Number(a.split(" ")[0]));
    });
  }

  it("a component named only by its row under a section row is judged with the section row", () => {
    const text = results(
      pipeTable(
        AT12,
        ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)"],
        [
          ["SF-36", "", ""],
          ["Physical component", "41.1 (8.2)", "38.6 (9.5)"],
        ],
      ),
    );
    expectRuled(text, "SF-36 mental component", "subscale-other", "mean", 41.1);
  });

  it("already handled (round 5 row-qualifier; guards): pain at rest for pain on movement and the reverse", () => {
    expect(
      ask(results(table("Pain at rest (0-10)", "3.1 (1.2)", "4.6 (1.5)")), "pain on movement").intervention.mean,
    ).toBeNull();
    expect(
      ask(results(table("Pain on movement (0-10)", "3.1 (1.2)", "4.6 (1.5)")), "pain at rest").intervention.mean,
    ).toBeNull();
  });

  it("the question's own component, both named, or none named: not applied", () => {
    const both = results(
      pipeTable(
        AT12,
        ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)"],
        [
          ["SF-36 physical component summary", "41.1 (8.2)", "38.6 (9.5)"],
          ["SF-36 mental component summary", "45.1 (7.2)", "44.6 (7.5)"],
        ],
      ),
    );
    expect(ask(both, "SF-36 mental component summary").intervention.mean).toBe(45.1);
    expect(subscaleOther("SF-36 mental component", "SF-36 physical and mental components")).toBeNull();
    expect(subscaleOther("blood pressure", "Diastolic blood pressure")).toBeNull();
  });
});

// Family 4: the analysis population the question names against the one the reading's labels name.
describe("family 4, population-other: the intention-to-treat population is not the per-protocol one asked", () => {
  it("a table captioned intention-to-treat, for a per-protocol question: withheld (the round-15 product gave it)", () => {
    const text = results(
      table("Pain score (0-10)", "3.1 (1.2)", "4.6 (1.5)", `${AT12} (intention-to-treat population)`),
    );
    expectRuled(text, "pain score (per-protocol population)", "population-other", "mean", 3.1);
  });

  it("a sentence naming the intention-to-treat population, for a completers question: withheld", () => {
    const text = results(
      "In the intention-to-treat population, the pain score at 12 weeks was 3.1 ± 1.2 in the velatrin group (n = 48) and 4.6 ± 1.5 in the placebo group (n = 50).",
    );
    expectRuled(text, "pain score in completers", "population-other", "mean", 3.1);
  });

  it("already handled (round 5 population-named; guards): a per-protocol table for an ITT question, or for completers", () => {
    const pp = results(table("Pain score (0-10)", "3.1 (1.2)", "4.6 (1.5)", `${AT12} (per-protocol population)`));
    for (const outcome of ["pain score (intention-to-treat)", "pain score in completers"]) {
      const r = ask(pp, outcome);
      expect(r.intervention.mean).toBeNull();
      expect(r.reason?.intervention.mean).toContain("population: read under a per-protocol label");
    }
  });

  it("one side naming no population, the same population, or a modified ITT: not applied", () => {
    const itt = results(
      table("Pain score (0-10)", "3.1 (1.2)", "4.6 (1.5)", `${AT12} (intention-to-treat population)`),
    );
    expect(ask(itt, "pain score").intervention.mean).toBe(3.1);
    expect(
      ask(results(table("Pain score (0-10)", "3.1 (1.2)", "4.6 (1.5)")), "pain score (per-protocol)").intervention.mean,
    ).toBe(3.1);
    expect(populationOther("pain score (per-protocol)", "Outcomes | per-protocol population")).toBeNull();
    expect(
      populationOther("pain score (per-protocol)", "Outcomes (modified intention-to-treat population)"),
    ).toBeNull();
    // Both populations in the caption: the row and columns read decide.
    expect(
      populationOther("pain score (per-protocol)", "ITT and per-protocol analyses | Pain score, PP", "Pain score, PP"),
    ).toBeNull();
  });
});

// Family 5: the event type the question names against the row's explicit contrary.
describe("family 5, event-other: every event, or the negation, is not the restricted event asked", () => {
  for (const [row, outcome] of [
    ["Any adverse event", "serious adverse events"],
    ["All adverse events", "treatment-related adverse events"],
    ["Non-fatal myocardial infarction", "fatal myocardial infarction"],
    ["Fatal myocardial infarction", "non-fatal myocardial infarction"],
    ["Non-serious adverse events", "serious adverse events"],
  ] as const) {
    it(`"${row}" for "${outcome}": withheld whatever its probability (the round-15 product gave it)`, () => {
      expectRuled(results(events(row)), outcome, "event-other", "events", 12);
    });
  }

  it("already handled (round 5 row-qualifier; guards): a serious, graded or attributed row for any adverse event", () => {
    for (const row of ["Serious adverse events", "Grade ≥3 adverse events", "Treatment-related adverse events"])
      expect(ask(results(events(row)), "any adverse event").intervention.events).toBeNull();
  });

  it("an unqualified row, the question's own qualifier, or an unrestricted question: not applied", () => {
    // "Adverse events" states neither: left to the calibrated confidence (not definitional).
    expect(
      ask(results(events("Adverse events")), "serious adverse events").reason?.intervention.events ?? "",
    ).not.toContain("event-other");
    expect(ask(results(events("Any adverse event")), "adverse events").intervention.events).toBe(12);
    expect(eventOther("serious adverse events", "Any serious adverse event")).toBeNull();
    expect(eventOther("cardiovascular death", "Cardiovascular death")).toBeNull();
    expect(eventOther("serious adverse events", "Patients with any SAE")).toBeNull();
    expect(eventOther("cardiovascular death", "Death, all causes")).toContain("events of any kind");
  });
});
