import { describe, expect, it } from "vitest";
import { jobResult } from "../../../tests/meta-analysis-result";
import {
  backLink,
  buildExport,
  EXPORT_FORMAT,
  exportFileName,
  exportJsonText,
  quotesForValue,
  readiness,
  reportFileName,
  rowsFromExtraction,
  selectionHintText,
  toExtractedData,
  validateReportForm,
  validateRow,
  withMeasure,
  withValue,
  type DataRow,
  withPoolGroup,
} from "./page-logic";
import type { SupportingQuote } from "./types";

const base = rowsFromExtraction(jobResult.extracted)[0]!;
const row = (data: DataRow["data"], measure: DataRow["measure"] = "RR"): DataRow => ({ ...base, data, measure });

describe("data-table rows", () => {
  it("accepts valid rows of every data form", () => {
    expect(validateRow(base)).toBeNull();
    expect(validateRow(row({ kind: "means", mean1: 5, sd1: 1, n1: 20, mean2: 6, sd2: 1.2, n2: 22 }, "SMD"))).toBeNull();
    expect(validateRow(row({ kind: "estimate-ci", estimate: 0.75, lower: 0.6, upper: 0.93 }))).toBeNull();
    expect(validateRow(row({ kind: "yi-vi", yi: -0.3, vi: 0.02 }, "GEN"))).toBeNull();
  });

  it("explains degenerate input instead of pooling it", () => {
    expect(validateRow(row({ kind: "counts", events1: 0, n1: 10, events2: 0, n2: 10 }))).toMatch(
      /No events in either arm/,
    );
    expect(validateRow(row({ kind: "counts", events1: 0, n1: 10, events2: 0, n2: 10 }, "RD"))).toBeNull();
    expect(validateRow(row({ kind: "counts", events1: 11, n1: 10, events2: 0, n2: 10 }))).toBe(
      "Events cannot exceed the group size.",
    );
    expect(validateRow(row({ kind: "counts", events1: 1.5, n1: 10, events2: 0, n2: 10 }))).toMatch(/whole number/);
    expect(validateRow(row({ kind: "means", mean1: 5, sd1: -1, n1: 20, mean2: 6, sd2: 1, n2: 22 }, "MD"))).toMatch(
      /Standard deviations/,
    );
    expect(validateRow(row({ kind: "means", mean1: 5, sd1: 0, n1: 20, mean2: 6, sd2: 1, n2: 22 }, "MD"))).toMatch(
      /Standard deviations/,
    );
    expect(validateRow(row({ kind: "estimate-ci", estimate: 1.2, lower: 0.6, upper: 0.93 }))).toBe(
      "The estimate must lie inside its confidence interval.",
    );
    expect(validateRow(row({ kind: "estimate-ci", estimate: -0.2, lower: -0.6, upper: 0.1 }))).toMatch(
      /greater than 0/,
    );
    expect(validateRow(row({ kind: "yi-vi", yi: 0.1, vi: 0 }, "GEN"))).toMatch(/variance/);
    expect(validateRow(withValue(base, "n1", Number.NaN))).toBe("N (T): enter a number.");
    expect(validateRow({ ...base, outcome: "  " })).toBe("Enter the outcome.");
  });

  it("marks edits as the user's and keeps measures compatible with the data", () => {
    const edited = withValue(base, "events1", 5);
    expect(edited.extractedBy).toBe("user");
    expect(edited.data).toMatchObject({ events1: 5 });
    expect(withMeasure(base, "SMD")).toBe(base);
    expect(withMeasure(base, "OR").measure).toBe("OR");
    const hr: DataRow = {
      ...row({ kind: "estimate-ci", estimate: 0.8, lower: 0.7, upper: 0.9 }),
      reportedMeasure: "HR",
    };
    expect(withMeasure(hr, "OR").reportedMeasure).toBeUndefined();
    expect(withMeasure(hr, "RR").reportedMeasure).toBe("HR");
  });

  it("sends only included rows, trimmed, and lists the problems of included rows", () => {
    const rows = rowsFromExtraction(jobResult.extracted);
    rows[1] = { ...rows[1]!, included: false, data: { kind: "counts", events1: 99, n1: 1, events2: 0, n2: 1 } };
    rows[2] = { ...rows[2]!, outcome: " tuberculosis  " };
    const { ready, problems } = readiness(rows);
    expect(ready).toHaveLength(4);
    expect(problems).toEqual([]);
    const sent = toExtractedData(rows);
    expect(sent).toHaveLength(4);
    expect(sent[1]!.outcome).toBe("tuberculosis");
    expect(sent[0]).not.toHaveProperty("included");
    rows[0] = withValue(rows[0]!, "n1", 0);
    expect(readiness(rows).problems).toEqual([
      { studyId: "1", title: "Aronson 1948", message: "Group sizes must be greater than 0." },
    ]);
  });

  it("pool groups: a label merges rows, an empty label returns a row to automatic grouping", () => {
    const rows = rowsFromExtraction(jobResult.extracted);
    rows[0] = withPoolGroup(rows[0]!, "tuberculosis (any form)");
    rows[1] = withPoolGroup(withPoolGroup(rows[1]!, "x"), "");
    expect(rows[0]!.poolGroup).toBe("tuberculosis (any form)");
    expect(rows[1]).not.toHaveProperty("poolGroup");
    const sent = toExtractedData([...rows.slice(0, 2), { ...rows[2]!, poolGroup: "  " }]);
    expect(sent.map((r) => r.poolGroup)).toEqual(["tuberculosis (any form)", undefined, undefined]);
  });

  it("finds the quote that contains a value", () => {
    const quotes: SupportingQuote[] = [
      { quote: "RR 0.75 (95% CI 0.60 to 0.93)", start: 0, end: 29, source: "abstract" },
      { quote: "In total 120 patients were randomised", start: 40, end: 78, source: "abstract" },
    ];
    expect(quotesForValue(quotes, 0.6)).toEqual([quotes[0]]);
    expect(quotesForValue(quotes, 120)).toEqual([quotes[1]]);
    expect(quotesForValue(quotes, 12)).toEqual(quotes);
  });

  it("has a hint for 0, 1 and 2+ studies", () => {
    expect(selectionHintText(0)).toMatch(/No studies selected/);
    expect(selectionHintText(1)).toMatch(/at least one more/);
    expect(selectionHintText(3)).toMatch(/Ready for meta-analysis \(3 studies\)/);
  });
});

