import { describe, expect, it } from "vitest";
import { extractArms, parseReport, type ReportFormat } from "./index.ts";

/** Table and prose styles of trial reports from several journals (every table and sentence invented). */
function ask(text: string, format: ReportFormat, intervention: string, comparator: string, outcome: string) {
  // Reading families: what is read, with abstention off (abstention itself is tested in confidence.test.ts).
  return extractArms(parseReport(text, format), { intervention, comparator, outcome }, { abstainBelow: 0 });
}

describe("table styles", () => {
  it("NEJM: 'no. (%)' in the row label, N in the column headers", () => {
    const html = `<table><caption>Table 2. Outcomes</caption>
      <thead><tr><th>Outcome</th><th>Velotrexin (N=250)</th><th>Placebo (N=251)</th><th>Hazard Ratio (95% CI)</th></tr></thead>
      <tbody><tr><td>Death from any cause — no. (%)</td><td>31 (12.4)</td><td>20 (8.0)</td><td>1.56 (0.89–2.73)</td></tr>
      <tr><td>Stroke — no. (%)</td><td>4 (1.6)</td><td>9 (3.6)</td><td>0.44 (0.14–1.43)</td></tr></tbody></table>`;
    const r = ask(html, "html", "velotrexin", "placebo", "death from any cause");
    expect(r.outcomeType).toBe("binary");
    expect(r.intervention).toMatchObject({ events: 31, groupSize: 250 });
    expect(r.comparator).toMatchObject({ events: 20, groupSize: 251 });
  });

  it("BMJ: group sizes on a second header row, n/N (%) cells", () => {
    const jats = `<table-wrap><label>Table 3</label><caption><p>Primary outcome</p></caption><table>
      <thead><tr><th rowspan="2"></th><th>Physiotherapy</th><th>Advice</th></tr><tr><th>(n=112)</th><th>(n=110)</th></tr></thead>
      <tbody><tr><td>Recovered at 6 months</td><td>70/108 (64.8)</td><td>52/104 (50.0)</td></tr></tbody></table></table-wrap>`;
    const r = ask(jats, "jats", "physiotherapy", "advice", "recovered");
    expect(r.intervention).toMatchObject({ events: 70, groupSize: 108 });
    expect(r.comparator).toMatchObject({ events: 52, groupSize: 104 });
  });

  it("Trials: an n row above mean (SD) rows", () => {
    const md = [
      "| Measure | Exercise | Waiting list |",
      "|---|---|---|",
      "| n | 38 | 36 |",
      "| Fatigue score, mean (SD) | 21.4 (6.2) | 26.9 (5.8) |",
    ].join("\n");
    const r = ask(md, "markdown", "exercise", "waiting list", "fatigue");
    expect(r.intervention).toMatchObject({ mean: 21.4, sd: 6.2, groupSize: 38 });
    expect(r.comparator).toMatchObject({ mean: 26.9, sd: 5.8, groupSize: 36 });
  });

  it("JATS with spanning arm headers over n | Mean | SD sub-columns", () => {
    const jats = `<table-wrap><label>Table 2</label><caption><p>Scores after treatment</p></caption><table>
      <thead><tr><th rowspan="2">Scale</th><th colspan="3">CBT</th><th colspan="3">Usual care</th></tr>
      <tr><th>n</th><th>Mean</th><th>SD</th><th>n</th><th>Mean</th><th>SD</th></tr></thead>
      <tbody><tr><td>PHQ-9</td><td>60</td><td>8.2</td><td>4.1</td><td>58</td><td>11.5</td><td>5.0</td></tr></tbody></table></table-wrap>`;
    const r = ask(jats, "jats", "CBT", "usual care", "PHQ-9");
    expect(r.intervention).toMatchObject({ mean: 8.2, sd: 4.1, groupSize: 60 });
    expect(r.comparator).toMatchObject({ mean: 11.5, sd: 5.0, groupSize: 58 });
  });

  it("PLoS: arms as rows with n | Mean | SD columns and the outcome in the caption", () => {
    const md = [
      "::::table-wrap",
      "::: caption",
      "Table 4. Systolic blood pressure at 12 weeks",
      ":::",
      "",
      "| Group | n | Mean | SD |",
      "|---|---|---|---|",
      "| Salt substitute | 150 | 138.2 | 14.1 |",
      "| Regular salt | 148 | 142.9 | 15.3 |",
      "::::",
    ].join("\n");
    const r = ask(md, "markdown", "salt substitute", "regular salt", "systolic blood pressure");
    expect(r.intervention).toMatchObject({ mean: 138.2, sd: 14.1, groupSize: 150 });
    expect(r.comparator).toMatchObject({ mean: 142.9, sd: 15.3, groupSize: 148 });
  });

  it("derives SD from a mean (SE) table and from a mean (95% CI) table", () => {
    const se = [
      "| | Drug A (n = 100) | Placebo (n = 100) |",
      "|---|---|---|",
      "| Weight loss, kg, mean (SE) | 5.0 (0.5) | 2.0 (0.4) |",
    ].join("\n");
    const a = ask(se, "markdown", "drug A", "placebo", "weight loss");
    expect(a.intervention).toMatchObject({ mean: 5, sd: 5, groupSize: 100 });
    expect(a.comparator).toMatchObject({ mean: 2, sd: 4, groupSize: 100 });
    expect(a.derived.map((d) => d.field)).toEqual(["sd", "sd"]);
    const ci = [
      "| | Drug A (n = 100) | Placebo (n = 100) |",
      "|---|---|---|",
      "| Weight loss, kg, mean (95% CI) | 5.0 (4.02 to 5.98) | 2.0 (1.22 to 2.78) |",
    ].join("\n");
    const b = ask(ci, "markdown", "drug A", "placebo", "weight loss");
    expect(b.intervention.mean).toBe(5);
    expect(b.intervention.sd).toBeCloseTo(5, 1);
    expect(b.comparator.sd).toBeCloseTo(3.98, 1);
  });
});

