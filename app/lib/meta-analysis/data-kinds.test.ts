import { describe, expect, it } from "vitest";
import { ExtractedRowSchema } from "~/.server/meta-analysis/request";
import { runMetaAnalysis } from "~/.server/meta-analysis/run";
import { escalc } from "./escalc";
import { DATA_KIND_LABELS, validateRow, withDataKind, type DataRow } from "./page-logic";
import type { ExtractedStudyData } from "./types";

// RevMan's data types beside 2×2 counts and means (issue 26 item 6). Reference values from R 4 /
// metafor: escalc("IRR", x1i = c(12, 0, 30), t1i = c(1200, 500, 2100.5), x2i = c(20, 4, 41),
// t2i = c(1180, 480, 1990)); rma(yi, vi, method = "REML", test = "knha").
const RATES = [
  { events1: 12, time1: 1200, events2: 20, time2: 1180, yi: -0.527632742082371, vi: 0.133333333333333 },
  { events1: 0, time1: 500, events2: 4, time2: 480, yi: -2.238046571856474, vi: 2.222222222222222 },
  { events1: 30, time1: 2100.5, events2: 41, time2: 1990, yi: -0.366415457933051, vi: 0.057723577235772 },
];

describe("escalc for RevMan's data types", () => {
  it("rates: the incidence rate ratio as metafor escalc('IRR'), 0.5 added to both arms' events when one has none", () => {
    for (const r of RATES) {
      const e = escalc("RR", { kind: "rates", events1: r.events1, time1: r.time1, events2: r.events2, time2: r.time2 });
      expect(e.yi).toBeCloseTo(r.yi, 12);
      expect(e.vi).toBeCloseTo(r.vi, 12);
    }
    expect(() => escalc("OR", { kind: "rates", events1: 1, time1: 10, events2: 2, time2: 10 })).toThrow(/rate ratio/);
    expect(() => escalc("RR", { kind: "rates", events1: 0, time1: 10, events2: 0, time2: 10 })).toThrow(
      /not estimable/,
    );
    expect(() => escalc("RR", { kind: "rates", events1: 1, time1: 0, events2: 2, time2: 10 })).toThrow(/Person-time/);
  });

  it("O − E and variance: the Peto log hazard ratio (O − E)/V with variance 1/V", () => {
    const e = escalc("RR", { kind: "oe-var", oe: -5.2, v: 10.1 });
    expect(e.yi).toBeCloseTo(-5.2 / 10.1, 14);
    expect(e.vi).toBeCloseTo(1 / 10.1, 14);
    expect(() => escalc("RR", { kind: "oe-var", oe: 1, v: 0 })).toThrow(/variance V/);
  });

  it("estimate and SE: a ratio on the log scale, a difference as is", () => {
    expect(escalc("RR", { kind: "estimate-se", estimate: 0.8, se: 0.1 })).toEqual({ yi: Math.log(0.8), vi: 0.1 * 0.1 });
    expect(escalc("MD", { kind: "estimate-se", estimate: -2.5, se: 0.7 })).toEqual({ yi: -2.5, vi: 0.7 * 0.7 });
    expect(() => escalc("OR", { kind: "estimate-se", estimate: -1, se: 0.2 })).toThrow(/greater than 0/);
    // An estimate given as a log ratio ("log HR −0.22 (SE 0.09)") is used as written; the job schema accepts it.
    expect(escalc("RR", { kind: "estimate-se", estimate: -0.22, se: 0.09, scale: "log" })).toEqual({
      yi: -0.22,
      vi: 0.09 * 0.09,
    });
    expect(escalc("RR", { kind: "estimate-se", estimate: Math.exp(-0.22), se: 0.09 }).yi).toBeCloseTo(-0.22, 12);
    expect(
      ExtractedRowSchema.shape.data.safeParse({ kind: "estimate-se", estimate: -0.22, se: 0.09, scale: "log" }).success,
    ).toBe(true);
    expect(
      ExtractedRowSchema.shape.data.safeParse({ kind: "estimate-se", estimate: -0.22, se: 0.09, scale: "natural" })
        .success,
    ).toBe(false);
  });
});

const row = (
  studyId: string,
  data: ExtractedStudyData["data"],
  reportedMeasure?: "HR" | "IRR",
): ExtractedStudyData => ({
  studyId,
  title: `Invented trial ${studyId}`,
  outcome: "major bleeding",
  measure: "RR",
  ...(reportedMeasure ? { reportedMeasure } : {}),
  data,
  quotes: [],
  extractedBy: "user",
  design: "RCT",
  totalN: null,
});

