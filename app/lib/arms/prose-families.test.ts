import { describe, expect, it } from "vitest";
import { outcomeTypeGuess } from "./extract.ts";
import { extractArms, hintsOf, parseReport, proseValues, type ArmExtraction } from "./index.ts";

/**
 * Round 20 (docs/methods/arm-extraction.md "Round 20"): prose families met in four sets of real abstracts annotated by
 * sessions that ran no code — each arm's value before and after treatment, numbers with comma thousands, the words that
 * tie a value to its arm, an arm's bracketed group label, a mean ± SD in percent, a threshold that makes an outcome
 * binary, a list's one percent sign. Every report here is invented.
 */

/** Every reading of a question, best first, with nothing withheld (abstainBelow 0). */
function readingsOf(text: string, outcome: string, intervention = "exercise", comparator = "control") {
  const readings: ArmExtraction[] = [];
  extractArms(
    parseReport(text, "text"),
    { intervention, comparator, outcome },
    { abstainBelow: 0, withholdInconsistent: false, readings },
  );
  return readings;
}

const pain =
  "Results. Pain fell in the exercise group, 6.1 ± 1.2 to 3.4 ± 1.5 (mean ± SD; p < 0.001), versus the control group, 6.0 ± 1.1 to 5.8 ± 1.3.";

describe("an arm's value before and after treatment, joined by 'to'", () => {
  it("reads each arm's value after treatment for an outcome question", () => {
    const [best] = readingsOf(pain, "pain score");
    expect(best.intervention).toMatchObject({ mean: 3.4, sd: 1.5 });
    expect(best.comparator).toMatchObject({ mean: 5.8, sd: 1.3 });
  });

  it("reads each arm's value before treatment for a baseline question", () => {
    const [best] = readingsOf(pain, "pain score at baseline");
    expect(best.intervention).toMatchObject({ mean: 6.1, sd: 1.2 });
    expect(best.comparator).toMatchObject({ mean: 6.0, sd: 1.1 });
  });

  it("reads counts the same way ('28% (17/60) to 57% (26/46)')", () => {
    const text =
      "Results. Guideline-concordant care rose in the exercise group, 28% (17/60) to 57% (26/46), and in the control group, 35% (34/97) to 39% (30/77).";
    const [best] = readingsOf(text, "guideline-concordant care");
    expect(best.intervention).toMatchObject({ events: 26, groupSize: 46 });
    expect(best.comparator).toMatchObject({ events: 30, groupSize: 77 });
  });

  it("leaves a sentence alone when not every value of the kind is in such a pair", () => {
    const text =
      "Results. Pain scores were 3.4 ± 1.5 in the exercise group and 5.8 ± 1.3 in the control group, and 4.0 ± 1.0 to 2.0 ± 1.1 overall.";
    const [best] = readingsOf(text, "pain score");
    expect(best.intervention).toMatchObject({ mean: 3.4, sd: 1.5 });
    expect(best.comparator).toMatchObject({ mean: 5.8, sd: 1.3 });
  });
});

describe("a number whose thousands are written with commas", () => {
  it("is read whole, and no value starts inside it", () => {
    const s = "The dose was higher in the switch group (10,503 ± 7389 vs. 7981 ± 5858 IU/week; p=0.001).";
    const means = proseValues(s, hintsOf(s)).map((v) => (v.stats.kind === "continuous" ? v.stats.mean : null));
    expect(means).toEqual([10503, 7981]);
  });

  it("gives a count's group size written with a comma ('359 (16%) of 2,237')", () => {
    const s = "Events occurred in 359 (16%) of 2,237 patients and 180 (8%) of 2,270 patients.";
    const counts = proseValues(s, hintsOf(s)).map((v) =>
      v.stats.kind === "count" ? [v.stats.events, v.stats.groupSize] : null,
    );
    expect(counts).toEqual([
      [359, 2237],
      [180, 2270],
    ]);
  });
});