describe("save report form", () => {
  it("validates as SPEC §5 says", () => {
    expect(validateReportForm("   ", "")).toEqual({
      title: "Name required",
      description: "Please enter a name for your report.",
    });
    expect(validateReportForm("x".repeat(101), "")?.title).toBe("Name too long");
    expect(validateReportForm("x".repeat(100), "d".repeat(500))).toBeNull();
    expect(validateReportForm("ok", "d".repeat(501))?.title).toBe("Description too long");
  });

  it("names downloads", () => {
    const now = new Date("2026-11-22T01:02:03.004Z");
    expect(reportFileName(now)).toBe(`metamind-analysis-report-${now.getTime()}.html`);
    expect(exportFileName("json", now)).toBe("metamind-meta-analysis-2026-11-22.json");
  });
});

describe("JSON export", () => {
  it("holds the data, options and results needed to recompute, with non-finite numbers as null", () => {
    const result = { ...jobResult, analyses: [{ ...jobResult.analyses[0]!, pi_lb: Number.NaN }] };
    const exported = buildExport(result, { method: "REML", test: "knha" }, new Date("2026-11-22T00:00:00Z"));
    expect(exported.format).toBe(EXPORT_FORMAT);
    expect(exported.options).toEqual({ method: "REML", test: "knha" });
    expect(exported.studies.map((s) => s.id)).toEqual(["1", "2", "3", "4", "5", "9"]);
    const parsed = JSON.parse(exportJsonText(exported)) as typeof exported;
    expect(parsed.data[0]!.data).toEqual({ kind: "counts", events1: 4, n1: 123, events2: 11, n2: 139 });
    expect(parsed.data[0]!.measure).toBe("RR");
    expect(parsed.analyses[0]!.pi_lb).toBeNull();
    expect(parsed.analyses[0]!.estimate).toBe(-0.83);
  });
});

describe("backLink", () => {
  it("leads back to the review the page was opened from, else to the search", () => {
    expect(backLink("rev-1", "Exercise for depression")).toEqual({
      to: "/reviews/rev-1?tab=analysis",
      label: "Back to the review “Exercise for depression”",
    });
    expect(backLink("rev-1")).toEqual({ to: "/reviews/rev-1?tab=analysis", label: "Back to the review" });
    expect(backLink(null)).toEqual({ to: "/search", label: "Back to Search" });
  });
});
