import { describe, expect, it } from "vitest";
import { extractArms, parseReport } from "./index.ts";
import { repairPackedHeader, stripInlineMarkdown } from "../extraction/core/document/markdown.ts";

/**
 * Table-structure families that pandoc's fixed-width rendering of JATS produces, with invented
 * tables: dropped col/row spans in two-row headers, footnote markers glued to numbers, statistic
 * sub-columns under each arm, rows that are periods or a total score with the outcome only in the
 * caption, timepoint codes (T0/T1) and group sizes over the columns read.
 */
function md(lines: string[]): string {
  return lines.join("\n");
}

/**
 * A pandoc simple table as pandoc writes one from JATS: cells padded to the column widths, one space
 * apart, the header line(s) above the dashes. Rows are given as pandoc lays them out (packed to the
 * left where the spans were lost).
 */
function pandoc(caption: string, header: string[][], body: string[][]): string {
  const width = Math.max(...[...header, ...body].map((row) => row.length));
  const widths = Array.from({ length: width }, (_, c) =>
    Math.max(3, ...[...header, ...body].map((row) => (row[c] ?? "").length)),
  );
  const line = (row: string[]) => `  ${widths.map((w, c) => (row[c] ?? "").padEnd(w)).join(" ")}`;
  return md([
    "::::table-wrap",
    "::: caption",
    caption,
    ":::",
    "",
    ...header.map(line),
    `  ${widths.map((w) => "-".repeat(w)).join(" ")}`,
    ...body.map(line),
    "::::",
    "",
  ]);
}

function ask(text: string, intervention: string, comparator: string, outcome: string) {
  // Reading families: what is read, with abstention off (abstention itself is tested in confidence.test.ts).
  return extractArms(parseReport(text, "markdown"), { intervention, comparator, outcome }, { abstainBelow: 0 });
}

describe("pandoc headers whose spans were dropped", () => {
  it("moves a sub-header that lost its rowspanned stub under its group (Lancet-style follow-up table)", () => {
    const text = `Results. ${pandoc(
      "Table 3. Secondary outcomes at 6 months by group",
      [["Outcome", "6 months; mean ± SD", "P", "ES"]],
      [
        ["Zolvimab", "Placebo"],
        ["Grip strength, kg", "31.2 ± 4.1", "27.9 ± 5.0", "0.002", "0.72"],
        ["Gait speed, m/s", "1.12 ± 0.21", "1.05 ± 0.25", "0.11", "0.30"],
      ],
    )}`;
    const report = parseReport(text, "markdown");
    expect(report.tables[0].header).toEqual([
      ["Outcome", "6 months; mean ± SD", "6 months; mean ± SD", "P", "ES"],
      ["", "Zolvimab", "Placebo", "", ""],
    ]);
    const r = ask(text, "zolvimab", "placebo", "gait speed");
    expect(r.outcomeType).toBe("continuous");
    expect(r.intervention).toMatchObject({ mean: 1.12, sd: 0.21 });
    expect(r.comparator).toMatchObject({ mean: 1.05, sd: 0.25 });
  });

  it("spreads packed group labels over repeated sub-columns and keeps p columns apart", () => {
    const rows = [
      ["Domain", "Range", "Week 0", "", "Week 12", "", "Difference (95% CI)", "P", "", ""],
      [
        "Yoga (n=40) Mean ± SD",
        "Usual care (n=41) Mean ± SD",
        "P",
        "Yoga (n=37) Mean ± SD",
        "Usual care (n=39) Mean ± SD",
        "P",
        "",
        "",
        "",
        "",
      ],
      [
        "Total",
        "0-100",
        "40.1 ± 9.0",
        "41.3 ± 8.8",
        "0.55",
        "55.2 ± 10.1",
        "46.0 ± 9.7",
        "<0.001",
        "9.2 (4.7 to 13.7)",
        "<0.001",
      ],
    ];
    const out = repairPackedHeader(rows, 1);
    expect(out.headerRows).toBe(2);
    expect(out.rows[0]).toEqual([
      "Domain",
      "Range",
      "Week 0",
      "Week 0",
      "Week 0",
      "Week 12",
      "Week 12",
      "Week 12",
      "Difference (95% CI)",
      "P",
    ]);
    expect(out.rows[1].slice(2, 8)).toEqual(rows[1].slice(0, 6));
  });

  it("leaves a header alone when no equal split fits (a blank beats a wrong layout)", () => {
    const rows = [
      ["Characteristic", "Drug A", "Drug B", "", ""],
      ["Mean", "SD", "Mean", "", ""],
      ["Age", "50", "8", "49", "9"],
    ];
    expect(repairPackedHeader(rows, 1)).toEqual({ rows, headerRows: 1 });
    expect(repairPackedHeader([], 0)).toEqual({ rows: [], headerRows: 0 });
    expect(repairPackedHeader([["a"], ["b"], ["1"]], 1).headerRows).toBe(1);
  });

  it("reads a BMJ-style n (%) | Mean | SD block per arm, the count for a binary outcome and the mean for a continuous one", () => {
    const text = `${pandoc(
      "Table 2. Readmission and days in hospital by period, coaching versus usual care",
      [["", "Coaching", "Usual care"]],
      [
        ["n (%)", "Mean days", "SD", "n (%)", "Mean days", "SD", "P for difference"],
        ["0-6 months", "18 (20)", "4.1", "2.2", "25 (28)", "5.0", "2.9", "0.31"],
        ["7-12 months", "12 (13)", "3.3", "1.9", "20 (22)", "4.2", "2.5", "0.20"],
        ["Total 0-12 months", "27 (30)", "6.2", "3.4", "38 (42)", "7.9", "4.1", "0.04"],
      ],
    )}We randomised 90 patients to coaching (n = 90) and 91 to usual care (n = 91).`;
    const binary = ask(text, "coaching", "usual care", "readmission");
    expect(binary.outcomeType).toBe("binary");
    expect(binary.intervention).toMatchObject({ events: 27, groupSize: 90 });
    expect(binary.comparator).toMatchObject({ events: 38, groupSize: 91 });
    const days = ask(text, "coaching", "usual care", "mean days in hospital");
    expect(days.outcomeType).toBe("continuous");
    expect(days.intervention).toMatchObject({ mean: 6.2, sd: 3.4, groupSize: 90 });
    expect(days.comparator).toMatchObject({ mean: 7.9, sd: 4.1, groupSize: 91 });
  });
});

