import { describe, expect, it } from "vitest";
import { ABSTRACT_MAX_CHARS } from "./extract.ts";
import { extractArms, HARD_GATES, HARD_GATES_ON, parseReport } from "./index.ts";
import { hintsOf, parseCell } from "./notation.ts";

/**
 * Round 18 (docs/methods/arm-extraction.md "Round 18"): families met in two real trial reports read from their PDFs
 * (../shared/pdfs, never part of the arm data). Every report here is invented; tables are written as the PDF reader
 * writes them, one line per row with a tab at each column gap.
 */
const T = "\t";

function ask(text: string, outcome: string, intervention = "drug", comparator = "placebo") {
  return extractArms(parseReport(text, "text"), { intervention, comparator, outcome });
}

describe("tables in PDF text (tab-separated columns)", () => {
  const bmj = [
    "Results",
    "We randomised 400 women: 200 to the drug group and 200 to the placebo group.",
    "table 4 | Birth outcomes by group. Values are number with outcome/total number in group (percentage) unless stated otherwise",
    ["Outcomes (singleton births)", "Drug group (n=196)", "Placebo group (n=198)", "Odds ratio (95% CI)"].join(T),
    ["Miscarriage", "5/195 (3)", "9/197 (5)", "0.55 (0.18 to 1.66)"].join(T),
    ["Mean (SD) birth weight (g)", "n=180, 3210.5 (512.3)", "n=184, 3105.0 (560.1)", "105.5 (−4.2 to 215.2)"].join(T),
    ["Caesarean delivery", "40/182 (22)", "61/185 (33)", "0.57 (0.36 to 0.91)"].join(T),
    "*Adjusted for centre.",
  ].join("\n");

  it("reads a one-line header with the stub's label and the arms' n, and counts in n/N (%) cells", () => {
    const r = ask(bmj, "caesarean delivery");
    expect(r.outcomeType).toBe("binary");
    expect(r.intervention).toMatchObject({ events: 40, groupSize: 182 });
    expect(r.comparator).toMatchObject({ events: 61, groupSize: 185 });
  });

  it("reads the n written before a mean (SD) in one cell as the arm's n for that row", () => {
    const r = ask(bmj, "birth weight (g)");
    expect(r.outcomeType).toBe("continuous");
    expect(r.intervention).toMatchObject({ mean: 3210.5, sd: 512.3, groupSize: 180 });
    expect(r.comparator).toMatchObject({ mean: 3105.0, sd: 560.1, groupSize: 184 });
  });

  const lancet = [
    "Table 1: Baseline characteristics",
    ...Array.from({ length: 20 }, (_, k) => `Discussion line ${k + 1} of the methods, with no numbers of any table.`),
    ["Drug", "Placebo", "Relative risk (95% CI)", "Odds ratio (95% CI)", "Risk"].join(T),
    "difference (95% CI)",
    "p value",
    "Relapse by 12 months",
    [
      "Stratum A",
      "30/300 (10%)",
      "45/300 (15%)",
      "0·67 (0·43 to 1·03)",
      "0·63 (0·39 to 1·03)",
      "–5·0 (–10·2 to 0·2)",
      "0·07",
    ].join(T),
    [
      "Stratum B",
      "20/250 (8%)",
      "22/240 (9%)",
      "0·87 (0·49 to 1·55)",
      "0·86 (0·46 to 1·60)",
      "–1·2 (–6·1 to 3·7)",
      "0·64",
    ].join(T),
    "Relapse by 24 months",
    [
      "Stratum A",
      "50/300 (17%)",
      "70/300 (23%)",
      "0·71 (0·52 to 0·99)",
      "0·66 (0·44 to 0·99)",
      "–6·7 (–13·0 to –0·3)",
      "0·04",
    ].join(T),
    [
      "Stratum B",
      "31/250 (12%)",
      "33/240 (14%)",
      "0·90 (0·57 to 1·43)",
      "0·89 (0·53 to 1·50)",
      "–1·4 (–7·4 to 4·6)",
      "0·66",
    ].join(T),
    "Data are n/N (%). Participants lost to follow-up were counted as relapsed.",
    "Table 2: Relapse by stratum",
  ].join("\n");

  it("finds a header above section rows, aligns it after an empty stub, keeps section rows, takes the caption below", () => {
    const table = parseReport(lancet, "text").tables[0];
    expect(table.caption).toBe("Table 2: Relapse by stratum");
    expect(table.label).toBe("Table 2");
    expect(table.header[0].slice(0, 3)).toEqual(["", "Drug", "Placebo"]);
    expect(table.rows[0][0]).toBe("Relapse by 12 months");
    expect(table.rows[1].slice(0, 3)).toEqual(["Stratum A", "30/300 (10%)", "45/300 (15%)"]);
    expect(table.rows.map((row) => row[0])).toContain("Relapse by 24 months");
  });

  it("does not take a caption far above for the table (a stale 'Baseline characteristics' would make it a baseline table)", () => {
    const text = lancet.split("\n").slice(0, -1).join("\n");
    expect(parseReport(text, "text").tables[0].caption).toBe("");
  });
});

