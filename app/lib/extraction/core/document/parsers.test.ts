import { describe, expect, it } from "vitest";
import { columnLabel } from "./model.ts";
import { parseHtml } from "./html.ts";
import { parseJats } from "./jats.ts";
import { parseMarkdown } from "./markdown.ts";
import { parseText } from "./text.ts";

describe("trial-report document model", () => {
  it("keeps JATS order, sections, labels, footnotes and expands row and column spans", () => {
    const report = parseJats(`<abstract><title>Abstract</title><p>First &#x2212;1 paragraph.</p></abstract>
      <sec><title>Results</title><p>Second paragraph.</p>
      <table-wrap><label>Table 1</label><caption><p>Outcomes</p></caption><table>
        <thead><tr><th rowspan="2">Outcome</th><th colspan="2">Arm A (n = 10)</th></tr><tr><th>Mean</th><th>SD</th></tr></thead>
        <tbody><tr><td>Score<sup>a</sup></td><td>1.5</td><td>0.5<xref ref-type="table-fn">b</xref></td></tr></tbody></table>
        <table-wrap-foot><fn><p>a Measured at week 4.</p></fn></table-wrap-foot></table-wrap>
      <p>Third paragraph.</p></sec>`);
    expect(report.paragraphs.map((p) => report.text.slice(p.start, p.end))).toEqual([
      "First −1 paragraph.",
      "Second paragraph.",
      "Third paragraph.",
    ]);
    expect(report.paragraphs[1].section).toBe("Results");
    const table = report.tables[0];
    expect(table.label).toBe("Table 1");
    expect(table.header).toEqual([
      ["Outcome", "Arm A (n = 10)", "Arm A (n = 10)"],
      ["Outcome", "Mean", "SD"],
    ]);
    expect(table.rows).toEqual([["Score", "1.5", "0.5"]]);
    expect(columnLabel(table, 2)).toBe("Arm A (n = 10) SD");
    expect(table.footnotes).toEqual(["a Measured at week 4."]);
  });

  it("reads HTML tables with th header rows and a caption", () => {
    const report = parseHtml(`<h2>Results</h2><p>Text &amp; more.</p><table><caption>Table 2 Events</caption>
      <tr><th></th><th>Drug</th><th>Placebo</th></tr><tr><td>Death</td><td>3/50</td><td>7/49</td></tr></table>`);
    expect(report.text).toContain("Text & more.");
    expect(report.tables[0].caption).toBe("Table 2 Events");
    expect(report.tables[0].header).toEqual([["", "Drug", "Placebo"]]);
    expect(report.tables[0].rows).toEqual([["Death", "3/50", "7/49"]]);
  });

  it("reads pandoc multiline tables inside table-wrap fences with caption and footnotes", () => {
    const md = [
      "Results text before. ::::table-wrap",
      "::: caption",
      "Outcomes at *week 8*",
      ":::",
      "",
      "  --------------------------------------------------",
      "  Outcome              Active^a^       Control",
      "                       (n = 40)        (n = 41)",
      "  -------------------- --------------- -------------",
      "  Pain, mean (SD)      3.2 (1.1)       4.0 (1.3)",
      "",
      "  Nausea, n (%)        5 (12.5)        2 (4.9)",
      "  --------------------------------------------------",
      "",
      "^a^ Active, drug X 10 mg.:::: Text after.",
    ].join("\n");
    const report = parseMarkdown(md);
    expect(report.tables).toHaveLength(1);
    const table = report.tables[0];
    expect(table.caption).toBe("Outcomes at week 8");
    expect(table.header).toEqual([["Outcome", "Active (n = 40)", "Control (n = 41)"]]);
    expect(table.rows).toEqual([
      ["Pain, mean (SD)", "3.2 (1.1)", "4.0 (1.3)"],
      ["Nausea, n (%)", "5 (12.5)", "2 (4.9)"],
    ]);
    expect(table.footnotes[0]).toContain("drug X 10 mg");
    expect(report.text).toContain("Results text before.");
    expect(report.text).toContain("Text after.");
  });

  it("finds fixed-width tables in PDF text", () => {
    const report = parseText(
      [
        "Results",
        "Table 3 Outcomes",
        "Outcome      Drug (n=20)    Placebo (n=21)",
        "Death        2/20           5/21",
        "Stroke       1/20           3/21",
        "",
        "Discussion follows.",
      ].join("\n"),
    );
    expect(report.tables[0].label).toBe("Table 3");
    expect(report.tables[0].rows[0]).toEqual(["Death", "2/20", "5/21"]);
    expect(report.text).toContain("Discussion follows.");
  });
});