describe("a value tied to its arm by the words between them", () => {
  const intervention = "decision support system (intervention arm)";
  const comparator = "control arm (infection team without the system)";
  const text =
    "Results. The infection team intervened on 359 (16%) of 2,237 patients in the intervention arm and 180 (8%) of 2,270 in the control arm.";

  it("reads each value with the arm its words tie it to, though the comparator's own words are named first", () => {
    const [best] = readingsOf(text, "infection team intervened", intervention, comparator);
    expect(best.intervention).toMatchObject({ events: 359, groupSize: 2237 });
    expect(best.comparator).toMatchObject({ events: 180, groupSize: 2270 });
  });

  it("reads the ties in either direction: a value after its arm's name, another before it", () => {
    const mixed =
      "Results. The infection team intervened on 359 (16%) of 2,237 patients in the control arm and, in the intervention arm, 180 (8%) of 2,270.";
    const [best] = readingsOf(mixed, "infection team intervened", intervention, comparator);
    expect(best.intervention).toMatchObject({ events: 180, groupSize: 2270 });
    expect(best.comparator).toMatchObject({ events: 359, groupSize: 2237 });
  });

  it("gives nothing when one value's words tie it to the arm the order of the names gives the other value", () => {
    const against =
      "Results. In the intervention arm's wards the infection team intervened on 359 (16%) of 2,237 patients in the control arm, and on 180 (8%) of 2,270 others.";
    for (const r of readingsOf(against, "infection team intervened", intervention, comparator))
      expect(r.intervention.events).not.toBe(359);
  });

  it("keeps the order of the arms' names when no value is tied ('than in the control group (a vs b)')", () => {
    const s =
      "Results. The weekly dose was higher in the switch group than in the control group (10,503 ± 7389 vs. 7981 ± 5858 IU/week; p=0.001).";
    const [best] = readingsOf(s, "weekly dose", "switch group", "control group");
    expect(best.intervention).toMatchObject({ mean: 10503, sd: 7389 });
    expect(best.comparator).toMatchObject({ mean: 7981, sd: 5858 });
  });
});

const pharmacistArm = "advice by nurse and pharmacist (pharmacist group)";
const nurseArm = "advice by nurse only (nurse group)";
const report =
  "Results. At 6 months, the mean (± SD) fall in systolic pressure was 5% ± 9% in the nurse group and 11% ± 8% in the pharmacist group (P = 0.01). A fall of 10% or more was seen in 20 of 80 patients in the nurse group and 38 of 82 patients in the pharmacist group.";

describe("an arm's bracketed group label, written word for word", () => {
  it("names the arm, though every word of it is in the other arm's name too", () => {
    const [best] = readingsOf(report, "percentage fall in systolic pressure at 6 months", pharmacistArm, nurseArm);
    expect(best.intervention).toMatchObject({ mean: 11, sd: 8 });
    expect(best.comparator).toMatchObject({ mean: 5, sd: 9 });
  });

  it("does not name either arm when both names give the same phrase", () => {
    const same = readingsOf(
      report,
      "percentage fall in systolic pressure",
      "nurse group (with leaflet)",
      "nurse group",
    );
    for (const r of same) expect(r.intervention.mean).not.toBe(5);
  });
});

describe("a mean ± SD written in percent", () => {
  it("is one continuous value, not two percentages", () => {
    const s = "The fall was 5% ± 9% in the nurse group.";
    expect(proseValues(s, hintsOf(s)).map((v) => v.stats)).toEqual([{ kind: "continuous", mean: 5, sd: 9 }]);
  });
});

describe("a threshold makes the outcome the event of crossing it", () => {
  it("types a phrase with a threshold as binary", () => {
    for (const phrase of [
      "LDL cholesterol decrease of 10% or more at 3 months",
      "HbA1c < 7%",
      "weight loss of at least 5%",
      "EPDS score ≥ 12 at six months",
    ])
      expect(outcomeTypeGuess(phrase)).toBe("binary");
    expect(outcomeTypeGuess("change in HbA1c at 12 months")).toBe("continuous");
    expect(outcomeTypeGuess("change in HbA1c in patients with HbA1c ≥ 7%")).toBe("continuous");
  });

  it("reads the counts of the threshold's sentence, not the means of the measure", () => {
    const [best] = readingsOf(report, "fall in systolic pressure of 10% or more", pharmacistArm, nurseArm);
    expect(best.intervention).toMatchObject({ events: 38, groupSize: 82 });
    expect(best.comparator).toMatchObject({ events: 20, groupSize: 80 });
  });
});

describe("a list's one percent sign after its last number", () => {
  it("makes every number of the list a percentage", () => {
    const s =
      "Antibodies were detected in 13.2 and 15.0% of patients in the nurse and pharmacist groups, respectively.";
    expect(proseValues(s, hintsOf(s)).map((v) => v.stats)).toEqual([
      { kind: "count", percent: 13.2, percentDecimals: 1 },
      { kind: "count", percent: 15, percentDecimals: 1 },
    ]);
  });

  it("reads the arms' events from those percentages and the arms' n stated elsewhere, in the order 'respectively' gives", () => {
    const text =
      "Methods. We randomised 38 patients to the nurse group and 20 to the pharmacist group. Results. Antibodies were detected in 13.2 and 15.0% of patients in the nurse and pharmacist groups, respectively.";
    const [best] = readingsOf(text, "antibodies", "pharmacist group", "nurse group");
    expect(best.intervention).toMatchObject({ events: 3, groupSize: 20 });
    expect(best.comparator).toMatchObject({ events: 5, groupSize: 38 });
  });

  it("leaves a number alone when no percent sign ends its list", () => {
    const s = "At weeks 4 and 8, 15% of patients responded.";
    expect(proseValues(s, hintsOf(s)).map((v) => v.stats)).toEqual([
      { kind: "count", percent: 15, percentDecimals: 0 },
    ]);
  });
});

