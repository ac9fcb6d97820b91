import { describe, expect, it } from "vitest";
import { pipeTable } from "../../../tests/arm-reports";
import { extractArms, parseReport, PROVENANCE_CHECKS, READING_CHECKS } from "./index.ts";
import {
  baselineColumnCheck,
  kindCheck,
  populationCheck,
  qualifierCheck,
  restrictedPopulation,
  sameNumber,
  sentenceTimeCheck,
  subItemCheck,
  thresholdCheck,
  timesIn,
} from "./provenance.ts";

/**
 * Provenance checks (round 5 of issue 26 item 1): a number is given only when nothing shows it belongs to another
 * population, time or row than the question's, and no other reading as well matched gives other numbers. Every
 * report below is invented, one per family of reports the check serves.
 */

const ask = (text: string, outcome: string, options: Parameters<typeof extractArms>[2] = {}) =>
  extractArms(parseReport(text, "markdown"), { intervention: "velatrin", comparator: "placebo", outcome }, options);

describe("provenance checks (pure)", () => {
  it("names the restricted analyses of CONSORT's vocabulary and not the full population", () => {
    expect(restrictedPopulation("Table 3. Per-protocol population")).toBe("per-protocol");
    expect(restrictedPopulation("Outcomes among completers")).toBe("completers");
    expect(restrictedPopulation("Subgroup with diabetes")).toBe("subgroup");
    expect(restrictedPopulation("Sensitivity analysis excluding two sites")).toBe("sensitivity analysis");
    expect(restrictedPopulation("Patients aged 65 years or older")).toBe("an age stratum");
    expect(restrictedPopulation("Participants aged ≥ 70")).toBe("an age stratum");
    expect(restrictedPopulation("Intention-to-treat population (all randomised)")).toBeNull();
    expect(restrictedPopulation("Pain score at 12 weeks")).toBeNull();
  });

  it("passes a restricted population the question itself names", () => {
    expect(populationCheck("Per-protocol analysis", "pain score").ok).toBe(false);
    expect(populationCheck("Per-protocol analysis", "pain score, per-protocol population").ok).toBe(true);
    expect(populationCheck("Subgroup aged 65 or older", "pain score in the subgroup").ok).toBe(true);
  });

  it("lets the row and columns read decide when the labels name the full population too", () => {
    const caption = "Intention-to-treat and per-protocol analyses";
    expect(
      populationCheck(`${caption} | Pain score | ITT velatrin`, "pain score", "Pain score | ITT velatrin").ok,
    ).toBe(true);
    expect(populationCheck(`${caption} | Pain score | PP velatrin`, "pain score", "Pain score | Per-protocol").ok).toBe(
      false,
    );
    // A sentence naming both populations gives no row or column to decide by.
    expect(populationCheck("In the ITT and the per-protocol populations the score fell", "pain score").ok).toBe(false);
  });

  it("counts the distinct times a sentence names, 24 weeks and 6 months being one", () => {
    expect(timesIn("Pain fell by week 6 and again by 12 weeks")).toHaveLength(2);
    expect(timesIn("after 24 weeks (6 months) of treatment")).toHaveLength(1);
    expect(timesIn("at 30 min and at 2 hours after the block")).toHaveLength(2);
    expect(timesIn("no time is named here")).toHaveLength(0);
    // A duration outcome's own values are measurements, not times of assessment.
    expect(
      timesIn("analgesia lasted 613 ± 52 min with velatrin and 478 ± 61 min with placebo", [613, 52, 478, 61]),
    ).toHaveLength(0);
    expect(timesIn("stay was 6 days (SD ± 2 days) versus 9 days", [6, 9])).toHaveLength(0);
  });

  it("fails a sentence naming two times, or baseline only for a result", () => {
    expect(sentenceTimeCheck("At 6 weeks the score was 3.1 vs 4.2 and at 12 weeks 2.8 vs 4.0").ok).toBe(false);
    expect(sentenceTimeCheck("From baseline to 12 weeks it fell from 6.1 to 3.1 vs 6.0 to 4.2").ok).toBe(false);
    expect(sentenceTimeCheck("At baseline the score was 6.1 ± 1.0 vs 6.0 ± 1.1").ok).toBe(false);
    expect(sentenceTimeCheck("At baseline the score was 6.1 ± 1.0 vs 6.0 ± 1.1", true).ok).toBe(true);
    expect(sentenceTimeCheck("At 12 weeks the score was 3.1 ± 1.2 vs 4.2 ± 1.4").ok).toBe(true);
  });

  it("round 24: does not take 'baseline' of the outcome's own name ('baseline laboratory monitoring') for a time", () => {
    const sentence =
      "At 25 days, 214 (82%) of 261 in the outreach group had completed all baseline laboratory monitoring.";
    const outcome = "completed all recommended baseline laboratory monitoring at 25 days";
    expect(sentenceTimeCheck(sentence).ok).toBe(false);
    expect(sentenceTimeCheck(sentence, false, [214, 82, 261], true, outcome).ok).toBe(true);
    // "From baseline" in the outcome is a time still, as is "baseline values".
    const change = "The change from baseline up to week 48 was -2.9 and -2.8.";
    expect(sentenceTimeCheck(change, false, [2.9, 2.8], true, "change from baseline up to week 48").ok).toBe(false);
    const levels = "Baseline values were 6.1 and 6.0 in the two groups.";
    expect(sentenceTimeCheck(levels, false, [6.1, 6.0], true, "baseline values of pain").ok).toBe(false);
  });

  it("fails a baseline column for a result, not for a baseline question, nor a post-treatment column", () => {
    expect(baselineColumnCheck(["Velatrin baseline", "Placebo baseline"], "", false).ok).toBe(false);
    expect(baselineColumnCheck(["Velatrin baseline", "Placebo baseline"], "", true).ok).toBe(true);
    expect(baselineColumnCheck(["Velatrin after treatment", "Placebo after treatment"], "", false).ok).toBe(true);
    expect(baselineColumnCheck([], "Pre-treatment", false).ok).toBe(false);
    expect(baselineColumnCheck(["Velatrin change from baseline"], "", false).ok).toBe(true);
  });

  it("fails a row that adds a severity, attribution or condition the question does not name", () => {
    expect(qualifierCheck("Serious adverse events, n (%)", "adverse events").ok).toBe(false);
    expect(qualifierCheck("Drug-related adverse events", "adverse events").ok).toBe(false);
    expect(qualifierCheck("Pain at rest (VAS)", "pain").ok).toBe(false);
    expect(qualifierCheck("Serious adverse events, n (%)", "serious adverse events").ok).toBe(true);
    expect(qualifierCheck("Pain score (0-10)", "pain score").ok).toBe(true);
  });

  it("fails a row that is one item under a section row naming the outcome, not a time or statistic under it", () => {
    expect(subItemCheck("Headache, n (%)", 0, "Adverse events").ok).toBe(false);
    expect(subItemCheck("Week 12", 0, "Pain score").ok).toBe(true);
    expect(subItemCheck("Mean (SD)", 0, "Pain score").ok).toBe(true);
    expect(subItemCheck("Total", 0, "Adverse events").ok).toBe(true);
    expect(subItemCheck("Any adverse event", 0.9, "Adverse events").ok).toBe(true);
    expect(subItemCheck("Headache", 0, null).ok).toBe(true);
  });

  it("fails a row dichotomising the measure at a cut-off the question does not name", () => {
    expect(thresholdCheck("Depression score <10, n (%)", "depression score").ok).toBe(false);
    expect(thresholdCheck("HbA1c ≥ 7%", "HbA1c").ok).toBe(false);
    expect(thresholdCheck("More than 2 falls", "falls").ok).toBe(false);
    expect(thresholdCheck("HbA1c ≥ 7%", "HbA1c ≥ 7%").ok).toBe(true);
    expect(thresholdCheck("Depression score (0-27)", "depression score").ok).toBe(true);
  });

  it("fails counts for a question asking for a mean", () => {
    expect(kindCheck("count", "mean depression score").ok).toBe(false);
    expect(kindCheck("continuous", "mean depression score").ok).toBe(true);
    expect(kindCheck("count", "depression score").ok).toBe(true);
  });

  it("treats a number and its rounding as the same number stated twice", () => {
    expect(sameNumber(12.43, 12.4)).toBe(true);
    expect(sameNumber(12.46, 12.4)).toBe(false);
    expect(sameNumber(7, 7)).toBe(true);
    expect(sameNumber(7.2, 8)).toBe(false);
  });

  it("lists the checks after the consistency checks, each switchable by name", () => {
    expect(READING_CHECKS.slice(-PROVENANCE_CHECKS.length)).toEqual(PROVENANCE_CHECKS);
    expect(PROVENANCE_CHECKS).toEqual([
      "population-named",
      "time-in-sentence",
      "time-baseline-column",
      "row-qualifier",
      "row-sub-item",
      "row-threshold",
      "kind-asked",
    ]);
  });
});

