import { describe, expect, it } from "vitest";
import { extractArms, parseReport, type ReportFormat } from "./index.ts";

function run(text: string, format: ReportFormat, intervention: string, comparator: string, outcome: string) {
  // Reading families: what is read, with abstention off (abstention itself is tested in confidence.test.ts).
  return extractArms(parseReport(text, format), { intervention, comparator, outcome }, { abstainBelow: 0 });
}

describe("prose notations (invented sentences)", () => {
  it("reads 'p% (x/N) vs q% (y/M)' in the order the arms are named", () => {
    const r = run(
      "Nausea occurred in 12.4% (31/250) of patients given ondaverin vs 8.0% (20/251) of those given placebo.",
      "text",
      "ondaverin",
      "placebo",
      "nausea",
    );
    expect(r.outcomeType).toBe("binary");
    expect(r.intervention).toMatchObject({ events: 31, groupSize: 250 });
    expect(r.comparator).toMatchObject({ events: 20, groupSize: 251 });
    const quote = r.quotes.find((q) => q.arm === "comparator" && q.field === "events");
    expect(quote && "start" in quote && quote.text).toBe("8.0% (20/251)");
  });

  it("reads '(x/N, p%) compared with (y/M, q%)' when the comparator is named first", () => {
    const r = run(
      "Among controls the cure rate was lower (30/58, 51.7%) compared with the brimavir group (45/60, 75.0%).",
      "text",
      "brimavir",
      "control",
      "cure rate",
    );
    expect(r.intervention).toMatchObject({ events: 45, groupSize: 60 });
    expect(r.comparator).toMatchObject({ events: 30, groupSize: 58 });
  });

  it("derives counts from percentages of stated group sizes only when one integer fits", () => {
    const r = run(
      "We randomised 101 children to fluvaxin (n = 101) and 99 to placebo (n = 99). Response rates were 78.2% with fluvaxin and 62.6% with placebo.",
      "text",
      "fluvaxin",
      "placebo",
      "response rate",
    );
    expect(r.intervention).toMatchObject({ events: 79, groupSize: 101 });
    expect(r.comparator).toMatchObject({ events: 62, groupSize: 99 });
    expect(r.derived).toEqual(
      expect.arrayContaining([{ arm: "intervention", field: "events", from: "78.2% of n = 101" }]),
    );
  });

  it("maps 'respectively' lists of mean ± SD to the named arms among three", () => {
    const r = run(
      "The mean ± SD stay in days was 6.1 ± 2.0, 7.4 ± 2.6 and 9.0 ± 3.1 in patients given LD, HD and SC respectively.",
      "text",
      "high dose (HD)",
      "standard care (SC)",
      "stay",
    );
    expect(r.outcomeType).toBe("continuous");
    expect(r.intervention).toMatchObject({ mean: 7.4, sd: 2.6 });
    expect(r.comparator).toMatchObject({ mean: 9.0, sd: 3.1 });
  });

  it("reads 'no cases of' as zero events", () => {
    const r = run(
      "No cases of pneumonia occurred in the vaccine group, whereas pneumonia occurred in 7/80 participants in the control group. Groups: vaccine (n = 82), control (n = 80).",
      "text",
      "vaccine",
      "control",
      "pneumonia",
    );
    expect(r.intervention.events).toBe(0);
    expect(r.comparator).toMatchObject({ events: 7, groupSize: 80 });
  });

  it("reads 'mean (SD)' pairs in prose only when the sentence names the SD", () => {
    const text = "Mean (SD) fatigue scores at 8 weeks were 21.4 (6.0) with yoga and 25.9 (6.8) with waiting list.";
    const r = run(text, "text", "yoga", "waiting list", "fatigue score");
    expect(r.intervention).toMatchObject({ mean: 21.4, sd: 6.0 });
    expect(r.comparator).toMatchObject({ mean: 25.9, sd: 6.8 });
    const unlabeled = run(
      "Fatigue scores were 21.4 (6.0) with yoga and 25.9 (6.8) with waiting list.",
      "text",
      "yoga",
      "waiting list",
      "fatigue score",
    );
    expect(unlabeled.intervention.mean).toBeNull();
  });

  it("reads 'x of N' counts", () => {
    const r = run(
      "Relapse occurred in 57 of 411 patients given lumetrex and in 73 of 409 patients given placebo.",
      "text",
      "lumetrex",
      "placebo",
      "relapse",
    );
    expect(r.intervention).toMatchObject({ events: 57, groupSize: 411 });
    expect(r.comparator).toMatchObject({ events: 73, groupSize: 409 });
  });

  it("leaves values null when the arms cannot be told apart", () => {
    const r = run("Headache was reported by 14 (11%) and 9 (7%) participants.", "text", "drug", "placebo", "headache");
    expect(r.intervention.events).toBeNull();
    expect(r.comparator.events).toBeNull();
  });
});