describe("the job pools the new kinds with the existing engine", () => {
  it("rates rows pool to metafor's REML / Hartung–Knapp rate ratio", () => {
    const rows = RATES.map((r, i) =>
      row(
        String(i + 1),
        { kind: "rates", events1: r.events1, time1: r.time1, events2: r.events2, time2: r.time2 },
        "IRR",
      ),
    );
    for (const r of rows) expect(ExtractedRowSchema.safeParse(r).success).toBe(true);
    const result = runMetaAnalysis(
      { studyCount: 3, extracted: rows, excluded: [], model: "test" },
      { method: "REML", test: "knha" },
    );
    expect(result.analyses).toHaveLength(1);
    const a = result.analyses[0]!;
    expect(a.reportedMeasure).toBe("IRR");
    expect(a.estimate).toBeCloseTo(-0.447582464041178, 6);
    expect(a.ci_lb).toBeCloseTo(-1.21423672004651, 5);
    expect(a.ci_ub).toBeCloseTo(0.319071791964154, 5);
  });

  it("O − E rows pool with hazard ratios reported with a CI or an SE (generic inverse variance), never with rate ratios", () => {
    const rows = [
      row("1", { kind: "oe-var", oe: -5.2, v: 10.1 }, "HR"),
      row("2", { kind: "estimate-ci", estimate: 0.66, lower: 0.48, upper: 0.92 }, "HR"),
      row("3", { kind: "estimate-se", estimate: 0.8, se: 0.12 }, "HR"),
      row("4", { kind: "rates", events1: 12, time1: 1200, events2: 20, time2: 1180 }, "IRR"),
    ];
    for (const r of rows) expect(ExtractedRowSchema.safeParse(r).success).toBe(true);
    const result = runMetaAnalysis(
      { studyCount: 4, extracted: rows, excluded: [], model: "test" },
      { method: "REML", test: "z" },
    );
    expect(result.analyses.map((a) => [a.reportedMeasure, a.k])).toEqual([["HR", 3]]);
    const effects = result.analyses[0]!.effects;
    expect(effects[0]!.yi).toBeCloseTo(-5.2 / 10.1, 12);
    expect(effects[2]!.vi).toBeCloseTo(0.0144, 12);
    expect(result.unpooled?.map((u) => u.reportedMeasure)).toEqual(["IRR"]);
  });

  it("the request schema rejects rates with a fractional event count", () => {
    expect(
      ExtractedRowSchema.safeParse(row("1", { kind: "rates", events1: 1.5, time1: 10, events2: 2, time2: 10 }, "IRR"))
        .success,
    ).toBe(false);
  });
});

describe("the data table's data types", () => {
  const base: DataRow = {
    ...row("1", { kind: "counts", events1: 3, n1: 10, events2: 5, n2: 10 }),
    measure: "OR",
    included: true,
  };

  it("switching empties the values, picks a measure the type gives and names the ratio", () => {
    const rates = withDataKind(base, "rates");
    expect(rates.data).toEqual({ kind: "rates", events1: NaN, time1: NaN, events2: NaN, time2: NaN });
    expect([rates.measure, rates.reportedMeasure, rates.extractedBy]).toEqual(["RR", "IRR", "user"]);
    expect(validateRow(rates)).toMatch(/enter a number/);
    const oe = withDataKind(rates, "oe-var");
    expect([oe.measure, oe.reportedMeasure]).toEqual(["RR", "HR"]);
    const se = withDataKind(base, "estimate-se");
    expect([se.measure, se.reportedMeasure]).toEqual(["OR", undefined]);
    expect(withDataKind(base, "counts")).toBe(base);
    expect(Object.keys(DATA_KIND_LABELS)).toHaveLength(7);
  });

  it("validates each type", () => {
    expect(
      validateRow({
        ...base,
        measure: "RR",
        reportedMeasure: "IRR",
        data: { kind: "rates", events1: 0, time1: 10, events2: 0, time2: 12 },
      }),
    ).toMatch(/not estimable/);
    expect(
      validateRow({ ...base, measure: "RR", data: { kind: "rates", events1: 1, time1: 10, events2: 0, time2: 12 } }),
    ).toBeNull();
    expect(validateRow({ ...base, measure: "RR", data: { kind: "oe-var", oe: -1, v: 0 } })).toMatch(/variance V/);
    expect(validateRow({ ...base, measure: "OR", data: { kind: "estimate-se", estimate: 0, se: 0.2 } })).toMatch(
      /Ratios/,
    );
  });
});