describe("a sentence that states another n than the arms' ('n = 6, exercise vs control')", () => {
  const subsample =
    "Methods. Rats were randomised to exercise (n = 27) or control (n = 27). Results. IL-6 was lower with exercise than with control (12.1 ± 2.0 vs 18.3 ± 3.1 pg/mL; n = 6, exercise vs control; P = 0.01).";

  /** The product's answer (the calibrated gate: a value under its threshold is withheld). */
  const answer = (text: string) =>
    extractArms(parseReport(text, "text"), { intervention: "exercise", comparator: "control", outcome: "IL-6" });

  it("withholds the arms' randomised n (subsample-n); the values stay", () => {
    const given = answer(subsample);
    expect(given.intervention).toMatchObject({ mean: 12.1, sd: 2.0, groupSize: null });
    expect(given.comparator).toMatchObject({ mean: 18.3, sd: 3.1, groupSize: null });
    expect(given.reason?.intervention.groupSize).toContain("subsample-n");
  });

  it("changes nothing when the sentence's n is an arm's own or the two arms' together", () => {
    for (const n of ["n = 27", "N = 54"]) {
      const given = answer(subsample.replace("n = 6", n));
      expect(given.intervention).toMatchObject({ mean: 12.1, groupSize: 27 });
      expect(given.comparator).toMatchObject({ mean: 18.3, groupSize: 27 });
    }
  });
});

describe("round 22 bare-means: a sentence that states a mean and gives no spread", () => {
  const bare = (s: string) => proseValues(s, hintsOf(s), { bareMeans: true }).map((v) => v.stats);

  it("reads each arm's bare number as a mean without SD ('was 3.1 in the X group and 4.2 in the Y group')", () => {
    const s = "The mean pain score at week 12 was 3.12 in the exercise group and 4.25 in the control group.";
    expect(bare(s)).toEqual([
      { kind: "continuous", mean: 3.12 },
      { kind: "continuous", mean: 4.25 },
    ]);
    expect(proseValues(s, hintsOf(s), { bareMeans: false })).toEqual([]);
    const readings: ArmExtraction[] = [];
    extractArms(
      parseReport(`Results. ${s}`, "text"),
      { intervention: "exercise", comparator: "control", outcome: "pain score at week 12" },
      { abstainBelow: 0, withholdInconsistent: false, readings, recallRules: ["bare-means"] },
    );
    expect(readings[0].intervention).toMatchObject({ mean: 3.12, sd: null });
    expect(readings[0].comparator).toMatchObject({ mean: 4.25, sd: null });
  });

  it("reads no time, dose, label, percentage, range, count of people, test statistic or before-value", () => {
    expect(
      bare(
        "At 12 months the mean dose of 500 mg/kg in group 2 gave 45% of 30 patients a change from 3.1 to 4.2 (range 1-9; P = 0.03; difference 0.8).",
      ).filter((v) => v.kind === "continuous"),
    ).toEqual([]);
  });

  it("reads nothing from a sentence naming a median or a geometric mean, or before the word 'mean'", () => {
    expect(bare("The median stay was 4.5 days with exercise and 6.0 days with control, mean 5.1.")).toEqual([]);
    expect(bare("The geometric mean titre was 12.4 with exercise and 8.1 with control.")).toEqual([]);
    expect(bare("Scores of 3.1 and 4.2 were seen; the mean was not reported.")).toEqual([]);
  });

  it("adds nothing to a sentence that gives a spread ('3.1 ± 0.4')", () => {
    const s = "The mean score was 3.1 ± 0.4 with exercise and 4.2 with control.";
    expect(bare(s)).toEqual([{ kind: "continuous", mean: 3.1, sd: 0.4 }]);
  });
});