describe("spans an author set one column short", () => {
  it("starts the next arm where the sub-labels repeat, not where the colspan ended", () => {
    const jats = `<table-wrap><label>Table 3</label><caption><p>Falls and days in hospital by period</p></caption><table>
      <thead><tr><th rowspan="2"/><th colspan="2">Balance training</th><th/><th/><th colspan="2">Usual care</th><th/></tr>
      <tr><th>n (%)</th><th>Mean days</th><th>SD</th><th>n (%)</th><th>Mean days</th><th>SD</th><th>P for difference</th></tr></thead>
      <tbody><tr><td>Total 0-12 months</td><td>14 (23)</td><td>3.1</td><td>2.0</td><td>25 (41)</td><td>4.4</td><td>2.9</td><td>0.03</td></tr></tbody></table></table-wrap>`;
    const table = parseReport(jats, "jats").tables[0];
    expect(table.header[0]).toEqual([
      "",
      "Balance training",
      "Balance training",
      "Balance training",
      "Usual care",
      "Usual care",
      "Usual care",
      "",
    ]);
    const question = { intervention: "balance training", comparator: "usual care", outcome: "patients with falls" };
    const withText = parseReport(
      `${jats}<p>We allocated 61 people to balance training (n = 61) and 61 to usual care (n = 61).</p>`,
      "jats",
    );
    // The one n the text states for each arm stands in for the row's, and the reason says so.
    const r = extractArms(withText, question);
    expect(r.reason?.intervention.groupSize).toContain("n: the arm's only group size stated in the text");
    expect(r.intervention).toMatchObject({ events: 14, groupSize: 61 });
    expect(r.comparator).toMatchObject({ events: 25, groupSize: 61 });
    const unclear = extractArms(parseReport(jats, "jats"), {
      intervention: "balance training",
      comparator: "usual care",
      outcome: "falls",
    });
    expect(unclear.intervention.mean).toBeNull();
    expect(unclear.intervention.events).toBeNull();
  });
});