describe("prose styles", () => {
  it("mean (SD) named once for both arms", () => {
    const r = ask(
      "The mean (SD) pain score at week 6 was 3.2 (1.9) in the acupuncture group and 4.6 (2.1) in the sham group.",
      "text",
      "acupuncture",
      "sham acupuncture",
      "pain score",
    );
    expect(r.intervention).toMatchObject({ mean: 3.2, sd: 1.9 });
    expect(r.comparator).toMatchObject({ mean: 4.6, sd: 2.1 });
  });

  it("percentages with the group sizes stated in another paragraph", () => {
    const r = ask(
      "Of 501 patients, 250 were randomly assigned to early surgery and 251 to watchful waiting.\n\nAt one year, reoperation had occurred in 12.4% of the early surgery group and 8.0% of the watchful waiting group.",
      "text",
      "early surgery",
      "watchful waiting",
      "reoperation",
    );
    expect(r.intervention).toMatchObject({ events: 31, groupSize: 250 });
    expect(r.comparator).toMatchObject({ events: 20, groupSize: 251 });
  });

  it("reads the counts of an event outcome from a sentence that also carries means", () => {
    const r = ask(
      "In the drug group (n = 120), 45 of 120 patients (37.5%) had a response, compared with 30 of 118 (25.4%) in the placebo group (n = 118); mean weight was 80 ± 10 kg and 81 ± 11 kg.",
      "text",
      "drug",
      "placebo",
      "response",
    );
    expect(r.outcomeType).toBe("binary");
    expect(r.intervention).toMatchObject({ events: 45, groupSize: 120, mean: null });
    expect(r.comparator).toMatchObject({ events: 30, groupSize: 118, mean: null });
  });

  it("splits sentences after a unit ('… 81 kg. In the …') and keeps clauses after a semicolon together", () => {
    const first = ask(
      "Mean weight was 80 kg and 81 kg. In the drug group, 45 of 120 patients had a response; 30 of 118 in the placebo group did.",
      "text",
      "drug",
      "placebo",
      "response",
    );
    expect(first.intervention).toMatchObject({ events: 45, groupSize: 120 });
    expect(first.comparator).toMatchObject({ events: 30, groupSize: 118 });
  });

  it("zero events: 'no cases of' with the other arm's count", () => {
    const r = ask(
      "There were no cases of pneumonia in the vaccine group (n = 80), compared with 6/79 in the control group.",
      "text",
      "vaccine",
      "control",
      "pneumonia",
    );
    expect(r.intervention).toMatchObject({ events: 0 });
    expect(r.comparator).toMatchObject({ events: 6, groupSize: 79 });
  });
});