describe("round 22: notations and sentence shapes of the ninth and tenth sets of abstracts", () => {
  const values = (s: string) => proseValues(s, hintsOf(s)).map((v) => [s.slice(v.start, v.end), v.stats]);

  it("reads 'per cent' and 'percent' after a number as a percent sign, and a number word before '(p%) of n'", () => {
    const s =
      "Eighteen (24.0 per cent) of the 75 clients with exercise and 9 (12 percent) of 76 with control responded.";
    expect(values(s)).toEqual([
      ["Eighteen (24.0 per cent) of the 75", { kind: "count", events: 18, groupSize: 75, percent: 24 }],
      ["9 (12 percent) of 76", { kind: "count", events: 9, groupSize: 76, percent: 12 }],
    ]);
    expect(values("Prophylaxis was given to more (10.0 percent vs. 1.5 percent, P<0.001).").map(([q]) => q)).toEqual([
      "10.0 percent",
      "1.5 percent",
    ]);
  });

  it("reads a percentage with its count and a few words of what was counted ('57.2% (111 of 194 hard stop alerts)')", () => {
    const s =
      "Desired responses were 57.2% (111 of 194 hard stop alerts) with exercise and 13.5% (20 of 148) with control.";
    expect(values(s)).toEqual([
      ["57.2% (111 of 194 hard stop alerts)", { kind: "count", events: 111, groupSize: 194, percent: 57.2 }],
      ["13.5% (20 of 148)", { kind: "count", events: 20, groupSize: 148, percent: 13.5 }],
    ]);
  });

  it("reads a percentage and its count after a comma as one value ('(74%, 458 of 621)')", () => {
    const s =
      "More patients had a prescription with exercise (74%, 458 of 621) than with control (66%; 428/650; P=0.002).";
    expect(values(s)).toEqual([
      ["74%, 458 of 621", { kind: "count", events: 458, groupSize: 621, percent: 74 }],
      ["66%; 428/650", { kind: "count", events: 428, groupSize: 650, percent: 66 }],
    ]);
  });

  it("reads 'a [b]' as 'a (b)', and a confidence level's % does not make the sentence a count", () => {
    const s =
      "Mean (SE) pain was 5.62 [0.16] vs 6.15 [0.16] (difference, -0.53; 95% confidence interval, -0.92 to -0.14).";
    expect(values(s)).toEqual([
      ["5.62 [0.16]", { kind: "continuous", mean: 5.62, se: 0.16 }],
      ["6.15 [0.16]", { kind: "continuous", mean: 6.15, se: 0.16 }],
    ]);
    const counted = "Mean pain was 5.62 (0.16) vs 6.15 (0.16); 45% responded.";
    expect(values(counted).filter(([, v]) => typeof v !== "string" && v.kind === "continuous")).toEqual([]);
  });

  it("ties a value to the arm named after a few words of who was counted ('… of the 75 CDT clients in the intervention arm')", () => {
    const text =
      "Methods. Practices were randomised to a liaison worker (intervention) or to the community drug team (CDT) alone (control). Results. Eighteen (24.0 per cent) of the 75 CDT clients in the intervention arm but none of the 80 CDT clients in the control arm were in shared care at 12 months.";
    const [best] = readingsOf(
      text,
      "clients in shared care at 12 months",
      "liaison worker (intervention)",
      "community drug team alone (control)",
    );
    expect(best.intervention).toMatchObject({ events: 18, groupSize: 75 });
    expect(best.comparator).toMatchObject({ events: 0, groupSize: 80 });
  });

  it("reads pairs whose arms are named once before them, in that order, and picks the outcome's pair", () => {
    const text =
      "Results. At 12 months, the exercise group compared with the control group had lower mean (SE) scores for pain intensity (5.62 [0.16] vs 6.15 [0.16]; P = .009), fatigue (4.40 [0.18] vs 4.99 [0.17]; P = .004), and sleep problems (2.92 [0.07] vs 3.17 [0.07]; P = .002).";
    const [pain] = readingsOf(text, "pain intensity at 12 months");
    expect(pain.intervention).toMatchObject({ mean: 5.62 });
    expect(pain.comparator).toMatchObject({ mean: 6.15 });
    const [fatigue] = readingsOf(text, "fatigue at 12 months");
    expect(fatigue.intervention).toMatchObject({ mean: 4.4 });
    expect(fatigue.comparator).toMatchObject({ mean: 4.99 });
    const reversed = text.replace(
      "the exercise group compared with the control group",
      "compared with the control group, the exercise group",
    );
    expect(readingsOf(reversed, "pain intensity at 12 months")).toEqual([]);
  });
});

describe("round 22: a label phrase written with a trademark sign, or with 'group' for the question's 'arm'", () => {
  const text =
    "Results. Height velocity after 18 months was 8.7 ± 1.56 cm/year for Criscy™ group and 8.9 ± 1.36 cm/year for Genotropin™ group (p = 0.43).";

  it("names each arm by its label ('Genotropin arm' → 'Genotropin™ group')", () => {
    const [best] = readingsOf(
      text,
      "height velocity after 18 months",
      "switched from Genotropin to Criscy (Genotropin arm)",
      "continued Criscy (Criscy arm)",
    );
    expect(best.intervention).toMatchObject({ mean: 8.9, sd: 1.36 });
    expect(best.comparator).toMatchObject({ mean: 8.7, sd: 1.56 });
  });

  it("still names neither arm by a phrase both names give", () => {
    expect(
      readingsOf(
        text,
        "height velocity after 18 months",
        "Criscy then Genotropin (Criscy arm)",
        "Criscy alone (Criscy cohort)",
      ),
    ).toEqual([]);
  });
});

