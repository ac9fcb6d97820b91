import { describe, expect, it } from "vitest";
import { extractArms, parseReport, type ReportFormat } from "./index.ts";

/**
 * Notation families across journal styles (all tables and sentences invented): footnotes that list
 * several notations, medians that must stay blank, change from baseline versus endpoint, three-arm
 * tables, and inputs that must not throw.
 */
function ask(text: string, format: ReportFormat, intervention: string, comparator: string, outcome: string) {
  // Reading families: what is read, with abstention off (abstention itself is tested in confidence.test.ts).
  return extractArms(parseReport(text, format), { intervention, comparator, outcome }, { abstainBelow: 0 });
}

const LANCET = `<table-wrap><label>Table 2</label><caption><p>Outcomes at 12 weeks</p></caption><table>
<thead><tr><th></th><th>Ribavelin (n=120)</th><th>Placebo (n=118)</th><th>p value</th></tr></thead>
<tbody>
<tr><td>Pain score (0–10)</td><td>4.1 (2.0)</td><td>5.3 (2.2)</td><td>0.001</td></tr>
<tr><td>Length of stay, days</td><td>6 (4–9)</td><td>7 (5–11)</td><td>0.04</td></tr>
<tr><td>Readmission</td><td>12 (10%)</td><td>20 (17%)</td><td>0.10</td></tr>
</tbody></table><table-wrap-foot><fn><p>Data are mean (SD), n (%), or median (IQR).</p></fn></table-wrap-foot></table-wrap>`;

describe("footnotes that list several notations (Lancet style)", () => {
  it("reads mean (SD) and n (%) rows, and leaves the median (IQR) row blank", () => {
    const pain = ask(LANCET, "jats", "ribavelin", "placebo", "pain score");
    expect(pain.outcomeType).toBe("continuous");
    expect(pain.intervention).toEqual({ events: null, groupSize: 120, mean: 4.1, sd: 2.0 });
    expect(pain.comparator).toEqual({ events: null, groupSize: 118, mean: 5.3, sd: 2.2 });
    const stay = ask(LANCET, "jats", "ribavelin", "placebo", "length of stay");
    expect(stay.intervention.mean).toBeNull();
    expect(stay.intervention.sd).toBeNull();
    const readmission = ask(LANCET, "jats", "ribavelin", "placebo", "readmission");
    expect(readmission.outcomeType).toBe("binary");
    expect(readmission.intervention).toMatchObject({ events: 12, groupSize: 120 });
    expect(readmission.comparator).toMatchObject({ events: 20, groupSize: 118 });
  });

  it("never reads a median row as a mean, whatever the brackets (NEJM style)", () => {
    const html = `<table><caption>Table 3. Secondary end points</caption>
      <tr><th>End point</th><th>Cortavir (N = 200)</th><th>Usual care (N = 198)</th></tr>
      <tr><td>Days in hospital, median (IQR)</td><td>5.0 (3.0)</td><td>6.0 (4.0)</td></tr>
      <tr><td>Time to recovery — median [range]</td><td>9 [2–30]</td><td>12 [3–41]</td></tr></table>`;
    expect(ask(html, "html", "cortavir", "usual care", "days in hospital").intervention.mean).toBeNull();
    expect(ask(html, "html", "cortavir", "usual care", "time to recovery").intervention.mean).toBeNull();
  });
});

describe("change from baseline versus end-point values (JAMA / Diabetes Care style)", () => {
  const table = [
    "| Outcome | Glixaban baseline | Glixaban week 24 | Glixaban change from baseline | Diet baseline | Diet week 24 | Diet change from baseline |",
    "|---|---|---|---|---|---|---|",
    "| HbA1c, % | 8.1 ± 0.9 | 7.2 ± 0.8 | −0.9 ± 0.7 | 8.0 ± 1.0 | 7.8 ± 0.9 | −0.2 ± 0.6 |",
  ].join("\n");

  it("takes the change columns when the question asks for a change", () => {
    const r = ask(table, "markdown", "glixaban", "diet", "change in HbA1c");
    expect(r.intervention).toMatchObject({ mean: -0.9, sd: 0.7 });
    expect(r.comparator).toMatchObject({ mean: -0.2, sd: 0.6 });
  });

  it("takes the end-point columns otherwise", () => {
    const r = ask(table, "markdown", "glixaban", "diet", "HbA1c");
    expect(r.intervention).toMatchObject({ mean: 7.2, sd: 0.8 });
    expect(r.comparator).toMatchObject({ mean: 7.8, sd: 0.9 });
  });
});

describe("three-arm trials (PLoS / Trials style)", () => {
  it("picks the named dose and the placebo column", () => {
    const text = [
      "| | Low dose (n = 50) | High dose (n = 48) | Placebo (n = 49) |",
      "|---|---|---|---|",
      "| Response, n (%) | 20 (40.0) | 27 (56.3) | 12 (24.5) |",
    ].join("\n");
    const r = ask(text, "markdown", "high dose", "placebo", "response");
    expect(r.intervention).toMatchObject({ events: 27, groupSize: 48 });
    expect(r.comparator).toMatchObject({ events: 12, groupSize: 49 });
  });
});

describe("odd inputs do not throw", () => {
  const question = { intervention: "drug", comparator: "placebo", outcome: "death" };
  const inputs: [string, ReportFormat][] = [
    ["", "markdown"],
    ["", "text"],
    ["<table></table>", "html"],
    ["<table><tr></tr><tr><td></td></tr></table>", "html"],
    [
      "<table><tr><td>Death</td><td>1/2</td></tr><tr><td>x</td></tr><tr><td>a</td><td>b</td><td>c</td><td>d</td></tr></table>",
      "html",
    ],
    [
      "<table><tr><td><table><tr><td>Drug</td><td>Placebo</td></tr><tr><td>3/10</td><td>4/10</td></tr></table></td></tr></table>",
      "html",
    ],
    [
      "<article><body><table-wrap><table><tbody><tr><td rowspan='900' colspan='900'>x</td></tr></tbody></table></table-wrap></body></article>",
      "jats",
    ],
    ["| a |\n|---|\n| b | c | d |\n| Drug | Placebo |", "markdown"],
    ["  Drug   Placebo\n  ------ -------\n", "markdown"],
    ["+---+\n| a |\n+===+\n", "markdown"],
  ];
  it.each(inputs)("parses and extracts %#", (text, format) => {
    expect(() => extractArms(parseReport(text, format), question)).not.toThrow();
  });

  it("handles a long report (about 1 MB) without failing", () => {
    const sentence = "Death occurred in 3 of 40 patients given drug and 9 of 41 given placebo. ";
    const text = `${"Background text without numbers that goes on. ".repeat(20000)}${sentence}`;
    const r = extractArms(parseReport(text, "text"), question);
    expect(r.intervention).toMatchObject({ events: 3, groupSize: 40 });
    expect(r.comparator).toMatchObject({ events: 9, groupSize: 41 });
  });
});