describe("PDF tables whose header cells and row labels wrap onto several lines", () => {
  const stacked = [
    "We randomised 300 smokers: 150 to the drug group and 150 to the placebo group.",
    "table 2 | Abstinence outcomes. values are numbers",
    "(percentages) unless stated otherwise",
    "Outcomes",
    "Drug group",
    "(n=150)",
    "Placebo group",
    "(n=150)",
    "Odds ratio (95% CI)",
    "with basic adjustment",
    "Primary:",
    "Validated continuous abstinence at end",
    "of treatment",
    ["20 (13)", "11 (7)", "1.96 (0.90 to 4.24)"].join(T),
    "Secondary:",
    ["Self reported abstinence at 6 months", "30 (20)", "18 (12)", "1.83 (0.97 to 3.45)"].join(T),
    ["Validated abstinence at 6 months", "16 (11)", "9 (6)", "1.85 (0.79 to 4.33)"].join(T),
    "*Adjusted for centre.",
  ].join("\n");

  it("rebuilds a header stacked one cell per line under the caption and a row label wrapped above its data", () => {
    const table = parseReport(stacked, "text").tables[0];
    expect(table.label).toBe("table 2");
    expect(table.header[0]).toEqual([
      "Outcomes",
      "Drug group (n=150)",
      "Placebo group (n=150)",
      "Odds ratio (95% CI) with basic adjustment",
    ]);
    expect(table.rows[0]).toEqual(["Primary:", "", "", ""]);
    expect(table.rows[1]).toEqual([
      "Validated continuous abstinence at end of treatment",
      "20 (13)",
      "11 (7)",
      "1.96 (0.90 to 4.24)",
    ]);
    const r = ask(stacked, "validated continuous abstinence at end of treatment");
    expect(r.intervention).toMatchObject({ events: 20, groupSize: 150 });
    expect(r.comparator).toMatchObject({ events: 11, groupSize: 150 });
  });

  it("rebuilds a stacked header under a spanning header line, which becomes a first header row", () => {
    const text = [
      "the text of the methods goes on here and ends",
      ["Younger (N=200)", "Older (N=180)"].join(T),
      "Drug",
      "(n=100)",
      "Placebo",
      "(n=100)",
      "Drug",
      "(n=90)",
      "Placebo",
      "(n=90)",
      ["Relapse", "10 (10%)", "20 (20%)", "12 (13%)", "18 (20%)"].join(T),
      ["Remission", "50 (50%)", "41 (41%)", "40 (44%)", "35 (39%)"].join(T),
      ["Death", "1 (1%)", "2 (2%)", "3 (3%)", "2 (2%)"].join(T),
    ].join("\n");
    const table = parseReport(text, "text").tables[0];
    expect(table.header).toEqual([
      ["", "Younger (N=200)", "Younger (N=200)", "Older (N=180)", "Older (N=180)"],
      ["", "Drug (n=100)", "Placebo (n=100)", "Drug (n=90)", "Placebo (n=90)"],
    ]);
    expect(table.rows[0][0]).toBe("Relapse");
  });

  it("drops the wrapped fragments of a one-line header and never takes running text above for a header", () => {
    const headerFirst = [
      ["Drug (n=100)", "Placebo (n=100)", "Risk", "p"].join(T),
      "difference (95% CI)",
      ["Relapse", "10/100 (10%)", "20/100 (20%)", "–10 (–20 to 0)", "0·05"].join(T),
      ["Remission", "50/100 (50%)", "41/100 (41%)", "9 (–5 to 23)", "0·20"].join(T),
      ["Death", "1/100 (1%)", "2/100 (2%)", "–1 (–5 to 3)", "0·56"].join(T),
    ].join("\n");
    const first = parseReport(headerFirst, "text").tables[0];
    expect(first.header[0].slice(0, 3)).toEqual(["", "Drug (n=100)", "Placebo (n=100)"]);
    expect(first.rows.map((row) => row[0])).toEqual(["Relapse", "Remission", "Death"]);
    const prose = [
      "participants in the drug group were seen",
      "weekly, and those in the placebo group",
      "monthly, by the same nurses",
      ["Relapse", "10 (10%)", "20 (20%)"].join(T),
      ["Remission", "50 (50%)", "41 (41%)"].join(T),
      ["Death", "1 (1%)", "2 (2%)"].join(T),
    ].join("\n");
    expect(parseReport(prose, "text").tables[0].header[0]).toEqual(["Relapse", "10 (10%)", "20 (20%)"]);
  });
});