describe("round 22: group sizes at allocation", () => {
  it("reads 'ARM (n = 63; what it received)', and takes no n from an allocation ratio ('randomized 1:1 to')", () => {
    const text =
      "Methods. Patients were randomized 1:1 to the control group (n = 63; usual care for 36 weeks) or to the exercise group (n = 64; training for 36 weeks). Results. Pain at week 36 was 3.1 ± 1.0 in the exercise group and 4.2 ± 1.1 in the control group.";
    const [best] = readingsOf(text, "pain at week 36");
    expect(best.intervention).toMatchObject({ mean: 3.1, sd: 1.0, groupSize: 64 });
    expect(best.comparator).toMatchObject({ mean: 4.2, sd: 1.1, groupSize: 63 });
    const [ratioOnly] = readingsOf(text.replace(/ \(n = \d+; [^)]*\)/g, ""), "pain at week 36");
    expect(ratioOnly.comparator).toMatchObject({ mean: 4.2, groupSize: null });
  });
});

describe("round 22: a value tied to its arm through a few words of what was counted and 'at'", () => {
  it("reads a before/after comparison whose arm name shares the outcome's words ('… events at pretest to … at posttest')", () => {
    const text =
      "Results. Observations showed an improvement in hand hygiene compliance from 193 of 303 (63.6%) observed hand hygiene events at pretest to 201 of 281 (71.5%) at posttest.";
    const [best] = readingsOf(
      text,
      "observed hand hygiene compliance",
      "hand hygiene messages on screen savers (posttest)",
      "before the screen saver intervention (pretest)",
    );
    expect(best.intervention).toMatchObject({ events: 201, groupSize: 281 });
    expect(best.comparator).toMatchObject({ events: 193, groupSize: 303 });
  });
});

describe("round 22: a question's trailing period ('… during the extension follow-up')", () => {
  const text =
    "Results. Pain relapse occurred in 12 of 40 patients in the exercise group and 20 of 41 in the control group.";

  it("names the outcome without the period, as a timepoint would be", () => {
    const [best] = readingsOf(text, "pain relapse during the extension follow-up");
    expect(best.intervention).toMatchObject({ events: 12, groupSize: 40 });
    expect(best.comparator).toMatchObject({ events: 20, groupSize: 41 });
  });

  it("still needs the outcome's own words", () => {
    expect(readingsOf(text, "serious infections during the extension follow-up")).toEqual([]);
  });
});

describe("round 22: a sentence that counts another unit per group ('2374 in the Coupler group')", () => {
  const text =
    "Methods. A total of 90 patients were allocated to exercise and 95 to control. Results. There were 460 visits (230 in the exercise group and 230 in the control group), and counselling was given in 40.0% vs 30.5% of visits.";
  const question = { intervention: "exercise", comparator: "control", outcome: "visits with counselling" };

  it("derives no events from the arms' n of patients, and gives no n (subsample-n)", () => {
    const readings: ArmExtraction[] = [];
    const given = extractArms(parseReport(text, "text"), question);
    extractArms(parseReport(text, "text"), question, { abstainBelow: 0, withholdInconsistent: false, readings });
    expect(readings[0]?.intervention).toMatchObject({ events: 36, groupSize: 90 });
    expect(given.intervention).toMatchObject({ events: null, groupSize: null });
    expect(given.comparator).toMatchObject({ events: null, groupSize: null });
    expect(given.reason?.intervention.events).toContain("subsample-n");
  });

  it("keeps them when the group's number is no larger than its n (events, not another unit)", () => {
    const events = text.replace(
      "460 visits (230 in the exercise group and 230 in the control group)",
      "65 visits (36 in the exercise group and 29 in the control group)",
    );
    const readings: ArmExtraction[] = [];
    extractArms(parseReport(events, "text"), question, { abstainBelow: 0, withholdInconsistent: false, readings });
    expect(readings[0]?.intervention).toMatchObject({ events: 36, groupSize: 90 });
    expect(readings[0]?.reason?.intervention.events ?? "").not.toContain("subsample-n");
  });
});

