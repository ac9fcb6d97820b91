import { describe, expect, it } from "vitest";
import { extractArms, parseReport } from "./index.ts";
import { isThresholdDuration, timesIn } from "./provenance.ts";

/**
 * Round 19 (docs/methods/arm-extraction.md "Round 19"): families met in two real trials of ../shared/fixtures/providers
 * (a Europe PMC full text and a PubMed abstract, never part of the arm data). Every report here is invented.
 */
function ask(text: string, outcome: string, intervention = "drug", comparator = "placebo") {
  return extractArms(parseReport(text, "text"), { intervention, comparator, outcome });
}

describe("an event rate per unit of time beside the counts", () => {
  const rates =
    "Results. During a median follow-up of 30.5 months, stroke occurred in 61 of 500 patients assigned to placebo and in 42 of 498 assigned to the drug (a rate of 4.9% per year vs. 3.4% per year; hazard ratio, 0.69; 95% CI, 0.47 to 1.02).";

  it("does not take '4.9% per year' for the share of the arm's n, so the counts are read", () => {
    const r = ask(rates, "stroke");
    expect(r.intervention).toMatchObject({ events: 42, groupSize: 498 });
    expect(r.comparator).toMatchObject({ events: 61, groupSize: 500 });
  });

  it("reads the other spellings of a rate per time ('/yr', 'per 100 patient-years') the same way", () => {
    for (const rate of ["4.9%/yr vs. 3.4%/yr", "4.9% per 100 patient-years vs. 3.4% per 100 patient-years"]) {
      const text = rates.replace("a rate of 4.9% per year vs. 3.4% per year", rate);
      expect(ask(text, "stroke").intervention).toMatchObject({ events: 42, groupSize: 498 });
    }
  });

  it("still checks a percentage that is the arm's share: a count that contradicts it is not given", () => {
    const wrong = rates.replace("a rate of 4.9% per year vs. 3.4% per year", "22.0% vs. 18.0%");
    const r = ask(wrong, "stroke");
    expect(r.intervention.events).toBeNull();
    expect(r.comparator.events).toBeNull();
  });
});

describe("a duration after a comparison defines the outcome; it is not a time of assessment", () => {
  it("isThresholdDuration: 'more than', 'at least', '≥', '>' and 'exceeding' before the number", () => {
    for (const before of ["lasting more than ", "for at least ", "fever ≥ ", "stay >", "exceeding "])
      expect(isThresholdDuration(before)).toBe(true);
    for (const before of ["at ", "after ", "for up to ", "during the first ", "over "])
      expect(isThresholdDuration(before)).toBe(false);
  });

  it("timesIn counts the follow-up time only", () => {
    const s = "Diarrhoea for more than 3 days during the 14-day period occurred in 12 of 100 and 20 of 98 patients.";
    expect(timesIn(s)).toEqual([14 * 1440]);
    expect(timesIn("Assessed at 3 days and at 14 days.")).toEqual([3 * 1440, 14 * 1440]);
  });

  it("reads a sentence whose outcome is defined by a duration and which names the follow-up period", () => {
    const text =
      "Results. Fever lasting more than 2 days during the 28-day period was observed in 30 (27.0%) of 111 patients in the placebo group and 18 (17.5%) of 103 patients in the drug group (P=0.10).";
    const r = ask(text, "fever lasting more than 2 days");
    expect(r.intervention).toMatchObject({ events: 18, groupSize: 103 });
    expect(r.comparator).toMatchObject({ events: 30, groupSize: 111 });
  });

  it("still withholds a sentence that names two follow-up times", () => {
    const text =
      "Results. Fever was observed at 2 days and at 28 days in 30 (27.0%) of 111 patients in the placebo group and 18 (17.5%) of 103 patients in the drug group.";
    expect(ask(text, "fever").intervention.events).toBeNull();
  });
});

describe("the outcome reported for all randomised and for a restricted population", () => {
  const text =
    "Methods. Relapse within 12 weeks was the primary outcome. Results. In ITT analysis (n=220), relapse occurred in 9 (8.3%) of 108 patients in the drug group and in 18 (16.1%) of 112 patients in the placebo group (P=0.07). In PP analysis (n=180, excluding 40 patients who stopped treatment), relapse occurred in 6 (6.8%) of 88 patients in the drug group and in 15 (16.3%) of 92 patients in the placebo group (P=0.06).";

  it("a question naming the per-protocol population gets the per-protocol sentence, wherever it stands", () => {
    const r = ask(text, "relapse, per-protocol analysis");
    expect(r.intervention).toMatchObject({ events: 6, groupSize: 88 });
    expect(r.comparator).toMatchObject({ events: 15, groupSize: 92 });
  });

  it("a question naming no population gets the intention-to-treat sentence", () => {
    const r = ask(text, "relapse");
    expect(r.intervention).toMatchObject({ events: 9, groupSize: 108 });
    expect(r.comparator).toMatchObject({ events: 18, groupSize: 112 });
  });

  it("the order of the sentences does not decide", () => {
    const [head, itt, pp] = text.split(/ (?=In (?:ITT|PP) analysis)/);
    expect(pp).toMatch(/^In PP analysis/);
    const swapped = `${head} ${pp} ${itt}`;
    expect(ask(swapped, "relapse, per-protocol analysis").intervention).toMatchObject({ events: 6, groupSize: 88 });
    expect(ask(swapped, "relapse").intervention).toMatchObject({ events: 9, groupSize: 108 });
  });
});

describe("outcome type of a clinical event named without a cue word, when nothing answers it", () => {
  it("an event outcome with only rates per year in the text gets no values, typed binary", () => {
    const r = ask(
      "Results. Major bleeding occurred at a rate of 0.6% per year with placebo vs. 1.1% per year with the drug (P=0.22).",
      "major bleeding",
    );
    expect(r.outcomeType).toBe("binary");
    expect(r.intervention.events).toBeNull();
    expect(r.comparator.events).toBeNull();
  });

  it("bleeding, haemorrhage, thromboembolism, diarrhoea, nausea: binary; a duration of one stays continuous", () => {
    const text = "Results. The trial enrolled 200 patients; 100 received the drug and 100 placebo.";
    for (const phrase of [
      "major or clinically relevant nonmajor bleeding",
      "intracranial haemorrhage",
      "recurrent venous thromboembolism",
      "antibiotic-associated diarrhea",
      "nausea and vomiting",
    ])
      expect(ask(text, phrase).outcomeType).toBe("binary");
    expect(ask(text, "duration of diarrhoea (hours)").outcomeType).toBe("continuous");
    expect(ask(text, "quality of sleep").outcomeType).toBe("continuous");
  });
});
