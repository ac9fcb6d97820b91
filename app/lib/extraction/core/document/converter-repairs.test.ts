import { describe, expect, it } from "vitest";
import { alignHeaderToBody, parseMarkdown, restoreEnDashes, restoreSpannedStubs } from "./markdown.ts";

const ON = { repairs: ["spanned-cells", "smart-dashes"] as const };
const table = (...lines: string[]) => ["Table 2", "", ...lines, ""].join("\n");

describe("round 12 spanned-cells: rows under a row-spanning label (invented tables)", () => {
  // The converter writes "Pain score" once; the week 8 and 12 rows lose that cell and start one column early.
  it("moves each short row one column right and repeats the spanned label", () => {
    const rows = restoreSpannedStubs([
      ["Pain score", "4", "3.1 (1.2)", "4.0 (1.1)", "0.02"],
      ["8", "2.5 (1.0)", "3.9 (1.3)", "0.01", ""],
      ["12", "2.2 (0.9)", "3.8 (1.2)", "0.004", ""],
      ["Fatigue", "4", "5.0 (2.0)", "5.1 (2.1)", "0.81"],
    ]);
    expect(rows[1]).toEqual(["Pain score", "8", "2.5 (1.0)", "3.9 (1.3)", "0.01"]);
    expect(rows[2]).toEqual(["Pain score", "12", "2.2 (0.9)", "3.8 (1.2)", "0.004"]);
    expect(rows[3]).toEqual(["Fatigue", "4", "5.0 (2.0)", "5.1 (2.1)", "0.81"]);
  });

  it("is applied by parseMarkdown only when asked", () => {
    const md = table(
      "  Outcome        Week         Drug (n = 40)  Placebo (n = 41)  p",
      "  -------------- ------------ -------------- ----------------- ------",
      "  Pain score     4            3.1 (1.2)      4.0 (1.1)         0.02",
      "  8              2.5 (1.0)    3.9 (1.3)      0.01",
      "  Fatigue        4            5.0 (2.0)      5.1 (2.1)         0.81",
    );
    expect(parseMarkdown(md).tables[0].rows[1]).toEqual(["8", "2.5 (1.0)", "3.9 (1.3)", "0.01", ""]);
    expect(parseMarkdown(md, ON).tables[0].rows[1]).toEqual(["Pain score", "8", "2.5 (1.0)", "3.9 (1.3)", "0.01"]);
  });

  it("leaves a row whose last cell is empty but whose cells fit their columns (a p value spanning two arm rows)", () => {
    const rows = [
      ["Estriol", "44", "35.2", "21.7", "< 0.001"],
      ["Placebo", "44", "9.9", "14.5", ""],
      ["Estriol", "43", "34.0", "20.9", "< 0.001"],
      ["Placebo", "43", "10.2", "14.6", ""],
    ];
    expect(restoreSpannedStubs(rows)).toEqual(rows);
  });

  it("does not guess when two label columns could have lost the cell", () => {
    const rows = [
      ["Sex", "Male", "20 (50)", "21 (51)", "0.80"],
      ["Female", "20 (50)", "20 (49)", "", ""],
      ["Smoking", "Current", "12 (30)", "10 (24)", "0.55"],
    ];
    // "Female" could be the row label (the "Sex" cell lost) or the sub-label (a "Male"-column cell lost): unchanged.
    expect(restoreSpannedStubs(rows)[1]).toEqual(rows[1]);
  });

  it("does not repeat a cell from a row that is itself short", () => {
    const rows = [
      ["Pain", "4", "3.1 (1.2)", "4.0 (1.1)", "0.02"],
      ["Fatigue", "4", "5.0 (2.0)", "5.1 (2.1)", "0.81"],
      ["Sleep", "2.0 (1.0)", "2.1 (1.0)", "", ""],
      ["8", "2.5 (1.0)", "3.9 (1.3)", "0.01", ""],
    ];
    expect(restoreSpannedStubs(rows)[3]).toEqual(rows[3]);
  });
});