describe("round 23: a position label the question writes into an arm's name ('CT-P10 (group 1)')", () => {
  const text =
    "Methods. Forty patients were treated with drug X (group 1). A retrospective group (group 2) of 52 patients received drug Y. Results. During follow-up, 9/40 infections were observed in group 1 and 15/52 in group 2.";

  it("names the arm by that label where the report defines it before the label or not at all", () => {
    const [best] = readingsOf(
      text,
      "infections during follow-up",
      "drug X (group 1)",
      "drug Y, retrospective (group 2)",
    );
    expect(best.intervention).toMatchObject({ events: 9, groupSize: 40 });
    expect(best.comparator).toMatchObject({ events: 15, groupSize: 52 });
    expect(best.reason?.intervention.events).toContain('"group 1" is the intervention');
  });

  it("takes no label that names a combination of groups ('group D/E')", () => {
    const readings = readingsOf(text, "infections during follow-up", "drug X and drug Z (group 1/2)", "drug Y");
    expect(
      readings.every((r) => !(r.reason?.intervention.events ?? "").includes('"group 1" is the intervention')),
    ).toBe(true);
  });
});

describe("round 23: an abbreviation for only part of the outcome ('AE' for 'immune-mediated adverse events')", () => {
  const text =
    "Abbreviations: adverse events (AE). Results. During follow-up, 13/51 AE were observed in the exercise group and 17/75 in the control group. Among them, 7/13 and 6/17 were immune-mediated.";
  const question = {
    intervention: "exercise",
    comparator: "control",
    outcome: "immune-mediated adverse events among the adverse events",
  };

  it("does not give the broader outcome's numbers (abstract-outcome-elsewhere)", () => {
    const given = extractArms(parseReport(text, "text"), question);
    expect(given.intervention).toMatchObject({ events: null, groupSize: null });
    expect(given.comparator).toMatchObject({ events: null, groupSize: null });
  });

  it("still reads the abbreviation where the question spells out the whole outcome", () => {
    const given = extractArms(parseReport(text, "text"), { ...question, outcome: "adverse events during follow-up" });
    expect(given.intervention).toMatchObject({ events: 13, groupSize: 51 });
    expect(given.comparator).toMatchObject({ events: 17, groupSize: 75 });
  });
});

describe("round 23: arms that are the periods of a before/after comparison", () => {
  const text =
    "Methods. We reviewed the charts of eligible patients before and after the introduction of an electronic reminder. Results. 600 patients were eligible, 250 before the intervention and 350 after. Appropriate prophylaxis was prescribed in 40.0% before the change and 80.0% after (p<0.001).";
  const after = "electronic reminder for prophylaxis (after the intervention)";
  const before = "usual prescribing before the reminder (before the intervention)";
  const outcome = "appropriate prophylaxis prescribed";

  it("names each arm by its period, and reads each period's size", () => {
    const [best] = readingsOf(text, outcome, after, before);
    expect(best.intervention).toMatchObject({ events: 280, groupSize: 350 });
    expect(best.comparator).toMatchObject({ events: 100, groupSize: 250 });
  });

  it("does not name an arm by the intervention's own words, which every period's sentence uses", () => {
    const reminder = text.replace(
      "was prescribed in 40.0% before",
      "with the reminder's words was prescribed in 40.0% before",
    );
    expect(readingsOf(reminder, outcome, after, before)[0]?.comparator).toMatchObject({ events: 100 });
  });

  it("takes no time after a treatment for a period ('after 12 weeks')", () => {
    const weeks =
      "Results. 600 patients were eligible, 250 before the intervention and 350 after. Appropriate prophylaxis was 40.0% at baseline and 80.0% after 12 weeks.";
    expect(readingsOf(weeks, outcome, after, before)).toEqual([]);
  });

  it("still names an arm by its own words in a sentence that names no period ('9/98 with drug A vs 11/98 with drug B')", () => {
    const switching =
      "Results. 98 patients were included in each cohort. Adverse events occurred in 9/98 patients with the original drug vs 11/98 with the biosimilar drug.";
    const [best] = readingsOf(
      switching,
      "adverse events",
      "the biosimilar drug after switching (prospective cohort)",
      "the original drug before the switch (retrospective cohort)",
    );
    expect(best.intervention.events).toBe(11);
    expect(best.comparator.events).toBe(9);
  });

  it("leaves arms named by their treatment alone when only one names a period", () => {
    const readings = readingsOf(text, outcome, after, "usual prescribing");
    expect(readings.every((r) => r.comparator.groupSize !== 250)).toBe(true);
  });
});

describe("round 23: a percentage that more than one whole number of events fits", () => {
  const text =
    "Methods. 1640 patients were randomised to the exercise group and 591 to the control group. Results. Adherence was 90.4% in the exercise group and 55.3% in the control group.";

  it("leaves that arm's events out and keeps the other arm's (before, the reading was dropped)", () => {
    const [best] = readingsOf(text, "adherence");
    expect(best.intervention.events).toBeNull();
    expect(best.comparator).toMatchObject({ events: 327, groupSize: 591 });
  });

  it("drops the reading when no whole number fits (the percentage is not of that n)", () => {
    expect(readingsOf(text.replace("55.3%", "55.35%").replace("90.4%", "90.41%"), "adherence")).toEqual([]);
  });
});