describe("more table and prose families", () => {
  const cases: {
    name: string;
    format: ReportFormat;
    arms: [string, string, string];
    text: string;
    intervention: Record<string, number>;
    comparator: Record<string, number>;
  }[] = [
    {
      name: "a percentage-only row ('Response, %') with n in the column headers",
      format: "markdown",
      arms: ["drug", "placebo", "response"],
      text: "| | Drug (n = 48) | Placebo (n = 49) |\n|---|---|---|\n| Response, % | 56.3 | 24.5 |",
      intervention: { events: 27, groupSize: 48 },
      comparator: { events: 12, groupSize: 49 },
    },
    {
      name: "arms as rows with Events | Total columns (Cochrane-style data table)",
      format: "markdown",
      arms: ["drug", "placebo", "response"],
      text: "::::table-wrap\n::: caption\nTable 2. Response at week 12\n:::\n\n| Group | Events | Total |\n|---|---|---|\n| Drug | 27 | 48 |\n| Placebo | 12 | 49 |\n::::",
      intervention: { events: 27, groupSize: 48 },
      comparator: { events: 12, groupSize: 49 },
    },
    {
      name: "'x of N patients (p%)' for each arm in one sentence",
      format: "text",
      arms: ["drug", "placebo", "response"],
      text: "In the ITT population, 45 of 120 patients (37.5%) in the drug group and 30 of 118 (25.4%) in the placebo group had a response.",
      intervention: { events: 45, groupSize: 120 },
      comparator: { events: 30, groupSize: 118 },
    },
    {
      name: "counts written as words ('Twelve of the 60 patients')",
      format: "text",
      arms: ["drug", "placebo", "mortality"],
      text: "Twelve of the 60 patients in the drug group died, as compared with 20 of the 61 patients in the placebo group.",
      intervention: { events: 12, groupSize: 60 },
      comparator: { events: 20, groupSize: 61 },
    },
    {
      name: "'(mean 3.1, SD 1.2)' in prose",
      format: "text",
      arms: ["drug", "placebo", "pain"],
      text: "Pain scores at 8 weeks were lower with drug (mean 3.1, SD 1.2) than with placebo (mean 4.0, SD 1.5).",
      intervention: { mean: 3.1, sd: 1.2 },
      comparator: { mean: 4.0, sd: 1.5 },
    },
    {
      name: "the question spells out what a footnote abbreviates (HAM-D, Hamilton Depression Rating Scale)",
      format: "markdown",
      arms: ["sertraline", "placebo", "Hamilton Depression Rating Scale score"],
      text: "::::table-wrap\n::: caption\nTable 2. Outcomes\n:::\n\n| | Sertraline (n = 60) | Placebo (n = 58) |\n|---|---|---|\n| HAM-D | 10.2 (5.1) | 13.9 (6.0) |\n\nHAM-D, Hamilton Depression Rating Scale. Values are mean (SD).\n::::",
      intervention: { mean: 10.2, sd: 5.1, groupSize: 60 },
      comparator: { mean: 13.9, sd: 6.0, groupSize: 58 },
    },
    {
      name: "'n (p%) of N' in prose",
      format: "text",
      arms: ["drug", "placebo", "serious adverse events"],
      text: "Serious adverse events occurred in 5 (4.2%) of 120 patients in the drug group and 7 (5.9%) of 118 in the placebo group.",
      intervention: { events: 5, groupSize: 120 },
      comparator: { events: 7, groupSize: 118 },
    },
    {
      name: "three doses: the named dose, not its neighbour",
      format: "markdown",
      arms: ["drug 10 mg", "placebo", "response"],
      text: "| | Drug 5 mg (n = 50) | Drug 10 mg (n = 48) | Placebo (n = 49) |\n|---|---|---|---|\n| Response, n (%) | 20 (40.0) | 27 (56.3) | 12 (24.5) |",
      intervention: { events: 27, groupSize: 48 },
      comparator: { events: 12, groupSize: 49 },
    },
    {
      name: "columns named by role ('Intervention', 'Control') for named arms",
      format: "markdown",
      arms: ["exercise program", "usual care", "fatigue score"],
      text: "| | Intervention (n = 30) | Control (n = 30) |\n|---|---|---|\n| Fatigue score, mean (SD) | 21.4 (6.2) | 26.9 (5.8) |",
      intervention: { mean: 21.4, sd: 6.2, groupSize: 30 },
      comparator: { mean: 26.9, sd: 5.8, groupSize: 30 },
    },
    {
      name: "bare whole numbers on the row of an event outcome are counts, not means",
      format: "markdown",
      arms: ["drug", "placebo", "hospitalisation"],
      text: "| | Drug (n = 40) | Placebo (n = 41) |\n|---|---|---|\n| Hospitalization | 4 | 9 |",
      intervention: { events: 4, groupSize: 40 },
      comparator: { events: 9, groupSize: 41 },
    },
  ];
  it.each(cases)("$name", ({ format, arms, text, intervention, comparator }) => {
    const r = ask(text, format, ...arms);
    expect(r.intervention).toMatchObject(intervention);
    expect(r.comparator).toMatchObject(comparator);
    if ("events" in intervention) expect(r.intervention.mean).toBeNull();
  });

  it("leaves the median (IQR) row blank and reads the mean (SD) row of the same outcome", () => {
    const text =
      "| | Drug (n = 40) | Placebo (n = 41) |\n|---|---|---|\n| Depression score, median (IQR) | 12 (8–15) | 14 (10–18) |\n| Depression score, mean (SD) | 12.1 (4.0) | 14.2 (4.4) |";
    const r = ask(text, "markdown", "drug", "placebo", "depression score");
    expect(r.intervention).toMatchObject({ mean: 12.1, sd: 4.0, groupSize: 40 });
    expect(r.comparator).toMatchObject({ mean: 14.2, sd: 4.4, groupSize: 41 });
  });
});