describe("table notations (invented tables)", () => {
  it("reads mean (SD) cells with n in column headers (markdown pipe table)", () => {
    const md = [
      "Table 2. Outcomes at 12 weeks",
      "",
      "| Outcome | Exercise (n = 40) | Usual care (n = 38) | p |",
      "|---|---|---|---|",
      "| Fatigue score, mean (SD) | 21.5 (6.2) | 27.9 (7.1) | 0.01 |",
      "| Falls, n (%) | 4 (10.0) | 9 (23.7) | 0.09 |",
    ].join("\n");
    const fatigue = run(md, "markdown", "exercise", "usual care", "fatigue score");
    expect(fatigue.intervention).toEqual({ events: null, groupSize: 40, mean: 21.5, sd: 6.2 });
    expect(fatigue.comparator).toEqual({ events: null, groupSize: 38, mean: 27.9, sd: 7.1 });
    expect(fatigue.quotes.find((q) => q.field === "mean" && q.arm === "intervention")).toMatchObject({
      row: 0,
      column: 1,
      text: "21.5 (6.2)",
    });
    const falls = run(md, "markdown", "exercise", "usual care", "falls");
    expect(falls.intervention).toMatchObject({ events: 4, groupSize: 40 });
    expect(falls.comparator).toMatchObject({ events: 9, groupSize: 38 });
  });

  it("reads mean ± SD under spanning headers in JATS, with the abbreviation from a footnote", () => {
    const xml = `<sec><title>Results</title><table-wrap><label>Table 3</label><caption><p>Scores</p></caption><table>
      <thead><tr><th rowspan="2">Measure</th><th colspan="2">H1 (n = 25)</th><th colspan="2">PBO (n = 24)</th></tr>
      <tr><th>Mean</th><th>SD</th><th>Mean</th><th>SD</th></tr></thead>
      <tbody><tr><td>Agitation score</td><td>11.2</td><td>3.4</td><td>14.8</td><td>4.0</td></tr></tbody></table>
      <table-wrap-foot><fn><p>H1, haloperidol 1 mg; PBO, placebo.</p></fn></table-wrap-foot></table-wrap></sec>`;
    const r = run(xml, "jats", "haloperidol 1 mg", "placebo", "agitation");
    expect(r.intervention).toEqual({ events: null, groupSize: 25, mean: 11.2, sd: 3.4 });
    expect(r.comparator).toEqual({ events: null, groupSize: 24, mean: 14.8, sd: 4.0 });
  });

  it("derives the SD from an SE (Cochrane Handbook 6.5.2.2)", () => {
    const html = `<h2>Results</h2><table><caption>Table 2 Change in weight, mean (SE)</caption>
      <tr><th></th><th>Diet (n=100)</th><th>Control (n=100)</th></tr>
      <tr><td>Weight change, kg</td><td>-4.1 (0.5)</td><td>-1.0 (0.4)</td></tr></table>`;
    const r = run(html, "html", "diet", "control", "weight change");
    expect(r.intervention).toMatchObject({ mean: -4.1, sd: 5, groupSize: 100 });
    expect(r.comparator).toMatchObject({ mean: -1, sd: 4, groupSize: 100 });
    expect(r.derived.map((d) => d.field)).toEqual(["sd", "sd"]);
  });

  it("reads arms as rows with an events/N column and picks the question's timepoint", () => {
    const md = [
      "| Smoking abstinence | 3 months | 12 months |",
      "|---|---|---|",
      "| Varenicline | 40/100 | 25/100 |",
      "| Counselling only | 20/98 | 12/98 |",
    ].join("\n");
    const r = run(md, "markdown", "varenicline", "counselling", "abstinence at 12 months");
    expect(r.intervention).toMatchObject({ events: 25, groupSize: 100 });
    expect(r.comparator).toMatchObject({ events: 12, groupSize: 98 });
  });

  it("reads pandoc fixed-width tables with a collapsed spanning header", () => {
    const md = [
      "                      Tai chi n = 30        Walking n = 29",
      "  ------------------- -------- ------------ -------- --------",
      "                      Mean     SD           Mean     SD",
      "  Balance score       41.2     5.5          38.0     6.1",
      "",
    ].join("\n");
    const r = run(md, "markdown", "tai chi", "walking", "balance score");
    expect(r.intervention).toEqual({ events: null, groupSize: 30, mean: 41.2, sd: 5.5 });
    expect(r.comparator).toEqual({ events: null, groupSize: 29, mean: 38.0, sd: 6.1 });
  });

  it("gives nothing for medians and IQRs", () => {
    const md = [
      "| | Drug (n = 20) | Placebo (n = 20) |",
      "|---|---|---|",
      "| Length of stay, median (IQR) | 5 (3-8) | 7 (4-10) |",
    ].join("\n");
    const r = run(md, "markdown", "drug", "placebo", "length of stay");
    expect(r.intervention.mean).toBeNull();
    expect(r.comparator.mean).toBeNull();
  });
});