describe("round 23: group sizes listed as 'n = N name'", () => {
  it("gives each name the n written before it, not the next name's", () => {
    const text =
      "Results. A total of 730 patients were randomized ( n = 367 exercise, n = 363 control). Response rates were 74.1% with exercise versus 75.8% with control.";
    const [best] = readingsOf(text, "response");
    expect(best.intervention).toMatchObject({ events: 272, groupSize: 367 });
    expect(best.comparator).toMatchObject({ events: 275, groupSize: 363 });
  });
});

describe("round 23: where the order of the arms' first mentions may not decide", () => {
  it("gives nothing when both values come before either arm is named", () => {
    const text =
      "Results. We found an acceptance of 89% (89/100) and a 72% (64/89) retention rate in the exercise group, against the control group.";
    expect(readingsOf(text, "retention rate")).toEqual([]);
  });

  it("gives nothing when the arm named first is a comparison's object and the other is not", () => {
    const text =
      "Results. Trust in doctors rose compared with control following one kind of visit, the group visit (trust out of 10 (SD) was 8.8 (1.5) and 7.1 (2.2)).";
    expect(readingsOf(text, "trust in doctors (out of 10)", "group visit", "no visit (control)")).toEqual([]);
  });

  it("still lets the order decide when the subject is named first ('than the controls (32% versus 13%)')", () => {
    const text =
      "Methods. 100 patients were randomised to the exercise group and 100 to the control group. Results. Patients in the exercise group were screened more often than the controls (32% versus 13%).";
    const [best] = readingsOf(text, "screened");
    expect(best.intervention).toMatchObject({ events: 32, groupSize: 100 });
    expect(best.comparator).toMatchObject({ events: 13, groupSize: 100 });
  });
});

describe("round 24: a value-first list with other groups' items between the arms", () => {
  const text =
    "Results. At 12 weeks, 30 (31.3%) of 96 patients in the leaflet group, 41 (41.0%) of 100 in the telephone group, 52 (53.1%) of 98 in the exercise group, and 20 (20.8%) of 96 in the control group were pain free.";

  it("gives each arm the value its name follows, past the other groups' items", () => {
    const [best] = readingsOf(text, "pain free at 12 weeks");
    expect(best.intervention).toMatchObject({ events: 52, groupSize: 98 });
    expect(best.comparator).toMatchObject({ events: 20, groupSize: 96 });
  });

  it("reads a list whose first value comes before any name as value-first ('was 74% (594/804) in the control group, 65% …')", () => {
    const first =
      "Results. The rate of pain-free patients was 33% (32/96) in the control group, 41% (41/100) in the leaflet group and 53% (52/98) in the exercise group.";
    const [best] = readingsOf(first, "pain-free patients");
    expect(best.intervention).toMatchObject({ events: 52, groupSize: 98 });
    expect(best.comparator).toMatchObject({ events: 32, groupSize: 96 });
  });

  it("does not read a list so loosely when its items are bare percentages, with no n of their own", () => {
    const bare =
      "Methods. 96 patients were randomised to the exercise group and 98 to the control group. Results. The rate of pain-free patients was 33% in the control group, 41% in the leaflet group and 53% in the exercise group.";
    expect(readingsOf(bare, "pain-free patients")).toEqual([]);
  });

  it("gives nothing when a value before the arm's leads to no group of its own", () => {
    const loose =
      "Results. At 12 weeks, 30 (31.3%) of 96 patients were seen, 52 (53.1%) of 98 in the exercise group, and 20 (20.8%) of 96 in the control group were pain free.";
    expect(readingsOf(loose, "pain free at 12 weeks")).toEqual([]);
  });
});

describe("round 24: a 'respectively' list followed by another clause's values", () => {
  const text =
    "Results. At week 12, 67.0% and 61.1% (90% CI -0.9 to 12.7) of patients receiving exercise (n=324) and control (n=321), respectively, were pain free; at week 24 the corresponding values were 69.0% and 64.5% (95% CI -3.4 to 12.5).";

  it("reads the list's values by the items before the 'respectively', leaving the later clause's", () => {
    const [best] = readingsOf(text, "pain free at week 12");
    expect(best.intervention).toMatchObject({ events: 217, groupSize: 324 });
    expect(best.comparator).toMatchObject({ events: 196, groupSize: 321 });
  });

  it("still reads nothing by 'respectively' when its list has fewer items than values", () => {
    const short = text.replace("exercise (n=324) and control (n=321)", "exercise (n=324)");
    expect(readingsOf(short, "pain free at week 12").every((r) => r.intervention.events !== 217)).toBe(true);
  });
});

