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
    const wrong = rates.replace("61 of 500", "61 (22.0%) of 500").replace("42 of 498", "42 (18.0%) of 498");
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

describe("notation met in abstracts: counts with their CI, units, number words, design figures", () => {
  it("reads a count whose percentage carries its CI inside the parenthesis", () => {
    const r = ask(
      "Results. Remission was recorded in 81 (45%, 95% CI 38-52) of 180 patients in the drug group and 60 (33%, 27-40) of 182 in the placebo group.",
      "remission",
    );
    expect(r.intervention).toMatchObject({ events: 81, groupSize: 180 });
    expect(r.comparator).toMatchObject({ events: 60, groupSize: 182 });
    const bracketed = ask(
      "Results. In the drug group, 90 of 200 patients (45.0% [CI, 38.1% to 52.0%]) achieved remission compared with 40 of 198 (20.2% [CI, 14.9% to 26.4%]) in the placebo group.",
      "remission",
    );
    expect(bracketed.intervention).toMatchObject({ events: 90, groupSize: 200 });
    expect(bracketed.comparator).toMatchObject({ events: 40, groupSize: 198 });
  });

  it("does not take the bounds of a CI for an arm's percentage", () => {
    const r = ask(
      "Results. Remission: 45% of the drug group (95% CI, 38% to 52%) and 33% of the placebo group (95% CI, 27% to 40%); 180 and 182 patients were randomised to drug and placebo.",
      "remission",
    );
    for (const arm of [r.intervention, r.comparator]) expect([null, 81, 60]).toContain(arm.events);
  });

  it("reads a mean and SD each followed by its unit", () => {
    const r = ask(
      "Results. We randomised 150 women to the drug and 148 to placebo. The mean birth weight was 3250 g (SD 480 g) in the drug group and 3110 g (SD 520 g) in the placebo group (P=0.02).",
      "birth weight (g)",
    );
    expect(r.intervention).toMatchObject({ mean: 3250, sd: 480 });
    expect(r.comparator).toMatchObject({ mean: 3110, sd: 520 });
  });

  it("reads 'p% (a of b)' as one count, and a count written as a number word", () => {
    const r = ask(
      "Results. Relapse occurred in 30% (15 of 50) of patients in the drug group compared with 48% (24 of 50) in the placebo group.",
      "relapse",
    );
    expect(r.intervention).toMatchObject({ events: 15, groupSize: 50 });
    expect(r.comparator).toMatchObject({ events: 24, groupSize: 50 });
    const words = ask(
      "Results. 120 patients were randomised to the drug and 118 to placebo. Falls occurred in nine [8%] patients for the drug vs twenty [17%] for placebo.",
      "falls",
    );
    expect(words.intervention).toMatchObject({ events: 9, groupSize: 120 });
    expect(words.comparator).toMatchObject({ events: 20, groupSize: 118 });
  });

  it("a design figure ('equivalence margins of 13%') and a far 'respectively' do not block the counts", () => {
    const r = ask(
      "Results. Response was recorded in 172 (48%) of 358 patients in the drug group and 137 (41%) of 338 in the placebo group (risk difference 7·3%, 90% CI 1·2-13·4; RR 1·188, 90% CI 1·033-1·366), with the upper bounds of the CIs exceeding the predefined equivalence margins of 13% and 1·318, respectively.",
      "response",
    );
    expect(r.intervention).toMatchObject({ events: 172, groupSize: 358 });
    expect(r.comparator).toMatchObject({ events: 137, groupSize: 338 });
  });

  it("'assigned to A at baseline' is when the arm was assigned, not a baseline measurement", () => {
    const r = ask(
      "Results. Response on central review was seen in 162 (48%) of 339 patients assigned to the drug at baseline and 138 (42%) of 330 assigned to placebo at baseline.",
      "response on central review",
    );
    expect(r.intervention).toMatchObject({ events: 162, groupSize: 339 });
    const measured = ask(
      "Results. At baseline, anaemia was present in 40 (22%) of 180 patients in the drug group and 38 (21%) of 182 in the placebo group.",
      "anaemia",
    );
    expect(measured.intervention.events).toBeNull();
  });
});

describe("several outcomes in one sentence, one clause each, the arms named once", () => {
  const head = "Results. 482 patients were randomised (241 to the drug and 241 to placebo).";
  const clauses =
    "Adverse events were similar between groups (for serious adverse events, 24 [10%] for placebo vs 21 [9%] for the drug; for infusion reactions, 18 [7%] vs 12 [5%]; and for adverse events leading to discontinuation, nine [4%] vs eight [3%], respectively).";

  it("reads the clause that names the outcome, in the arms' order of the first clause", () => {
    const serious = ask(`${head} ${clauses}`, "serious adverse events");
    expect(serious.intervention).toMatchObject({ events: 21, groupSize: 241 });
    expect(serious.comparator).toMatchObject({ events: 24, groupSize: 241 });
    const infusion = ask(`${head} ${clauses}`, "infusion reactions");
    expect(infusion.intervention).toMatchObject({ events: 12 });
    expect(infusion.comparator).toMatchObject({ events: 18 });
    const stopped = ask(`${head} ${clauses}`, "adverse events leading to discontinuation");
    expect(stopped.intervention).toMatchObject({ events: 8 });
    expect(stopped.comparator).toMatchObject({ events: 9 });
  });

  it("gives nothing when a later clause names an arm again, since the order is no longer the first clause's", () => {
    const mixed = clauses.replace("18 [7%] vs 12 [5%]", "18 [7%] with the drug vs 12 [5%]");
    expect(ask(`${head} ${mixed}`, "infusion reactions").intervention.events).toBeNull();
  });
});