describe("cells with the arm's n before the statistic", () => {
  const meanSd = hintsOf("Values are numbers, means (standard deviations)");
  const none = hintsOf("Outcome");

  it("reads 'n=354, mean (SD)' whatever the hints, and 'n, mean (SD)' only under a mean (SD) hint", () => {
    expect(parseCell("n=354, 3132.4 (581.7)", meanSd, null)).toMatchObject({
      kind: "continuous",
      mean: 3132.4,
      sd: 581.7,
      groupSize: 354,
    });
    expect(parseCell("n = 40; 12.1 ± 3.0", none, null)).toMatchObject({ mean: 12.1, sd: 3.0, groupSize: 40 });
    expect(parseCell("194, 7.2 (5.0)", meanSd, null)).toMatchObject({ mean: 7.2, sd: 5.0, groupSize: 194 });
    expect(parseCell("194, 7.2 (5.0)", none, null).groupSize).toBeUndefined();
  });

  it("gives no n for two bare numbers or a count larger than the n", () => {
    expect(parseCell("12, 13", meanSd, null).groupSize).toBeUndefined();
    expect(parseCell("n=20, 25 (30%)", none, null)).toEqual({ kind: "unknown" });
  });
});

describe("a confidence level is not a group's percentage", () => {
  it("reads 'x [p%] vs y [q%]' in a sentence that also gives a ratio with its 95% CI", () => {
    const text =
      "We assigned 200 participants to the drug group and 200 to the placebo group.\n\nRelapse was less frequent with the drug than with placebo (40 [20%] vs 60 [30%] participants; RR 0·67, 95% CI 0·47–0·95; p=0·02).";
    const r = ask(text, "relapse");
    expect(r.intervention).toMatchObject({ events: 40, groupSize: 200 });
    expect(r.comparator).toMatchObject({ events: 60, groupSize: 200 });
  });

  it("still reads nothing when two outcomes' counts share the sentence", () => {
    const text =
      "We assigned 200 participants to the drug group and 200 to the placebo group.\n\nRates were similar with the drug and with placebo for relapse (40 [20%] vs 42 [21%] participants; RR 0·95, 95% CI 0·65–1·39) and for remission (90 [45%] vs 85 [43%] participants; 1·06, 0·85–1·32).";
    const r = ask(text, "relapse");
    expect(r.intervention.events).toBeNull();
    expect(r.comparator.events).toBeNull();
  });
});

describe("abbreviations a footnote defines without spaces (Lancet, JAMA: 'SES=socioeconomic status')", () => {
  it("reads 'X=long form' and 'X=Long Form' definitions and matches a row named by the abbreviation", () => {
    const text = [
      "Table 2: Relapse at 12 months",
      ["Drug (n=400)", "Placebo (n=400)", "Risk ratio (95% CI)"].join(T),
      ["Low SES", "20/190 (11%)", "35/188 (19%)", "0·57 (0·34 to 0·95)"].join(T),
      ["High SES", "25/210 (12%)", "27/212 (13%)", "0·93 (0·56 to 1·56)"].join(T),
      ["All participants", "45/400 (11%)", "62/400 (16%)", "0·73 (0·51 to 1·04)"].join(T),
      "Data are n/N (%). SES=socioeconomic status. CI=confidence interval.",
    ].join("\n");
    const r = ask(text, "relapse at 12 months in participants with low socioeconomic status");
    expect(r.intervention).toMatchObject({ events: 20, groupSize: 190 });
    expect(r.comparator).toMatchObject({ events: 35, groupSize: 188 });
  });
});