describe("round 12 spanned-cells: a header over nested label columns (invented tables)", () => {
  it("moves the header's labels over the columns that hold the values", () => {
    const rows = [
      ["", "Drug (n = 38)", "Placebo (n = 39)", "p", "", ""],
      ["Lumen diameter (mm)", "", "", "", "", ""],
      ["", "In-stent", "", "", "", ""],
      ["", "", "Post-procedure", "2.95±0.35", "3.03±0.30", "0.269"],
      ["", "", "9-month follow-up", "2.84±0.42", "2.87±0.56", "0.743"],
    ];
    expect(alignHeaderToBody(rows, 1)[0]).toEqual(["", "", "", "Drug (n = 38)", "Placebo (n = 39)", "p"]);
  });

  it("leaves the header when the body's values do not fill exactly that many trailing columns", () => {
    const rows = [
      ["", "Drug (n = 38)", "Placebo (n = 39)", "p", "", ""],
      ["", "", "Post-procedure", "2.95±0.35", "3.03±0.30", "0.269"],
      ["", "In-stent", "1.79±0.40", "1.82±0.36", "0.742", ""],
    ];
    expect(alignHeaderToBody(rows, 1)).toEqual(rows);
  });

  it("lets the existing packed-header repair see the realigned body (a second header row under rowspanned stubs)", () => {
    const report = parseMarkdown(
      table(
        "  Variable   Time       Drug     Placebo  P value",
        "  ---------- ---------- -------- -------- -------- -------- -------- -------- --------",
        "  n          Mean       SD       n        Mean     SD",
        "  Score A    Week 12    145      0.43     0.40     140      0.33     0.41     0.73",
        "  Week 24    140        0.40     0.41     136      0.32     0.45     0.79",
        "  Score B    Week 12    145      0.37     0.31     140      0.39     0.33     0.91",
        "  Week 24    140        0.20     0.32     136      0.18     0.33     0.92",
      ),
      ON,
    );
    const t = report.tables[0];
    expect(t.rows[1]).toEqual(["Score A", "Week 24", "140", "0.40", "0.41", "136", "0.32", "0.45", "0.79"]);
    expect(t.header[t.header.length - 1].slice(2, 8)).toEqual(["n", "Mean", "SD", "n", "Mean", "SD"]);
    expect(t.header[0].slice(2, 8)).toEqual(["Drug", "Drug", "Drug", "Placebo", "Placebo", "Placebo"]);
  });
});

describe("round 12 smart-dashes: pandoc's '--' for an en dash (invented text)", () => {
  it("reads '--' between non-dashes as an en dash and leaves longer runs", () => {
    expect(restoreEnDashes("--1.4 (4.2)")).toBe("–1.4 (4.2)");
    expect(restoreEnDashes("(--0.08; 0.73)")).toBe("(–0.08; 0.73)");
    expect(restoreEnDashes("0.2--0.5")).toBe("0.2–0.5");
    expect(restoreEnDashes("a --- b")).toBe("a --- b");
  });

  it("rewrites cells after the columns are cut, so fixed-width positions are kept, and prose too", () => {
    const md = [
      "The change was --1.2 in the drug group.",
      "",
      table(
        "  Outcome    Drug (n = 11)    Placebo (n = 6)",
        "  ---------- ---------------- ----------------",
        "  Volume     --1.4 (4.2)      --3.3 (5.3)",
      ),
    ].join("\n");
    const on = parseMarkdown(md, ON);
    expect(on.tables[0].rows[0]).toEqual(["Volume", "–1.4 (4.2)", "–3.3 (5.3)"]);
    expect(on.text).toContain("was –1.2 in");
    const off = parseMarkdown(md);
    expect(off.tables[0].rows[0]).toEqual(["Volume", "--1.4 (4.2)", "--3.3 (5.3)"]);
  });
});