describe("round 24: a unit of time in an arm's name", () => {
  it("does not take 'up to week 48' for a mention of the arm switched 'at week 24'", () => {
    const text =
      'Results. The mean change in pain score up to week 48 was comparable between "continued drug" (2.90 ± 1.20, n = 148) and "switched to drug" (2.78 ± 1.30, n = 131) groups.';
    const [best] = readingsOf(
      text,
      "change in pain score up to week 48",
      "switch to drug at week 24",
      "continued drug",
    );
    expect(best.intervention).toMatchObject({ mean: 2.78 });
    expect(best.comparator).toMatchObject({ mean: 2.9 });
  });
});

describe("round 24: a minus sign set apart from its number", () => {
  it("reads '(- 2.90 ± 1.20' and '(− 2.78 ± 1.30' as negative means, the sign in the quote", () => {
    const text =
      "Results. The mean change in pain score was comparable between the exercise group (- 2.90 ± 1.20, n = 148) and the control group (− 2.78 ± 1.30, n = 131).";
    const [best] = readingsOf(text, "change in pain score");
    expect(best.intervention).toMatchObject({ mean: -2.9, sd: 1.2 });
    expect(best.comparator).toMatchObject({ mean: -2.78, sd: 1.3 });
    expect(best.quotes.find((q) => q.arm === "intervention" && q.field === "mean")?.text).toBe("- 2.90 ± 1.20");
  });

  it("leaves a number after a number and a dash alone (a range or a subtraction, not a sign)", () => {
    const sentence = "Pain fell by 3.1 - 2.9 ± 0.8 points in the exercise group.";
    const values = proseValues(sentence, hintsOf(sentence));
    expect(values.every((v) => v.stats.mean === undefined || v.stats.mean >= 0)).toBe(true);
  });
});

describe("round 24: pairs of several outcomes with the arms named once after them as 'those who …'", () => {
  it("reads the outcome's pair when the arms are 'those who switched to A and those who continued B'", () => {
    const text =
      "Methods. Patients who switched to exercise (n = 191) and those who continued control (n = 19) were compared. Results. There was no difference in remission (58.1% vs. 47.4%, p = .37) or secondary loss of response (24.6% vs. 42.1%, p = .10) between those who switched to exercise and those who continued control.";
    const [best] = readingsOf(text, "secondary loss of response", "switched to exercise", "continued control");
    expect(best.intervention).toMatchObject({ events: 47, groupSize: 191 });
    expect(best.comparator).toMatchObject({ events: 8, groupSize: 19 });
  });
});

describe("round 24: a count's own percentage a few words after it", () => {
  it("is part of the count ('186 of 205 control patients (91%)'), so the two counts are read", () => {
    const text =
      "Results. 186 of 205 control patients (91%) and 165 of 191 exercise patients (86%) completed the study.";
    const [best] = readingsOf(text, "patients completing the study");
    expect(best.intervention).toMatchObject({ events: 165, groupSize: 191 });
    expect(best.comparator).toMatchObject({ events: 186, groupSize: 205 });
  });

  it("stays a value of its own when the count does not round to it", () => {
    const sentence = "Results. 186 of 205 control patients (45%) completed the study.";
    expect(proseValues(sentence, hintsOf(sentence))).toHaveLength(2);
  });
});

describe("round 24: a three-arm list, name-first for one arm and value-first for the others", () => {
  const text =
    "Results. In the exercise+ group, 275 of 606 patients (45.4%) were pain free compared with 254 of 620 (41.0%) in the exercise group and 52 of 615 (8.5%) in the control group.";

  it("reads each arm's one tied value, and takes the bare 'exercise' for another arm than 'exercise+'", () => {
    const plus = readingsOf(text, "pain free", "exercise plus advice (exercise+)", "control");
    expect(plus[0].intervention).toMatchObject({ events: 275, groupSize: 606 });
    expect(plus[0].comparator).toMatchObject({ events: 52, groupSize: 615 });
    const [bare] = readingsOf(text, "pain free", "exercise", "control");
    expect(bare.intervention).toMatchObject({ events: 254, groupSize: 620 });
    expect(bare.comparator).toMatchObject({ events: 52, groupSize: 615 });
  });

  it("gives nothing by ties when an arm has two tied values", () => {
    const twice = text.replace("in the exercise group", "in the control group");
    expect(readingsOf(twice, "pain free", "exercise plus advice (exercise+)", "control")).toEqual([]);
  });
});