describe("abstract families (nine real abstracts of ../shared/screening; the sentences here are invented)", () => {
  it("reads no count inside decimals: '129.7/76.6 mm Hg' is a blood pressure, not 7 of 76", () => {
    const text =
      "We randomised 296 patients to the pharmacist group and 288 to the control group.\n\nAt the end of the study, mean blood pressure was lower in the pharmacist group (129.7/76.6 mm Hg) than in the control group (140.8/78.9 mm Hg; p<0.001).";
    const r = ask(text, "systolic blood pressure", "pharmacist", "control");
    expect(r.intervention.events).toBeNull();
    expect(r.comparator.events).toBeNull();
    const counts = ask(
      "Relapse occurred in 12/60 patients in the drug group and 20/61 in the placebo group.",
      "relapse",
    );
    expect(counts.intervention).toMatchObject({ events: 12, groupSize: 60 });
  });

  it("takes 'intervention participants' / 'control practices' for the arms' roles, as 'intervention group' is", () => {
    const text =
      "Practices were randomised to the nurse-led model of care or to usual care.\n\nAt 12 months, in intervention practices, 105/151 (70%) of participants had started insulin, compared with 25/115 (22%) in control practices (odds ratio 8.3, 95% CI 4.5 to 15.4).";
    const r = extractArms(parseReport(text, "text"), {
      intervention: "nurse-led model of care",
      comparator: "usual care",
      outcome: "participants who started insulin at 12 months",
    });
    expect(r.intervention).toMatchObject({ events: 105, groupSize: 151 });
    expect(r.comparator).toMatchObject({ events: 25, groupSize: 115 });
  });

  const trailer =
    "We randomised 348 patients to the drug or to placebo.\n\nRelapse (12.1% [21/174] vs 20.2% [35/173]) and hospital admission (5.2% [9/174] vs 9.8% [17/173]) for the drug vs placebo were less frequent.";

  it("pairs several outcomes' 'a vs b' values with the arms named once after them ('… for A vs B'), '% [n/N]' read whole", () => {
    const relapse = ask(trailer, "relapse");
    expect(relapse.intervention).toMatchObject({ events: 21, groupSize: 174 });
    expect(relapse.comparator).toMatchObject({ events: 35, groupSize: 173 });
    const admission = ask(trailer, "hospital admission");
    expect(admission.intervention).toMatchObject({ events: 9, groupSize: 174 });
    expect(admission.comparator).toMatchObject({ events: 17, groupSize: 173 });
    const reversed = ask(trailer.replace("for the drug vs placebo", "for placebo vs the drug"), "relapse");
    expect(reversed.intervention).toMatchObject({ events: 35, groupSize: 173 });
  });

  it("reads no pair when the outcome names no pair's own words or the arms are not named after the values", () => {
    expect(ask(trailer, "mortality").intervention.events).toBeNull();
    const between = trailer.replace(") and hospital admission", ") with the drug and hospital admission");
    expect(ask(between, "hospital admission").intervention.events).toBeNull();
  });

  const twoOutcomes =
    "Decisions for exercise electrocardiography were more appropriate with the drug (819/1491 [55%]) compared with placebo (648/1488 [44%]).\n\nThe effect was stronger for angiography (1274/1595 [80%] with the drug compared with 1009/1576 [64%] with placebo).";

  // The same text at a full text's length: round 22's abstract-outcome-elsewhere does not apply to it.
  const fullText = `${twoOutcomes}\n\n${"The trial was done in twelve centres. ".repeat(170)}`;
  const question = { intervention: "drug", comparator: "placebo", outcome: "appropriate decisions for angiography" };

  it("outcome-elsewhere (not kept by its adoption rule, off in the product) withholds a sentence lacking a word another numeric sentence names", () => {
    expect(HARD_GATES).toContain("outcome-elsewhere");
    expect(HARD_GATES_ON).not.toContain("outcome-elsewhere");
    const off = extractArms(parseReport(fullText, "text"), question);
    expect(off.intervention.events).toBe(819);
    const on = extractArms(parseReport(twoOutcomes, "text"), question, { hardGates: [...HARD_GATES] });
    expect(on.intervention.events).toBeNull();
    expect(on.reason?.intervention.events).toMatch(/outcome-elsewhere/);
    const named = extractArms(
      parseReport(twoOutcomes, "text"),
      {
        ...question,
        outcome: "appropriate decisions for exercise electrocardiography",
      },
      { hardGates: [...HARD_GATES] },
    );
    expect(named.intervention).toMatchObject({ events: 819, groupSize: 1491 });
  });

  it("round 22 abstract-outcome-elsewhere: on in the product for a report of an abstract's size, not for a full text", () => {
    expect(HARD_GATES_ON).toContain("abstract-outcome-elsewhere");
    const abstract = extractArms(parseReport(twoOutcomes, "text"), question);
    expect(abstract.intervention.events).toBeNull();
    expect(abstract.reason?.intervention.events).toMatch(/outcome-elsewhere/);
    expect(fullText.length).toBeGreaterThan(ABSTRACT_MAX_CHARS);
    expect(extractArms(parseReport(fullText, "text"), question).intervention.events).toBe(819);
  });
});

describe("the outcome type a question names (the head of its phrase)", () => {
  const empty = "We randomised 100 participants to the drug group and 100 to the placebo group.";
  it.each([
    ["EPDS depression score at end of pregnancy", "continuous"],
    ["birth weight (g)", "continuous"],
    ["Heart failure-related quality of life at the end of treatment", "continuous"],
    ["preterm birth", "binary"],
    ["weight gain in pregnancy", "continuous"],
    ["mortality at 28 days", "binary"],
  ])("%s → %s", (outcome, type) => {
    expect(ask(empty, outcome).outcomeType).toBe(type);
  });
});