describe("baseline values are not outcome values", () => {
  it("prefers the outcome table over the baseline-characteristics table", () => {
    const text = [
      "::::table-wrap",
      "::: caption",
      "Table 1. Baseline characteristics",
      ":::",
      "",
      "| | Drug (n = 50) | Placebo (n = 50) |",
      "|---|---|---|",
      "| Weight, kg | 80 ± 10 | 81 ± 11 |",
      "::::",
      "",
      "::::table-wrap",
      "::: caption",
      "Table 2. Outcomes at 12 weeks",
      ":::",
      "",
      "| | Drug (n = 48) | Placebo (n = 47) |",
      "|---|---|---|",
      "| Weight, kg | 75 ± 9 | 80 ± 10 |",
      "::::",
    ].join("\n");
    expect(ask(text, "markdown", "drug", "placebo", "weight").intervention).toMatchObject({
      mean: 75,
      sd: 9,
      groupSize: 48,
    });
    expect(ask(text, "markdown", "drug", "placebo", "baseline weight").intervention).toMatchObject({
      mean: 80,
      sd: 10,
      groupSize: 50,
    });
  });

  it("prefers the follow-up sentence over the baseline sentence", () => {
    const r = ask(
      "At baseline, mean weight was 80 ± 10 kg in the drug group and 81 ± 11 kg in the placebo group. At 12 weeks, weight was 75 ± 9 kg in the drug group and 80 ± 10 kg in the placebo group.",
      "text",
      "drug",
      "placebo",
      "weight",
    );
    expect(r.intervention).toMatchObject({ mean: 75, sd: 9 });
    expect(r.comparator).toMatchObject({ mean: 80, sd: 10 });
  });

  it("gives nothing for a time the table does not have, and accepts 24 weeks for 6 months", () => {
    const text =
      "| | Drug 3 months | Drug 24 weeks | Placebo 3 months | Placebo 24 weeks |\n|---|---|---|---|---|\n| Weight, kg | 78 ± 9 | 75 ± 9 | 80 ± 10 | 80 ± 10 |";
    expect(ask(text, "markdown", "drug", "placebo", "weight at 12 months").intervention.mean).toBeNull();
    expect(ask(text, "markdown", "drug", "placebo", "weight at 6 months").intervention).toMatchObject({
      mean: 75,
      sd: 9,
    });
  });
});

describe("group sizes stated in the text", () => {
  const tail = " Response was seen in 37.5% of the drug group and 25.4% of the placebo group.";
  it.each([
    "A total of 238 patients were randomised: 120 to drug and 118 to placebo.",
    "Of the 238 patients, 120 were in the drug group and 118 in the placebo group.",
    "The drug group comprised 120 patients and the placebo group 118 patients.",
    "We enrolled 238 patients (drug, n = 120; placebo, n = 118).",
    "Patients were allocated to drug (120 patients) or placebo (118 patients).",
    "Drug group: n = 120; placebo group: n = 118.",
    "In total, 120 patients received drug and 118 received placebo.",
  ])("%s", (sentence) => {
    const r = ask(sentence + tail, "text", "drug", "placebo", "response");
    expect(r.intervention).toMatchObject({ events: 45, groupSize: 120 });
    expect(r.comparator).toMatchObject({ events: 30, groupSize: 118 });
  });

  it("does not take event counts or a trial-wide enrolment for a group size", () => {
    const r = ask(
      "Participating GPs enrolled 258 patients. We randomised 240 patients. Of the 240 patients randomised, 45 in the drug group had a response, as did 30 in the placebo group.",
      "text",
      "GPs",
      "placebo",
      "response",
    );
    expect(r.intervention.groupSize).toBeNull();
    expect(r.comparator.groupSize).toBeNull();
  });
});
