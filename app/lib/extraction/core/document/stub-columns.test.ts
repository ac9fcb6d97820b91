import { describe, expect, it } from "vitest";
import { STUB_COLUMNS_DEFAULT, joinStubColumns, parseMarkdown } from "./markdown.ts";

// Issue 26 round 13: row labels spread over several stub columns (invented tables of the family).
describe("joinStubColumns: a row label over several stub columns", () => {
  it("joins two stub columns in the header and every row, carrying a row-spanning outer label down", () => {
    const rows = [
      ["Outcome", "Time", "Drug (n = 40)", "Placebo (n = 41)"],
      ["Pain score", "Week 4", "3.1 (1.2)", "4.0 (1.1)"],
      ["", "Week 8", "2.5 (1.0)", "3.9 (1.3)"],
      ["Fatigue", "Week 4", "5.2 (2.0)", "5.1 (2.2)"],
    ];
    expect(joinStubColumns(rows, 1)).toEqual([
      ["Outcome Time", "Drug (n = 40)", "Placebo (n = 41)", ""],
      ["Pain score Week 4", "3.1 (1.2)", "4.0 (1.1)", ""],
      ["Pain score Week 8", "2.5 (1.0)", "3.9 (1.3)", ""],
      ["Fatigue Week 4", "5.2 (2.0)", "5.1 (2.2)", ""],
    ]);
  });

  it("moves the values of two-stub rows under a header packed left, and leaves one-stub rows in place", () => {
    const rows = [
      ["", "Group A", "Group B", "P value", ""],
      ["Age, years", "35.2 ± 12.4", "37.7 ± 11.1", "0.10", ""],
      ["Stone side", "right", "60 (50 %)", "57 (47.5 %)", "0.70"],
      ["", "left", "60 (50 %)", "63 (52.5 %)", ""],
    ];
    expect(joinStubColumns(rows, 1)).toEqual([
      ["", "Group A", "Group B", "P value", ""],
      ["Age, years", "35.2 ± 12.4", "37.7 ± 11.1", "0.10", ""],
      ["Stone side right", "60 (50 %)", "57 (47.5 %)", "0.70", ""],
      ["Stone side left", "60 (50 %)", "63 (52.5 %)", "", ""],
    ]);
  });

  it("leaves a table with one stub column, missing-value marks and words in value columns unchanged", () => {
    const plain = [
      ["Outcome", "Drug", "Placebo"],
      ["Pain", "3.1 (1.2)", "4.0 (1.1)"],
      ["Fatigue", "NR", "5.1 (2.2)"],
    ];
    expect(joinStubColumns(plain, 1)).toBe(plain);
    const words = [
      ["Outcome", "Drug", "Placebo", "Favours"],
      ["Pain", "3.1 (1.2)", "4.0 (1.1)", "Drug"],
      ["Fatigue", "5.2 (2.0)", "5.1 (2.2)", "Neither"],
    ];
    expect(joinStubColumns(words, 1)).toBe(words);
  });

  it("is ambiguous, and leaves the table, when stub widths mix and the header is not packed left", () => {
    const rows = [
      ["Outcome", "Time", "Drug", "Placebo"],
      ["Pain score", "Week 4", "3.1 (1.2)", "4.0 (1.1)"],
      ["Fatigue", "5.2 (2.0)", "5.1 (2.2)", ""],
    ];
    expect(joinStubColumns(rows, 1)).toBe(rows);
  });

  it("is on by default in parseMarkdown (round 14) and off with stubColumns: first", () => {
    const markdown = [
      "| Outcome | Time | Drug (n = 40) | Placebo (n = 41) |",
      "|---|---|---|---|",
      "| Pain score | Week 4 | 3.1 (1.2) | 4.0 (1.1) |",
      "| | Week 8 | 2.5 (1.0) | 3.9 (1.3) |",
      "",
    ].join("\n");
    expect(STUB_COLUMNS_DEFAULT).toBe("join");
    expect(parseMarkdown(markdown, { stubColumns: "first" }).tables[0].rows[1][0]).toBe("");
    const joined = parseMarkdown(markdown).tables[0];
    expect(joined.rows.map((row) => row[0])).toEqual(["Pain score Week 4", "Pain score Week 8"]);
    expect(joined.header[0].slice(0, 3)).toEqual(["Outcome Time", "Drug (n = 40)", "Placebo (n = 41)"]);
  });
});