describe("rows chosen through the caption", () => {
  it("takes the total-score row of a scale table and the T1 columns with their own n (JAMA-style)", () => {
    const text = pandoc(
      "Table 2. Self-efficacy of caregivers at T0 and T1",
      [["Items", "Possible range", "T0", "T1", "Difference (95% CI)", "P"]],
      [
        [
          "Mentoring (n=30) Mean ± SD",
          "Lecture (n=31) Mean ± SD",
          "P",
          "Mentoring (n=28) Mean ± SD",
          "Lecture (n=30) Mean ± SD",
          "P",
        ],
        [
          "Total score",
          "20-100",
          "61.0 ± 8.2",
          "60.1 ± 9.0",
          "0.66",
          "70.4 ± 7.5",
          "63.2 ± 8.8",
          "0.001",
          "7.2 (3.0 to 11.4)",
          "0.001",
        ],
        [
          "Coping subscale",
          "5-25",
          "20.2 ± 3.1",
          "19.8 ± 3.3",
          "0.61",
          "23.5 ± 2.9",
          "21.0 ± 3.0",
          "0.002",
          "2.5 (1.0 to 4.0)",
          "0.002",
        ],
      ],
    );
    const r = ask(text, "mentoring", "lecture", "self-efficacy");
    expect(r.intervention).toEqual({ events: null, groupSize: 28, mean: 70.4, sd: 7.5 });
    expect(r.comparator).toEqual({ events: null, groupSize: 30, mean: 63.2, sd: 8.8 });
  });

  it("does not take a 'Total cholesterol' row for an outcome named only in the caption", () => {
    const text = [
      "| | Statin (n = 60) | Placebo (n = 61) |",
      "|---|---|---|",
      "| Total cholesterol, mmol/L | 4.1 ± 0.6 | 5.2 ± 0.7 |",
      "| LDL cholesterol, mmol/L | 2.0 ± 0.5 | 3.1 ± 0.6 |",
    ].join("\n");
    const table = parseReport(text, "markdown").tables[0];
    table.caption = "Lipid profile at 12 weeks";
    const r = extractArms(
      { text: "", paragraphs: [], tables: [table] },
      { intervention: "statin", comparator: "placebo", outcome: "lipid profile" },
    );
    expect(r.intervention.mean).toBeNull();
  });

  it("gives nothing when period rows have no total and several follow-ups (ambiguous timepoint)", () => {
    const text = md([
      "| | Drug (n = 50) | Placebo (n = 50) |",
      "|---|---|---|",
      "| Week 4 | 10 (20) | 15 (30) |",
      "| Week 8 | 8 (16) | 14 (28) |",
    ]);
    const table = parseReport(text, "markdown").tables[0];
    table.caption = "Relapse by visit";
    const r = extractArms(
      { text: "", paragraphs: [], tables: [table] },
      { intervention: "drug", comparator: "placebo", outcome: "relapse" },
    );
    expect(r.intervention.events).toBeNull();
    const at8 = extractArms(
      { text: "", paragraphs: [], tables: [table] },
      { intervention: "drug", comparator: "placebo", outcome: "relapse at 8 weeks" },
    );
    expect(at8.intervention).toMatchObject({ events: 8, groupSize: 50 });
    expect(at8.comparator).toMatchObject({ events: 14, groupSize: 50 });
  });
});

describe("footnote markers glued to numbers", () => {
  it("drops link and superscript markers in cells but keeps powers of ten and table references", () => {
    expect(stripInlineMarkdown("25.32 ± 3.05[1](#tfn1)", true)).toBe("25.32 ± 3.05");
    expect(stripInlineMarkdown("12.95 ± 4.50^4^", true)).toBe("12.95 ± 4.50");
    expect(stripInlineMarkdown("0.13[a](#)", true)).toBe("0.13");
    expect(stripInlineMarkdown("×10^9^/L", true)).toBe("×109/L");
    expect(stripInlineMarkdown("as Table [3](#) shows")).toBe("as Table 3 shows");
    expect(stripInlineMarkdown("49 (39%)[12](#) were")).toBe("49 (39%) were");
  });

  it("reads the right SD from a cell with a numeric footnote marker", () => {
    const text = md([
      "| Outcome | Tai chi (n = 40) | Stretching (n = 40) |",
      "|---|---|---|",
      "| Balance score | 48.2 ± 6.1^2^ | 44.0 ± 7.3^2^ |",
    ]);
    const r = ask(text, "tai chi", "stretching", "balance score");
    expect(r.intervention).toMatchObject({ mean: 48.2, sd: 6.1, groupSize: 40 });
    expect(r.comparator).toMatchObject({ mean: 44.0, sd: 7.3, groupSize: 40 });
  });
});