describe("provenance checks withhold readings of another population, time or row", () => {
  // Family: a trial reporting its outcome table for the per-protocol population only.
  const perProtocol = `Results.\n\n${pipeTable(
    "Table 2. Outcomes at 12 weeks, per-protocol population",
    ["Outcome", "Velatrin (n = 41)", "Placebo (n = 44)"],
    [["Pain score (0-10)", "3.1 (1.2)", "4.6 (1.5)"]],
  )}`;

  it("withholds a per-protocol table's values for a question about the trial's population, and says why", () => {
    const r = ask(perProtocol, "pain score");
    expect(r.intervention.mean).toBeNull();
    expect(r.reason?.intervention.mean).toMatch(/provenance: population: read under a per-protocol label/);
    expect(r.candidates?.length).toBeGreaterThan(0);
  });

  it("gives the same values when the question asks for the per-protocol population", () => {
    const r = ask(perProtocol, "pain score (per-protocol population)");
    expect(r.intervention).toMatchObject({ mean: 3.1, sd: 1.2, groupSize: 41 });
  });

  it("withholds on a provenance check alone in raw mode (evidence items off, reading checks withholding)", () => {
    const raw = ask(perProtocol, "pain score", { abstainBelow: 0, withholdInconsistent: true });
    expect(raw.intervention.mean).toBeNull();
    const off = ask(perProtocol, "pain score", {
      abstainBelow: 0,
      withholdInconsistent: true,
      consistency: READING_CHECKS.filter((c) => c !== "population-named"),
    });
    expect(off.intervention.mean).toBe(3.1);
  });

  // Family: safety tables whose only matching row is a severity grade of the asked outcome.
  it("withholds a 'Serious adverse events' row for adverse events, and gives it for serious adverse events", () => {
    const safety = `Safety.\n\n${pipeTable(
      "Table 3. Safety",
      ["Event", "Velatrin (n = 48)", "Placebo (n = 50)"],
      [["Serious adverse events, n (%)", "4 (8.3)", "9 (18.0)"]],
    )}`;
    const any = ask(safety, "adverse events");
    expect(any.intervention.events).toBeNull();
    expect(any.reason?.intervention.events).toMatch(/row: the label adds "Serious"/);
    expect(ask(safety, "serious adverse events").intervention).toMatchObject({ events: 4, groupSize: 48 });
  });

  // Family: safety tables with a section row naming the outcome and one row per event type under it.
  it("withholds one event type under an 'Adverse events' section row", () => {
    const sectioned = `Safety.\n\n${pipeTable(
      "Table 3. Safety",
      ["Event", "Velatrin (n = 48)", "Placebo (n = 50)"],
      [
        ["Adverse events", "", ""],
        ["Headache, n (%)", "4 (8.3)", "9 (18.0)"],
      ],
    )}`;
    const r = ask(sectioned, "adverse events");
    expect(r.intervention.events).toBeNull();
    expect(r.reason?.intervention.events).toMatch(/is one item under "Adverse events"/);
  });

  // Family: development or symptom tables giving the mean score and the number below a clinical cut-off.
  it("reads the mean row, never the cut-off row, for a question about the mean score", () => {
    const scores = `Results.\n\n${pipeTable(
      "Table 2. Depression scale at 12 weeks",
      ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)"],
      [["Depression score <10, n (%)", "30 (62.5)", "21 (42.0)"]],
    )}`;
    const r = ask(scores, "mean depression score");
    expect(r.intervention.events).toBeNull();
    expect(r.intervention.mean).toBeNull();
    expect(r.reason?.intervention.events).toMatch(/the question asks for a mean, the reading gives counts/);
    expect(r.reason?.intervention.events).toMatch(/counts beyond a cut-off \("<1/);
  });

  // Family: results sentences giving two assessments in one sentence.
  it("withholds a sentence that names two times, and reads one that names one time", () => {
    const two =
      "Results. Between week 6 and week 12 the pain score was 3.1 ± 1.2 with velatrin and 4.6 ± 1.5 with placebo.";
    const r = ask(two, "pain score");
    expect(r.intervention.mean).toBeNull();
    expect(r.reason?.intervention.mean).toMatch(/timepoint: the sentence names 2 follow-up times/);
    const one = "Results. At 12 weeks the pain score was 3.1 ± 1.2 with velatrin and 4.6 ± 1.5 with placebo.";
    expect(ask(one, "pain score").intervention.mean).toBe(3.1);
    // Family: duration outcomes whose values carry a time unit.
    const duration = "Results. The duration of analgesia was 613 ± 52 min with velatrin and 478 ± 61 min with placebo.";
    expect(ask(duration, "duration of analgesia").intervention).toMatchObject({ mean: 613, sd: 52 });
  });

  // Family: tables whose arm columns are the values before treatment only, captioned by the outcome.
  it("withholds a column labelled baseline for a question about the result", () => {
    const before = `Results.\n\n${pipeTable(
      "Table 2. Pain score",
      ["Outcome", "Velatrin, baseline (n = 48)", "Placebo, baseline (n = 50)"],
      [["Pain score (0-10)", "6.1 (1.0)", "6.0 (1.1)"]],
    )}`;
    const r = ask(before, "pain score");
    expect(r.intervention.mean).toBeNull();
    expect(r.reason?.intervention.mean).toMatch(/a baseline label, for a result/);
  });
});

describe("single reading: rivals across tables and prose", () => {
  const table = pipeTable(
    "Table 2. Outcomes at 12 weeks",
    ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)"],
    [["Pain score (0-10)", "3.14 (1.2)", "4.61 (1.5)"]],
  );

  // Family: a results table and a sentence that restates the outcome with other numbers (another analysis).
  it("withholds a table's values when a sentence as well matched gives other numbers", () => {
    const r = ask(
      `Results. The pain score was 2.9 ± 1.1 with velatrin and 4.9 ± 1.6 with placebo.\n\n${table}`,
      "pain score",
    );
    expect(r.intervention.mean).toBeNull();
    expect(r.reason?.intervention.mean).toMatch(/single reading: no — the sentence/);
  });

  // Family: an abstract restating the table's numbers rounded.
  it("does not count the same numbers, rounded in the text, as a rival", () => {
    const r = ask(
      `Results. The pain score was 3.1 ± 1.2 with velatrin and 4.6 ± 1.5 with placebo.\n\n${table}`,
      "pain score",
    );
    expect(r.intervention).toMatchObject({ mean: 3.14, sd: 1.2, groupSize: 48 });
  });

  // Family: a table of counts with the text giving only the percentages of the same counts.
  it("does not count a percentage that equals the table's count over its n as a rival", () => {
    const counts = pipeTable(
      "Table 3. Outcomes at 12 weeks",
      ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)"],
      [["Response", "24", "15"]],
    );
    const r = ask(`Results. Response was seen in 50% with velatrin and 30% with placebo.\n\n${counts}`, "response");
    expect(r.intervention).toMatchObject({ events: 24, groupSize: 48 });
    expect(r.comparator).toMatchObject({ events: 15, groupSize: 50 });
    // A percentage that is not the count over its n is another reading: withheld by round 2's gate; calibrated, a
    // missing item and one rival more lower the estimated probability.
    const rival = `Results. Response was seen in 40% with velatrin and 30% with placebo.\n\n${counts}`;
    const other = ask(rival, "response", { gate: "evidence-items" });
    expect(other.intervention.events).toBeNull();
    expect(other.reason?.intervention.events).toMatch(/single reading: no — the sentence/);
    const calibrated = ask(rival, "response", { abstainBelow: 0 });
    expect(calibrated.reason?.intervention.events).toMatch(/estimated probability right .*missing: single reading: no/);
    expect(calibrated.confidence?.intervention.events ?? 1).toBeLessThan(r.confidence?.intervention.events ?? 0);
  });
});