describe("lists of three or more values: the value before its arm's name, or the name before its value", () => {
  it("value first: each value is read with the arm named right after it", () => {
    const r = ask(
      "Results. The outcome, remission, was achieved in 67% (36 of 54) of patients in the drug group compared with 27% (14 of 51) in the placebo group and 16% (10 of 64) in the usual care group.",
      "remission",
    );
    expect(r.intervention).toMatchObject({ events: 36, groupSize: 54 });
    expect(r.comparator).toMatchObject({ events: 14, groupSize: 51 });
  });

  it("name first, after a total: each arm's value follows its name", () => {
    const r = ask(
      "Results. A total of 220/339 (64.9%) patients had adverse events during treatment (sertraline, 69/115 [60.0%]; fluoxetine, 72/112 [64.3%]; and placebo, 79/112 [70.5%]).",
      "adverse events",
      "sertraline",
    );
    expect(r.intervention).toMatchObject({ events: 69, groupSize: 115 });
    expect(r.comparator).toMatchObject({ events: 79, groupSize: 112 });
  });

  it("round 24: reads value first when the first name follows the list's first value, which has no name before it", () => {
    const r = ask(
      "Results. In the second phase, grade 3 adverse events occurred in 30 (9%) of 349 patients continuing the drug, 11 (6%) of 171 continuing placebo, and 13 (8%) of 171 who switched from placebo to the drug.",
      "grade 3 adverse events",
    );
    expect(r.intervention).toMatchObject({ events: 30, groupSize: 349 });
    expect(r.comparator).toMatchObject({ events: 11, groupSize: 171 });
  });

  it("gives nothing when the first name both follows one value and precedes another, after an earlier value", () => {
    const r = ask(
      "Results. In the second phase, 54 (8%) of 691 patients had grade 3 adverse events: 30 (9%) of 349 patients continuing the drug, 11 (6%) of 171 continuing placebo, and 13 (8%) of 171 who switched from placebo to the drug.",
      "grade 3 adverse events",
    );
    expect(r.intervention.events).toBeNull();
    expect(r.comparator.events).toBeNull();
  });
});

describe("a generic word of an arm's name ('treatment', 'therapy', 'care') names the arm only beside another of its words", () => {
  const cbt = "cognitive behavioural therapy";
  const tau = "treatment as usual";

  it("'Treatment had no effect …' does not name the treatment-as-usual arm, so the arms are not swapped", () => {
    const r = ask(
      "Results. Treatment had no beneficial effect on relapse, with 23.3% (38/163) of the cognitive behavioural therapy group and 20.2% (33/163) of controls relapsing.",
      "relapse",
      cbt,
      tau,
    );
    expect(r.intervention.events === null || r.intervention.events === 38).toBe(true);
    expect(r.comparator.events === null || r.comparator.events === 33).toBe(true);
  });

  it("a compound of the name's generic words ('usual-care group') names the arm", () => {
    const r = ask(
      "Results. Relapse occurred in 38 of 163 patients in the cognitive behavioural therapy group and in 33 of 163 patients in the usual-care group.",
      "relapse",
      cbt,
      "usual care",
    );
    expect(r.intervention).toMatchObject({ events: 38, groupSize: 163 });
    expect(r.comparator).toMatchObject({ events: 33, groupSize: 163 });
  });

  it("a generic word before 'group' names the arm ('the conventional group')", () => {
    const r = ask(
      "Results. Relapse occurred in 38 of 163 patients in the cognitive behavioural therapy group and in 33 of 163 patients in the conventional group.",
      "relapse",
      cbt,
      "conventional treatment",
    );
    expect(r.comparator).toMatchObject({ events: 33, groupSize: 163 });
  });

  it("'treatment as usual' written out names the arm", () => {
    const r = ask(
      "Results. Relapse occurred in 38 of 163 patients receiving cognitive behavioural therapy and in 33 of 163 patients receiving treatment as usual.",
      "relapse",
      cbt,
      tau,
    );
    expect(r.intervention).toMatchObject({ events: 38, groupSize: 163 });
    expect(r.comparator).toMatchObject({ events: 33, groupSize: 163 });
  });
});

describe("an arm's randomised n when some of its participants were excluded from the analysis set", () => {
  it("is not given for that arm; the other arm's n is", () => {
    const r = ask(
      "Results. 482 patients were randomised (241 to placebo, 241 to the drug group; one patient was excluded from the full analysis and safety set for the drug). Serious adverse events occurred in 24 [10%] patients for placebo vs 21 [9%] for the drug.",
      "serious adverse events",
    );
    expect(r.intervention.events).toBe(21);
    expect(r.intervention.groupSize).toBeNull();
    expect(r.comparator).toMatchObject({ events: 24, groupSize: 241 });
  });
});
