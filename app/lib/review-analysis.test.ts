import { describe, expect, it } from "vitest";
import {
  analysisColumns,
  BUILT_IN_COLUMNS,
  characteristicsCsv,
  normaliseCharacteristicValue,
  type CharacteristicsTable,
} from "./characteristics";
import { reviewExplorationColumns, reviewExploredAnalysis, riskOfBiasColumn } from "./review-analysis";
import { poolReviewOutcome } from "./review-extraction";

const cell = (value: string | null) => ({ value, quote: null, edited: true });
const table: Pick<CharacteristicsTable, "columns" | "studies"> = {
  columns: [
    ...BUILT_IN_COLUMNS,
    { key: "c1", name: "Dose", type: "categorical", builtIn: false },
    { key: "c2", name: "Mean age", type: "numeric", builtIn: false },
  ],
  studies: [1, 2, 3].map((recordId) => ({
    recordId,
    title: `Trial ${recordId}`,
    year: 2020 + recordId,
    source: { kind: "abstract", note: null },
    values: {
      country: cell(recordId === 3 ? null : "Spain"),
      c1: cell(recordId === 1 ? "low" : "high"),
      c2: cell(String(50 + recordId)),
      randomised: cell(recordId === 2 ? null : "100"),
    },
  })),
};

describe("characteristics as analysis columns", () => {
  it("offers categorical columns with ≥ 2 levels (blank = Not reported) and complete, varying numeric columns", () => {
    const cols = analysisColumns(table, [3, 1, 2]);
    expect(cols.map((c) => [c.key, c.kind, c.values])).toEqual([
      ["country", "categorical", ["Not reported", "Spain", "Spain"]],
      ["c1", "categorical", ["high", "low", "high"]],
      ["c2", "numeric", [53, 51, 52]],
    ]);
    const { subgroups, moderators } = reviewExplorationColumns(table, [1, 2, 3]);
    expect(subgroups.map((c) => c.label)).toEqual(["Country", "Dose"]);
    expect(moderators.map((c) => c.label)).toEqual(["Country", "Dose", "Mean age"]);
  });

  it("checks edited values against the column type", () => {
    expect(normaliseCharacteristicValue("numeric", " 1,250 ")).toEqual({ value: "1250" });
    expect(normaliseCharacteristicValue("numeric", "many")).toEqual({
      error: "This column holds numbers: enter a number.",
    });
    expect(normaliseCharacteristicValue("text", "  ")).toEqual({ value: null });
    expect(normaliseCharacteristicValue("categorical", "x".repeat(1001))).toHaveProperty("error");
  });

  it("writes CSV with quotes columns and formula-safe cells", () => {
    const csv = characteristicsCsv({
      columns: table.columns.slice(0, 2),
      studies: [
        {
          ...table.studies[0]!,
          title: "=HYPERLINK(1)",
          values: { design: { value: "RCT", quote: "We randomised, 100", edited: false } },
        },
      ],
    });
    expect(csv.split("\r\n")[0]).toBe("Study,Year,Design,Country,Design quote,Country quote");
    expect(csv.split("\r\n")[1]).toBe(`'=HYPERLINK(1),2021,RCT,,"We randomised, 100",`);
  });
});

describe("a review outcome as an explored analysis", () => {
  const studies = [
    {
      recordId: 7,
      title: "A",
      reported: null,
      result: {
        intervention: { events: 10, groupSize: 100, mean: null, sd: null },
        comparator: { events: 20, groupSize: 100, mean: null, sd: null },
      },
    },
    {
      recordId: 8,
      title: "B",
      reported: null,
      result: {
        intervention: { events: null, groupSize: null, mean: null, sd: null },
        comparator: { events: null, groupSize: null, mean: null, sd: null },
      },
    },
    {
      recordId: 9,
      title: "C",
      reported: null,
      result: {
        intervention: { events: 15, groupSize: 120, mean: null, sd: null },
        comparator: { events: 25, groupSize: 118, mean: null, sd: null },
      },
    },
  ] as unknown as Parameters<typeof poolReviewOutcome>[0];

  it("labels the pooled studies and keeps their record ids in order", () => {
    const pooling = poolReviewOutcome(studies, { type: "binary", measure: "RR", method: "REML", test: "knha" });
    const out = reviewExploredAnalysis("mortality", pooling, new Map([[7, 2019]]));
    expect(out?.recordIds).toEqual([7, 9]);
    expect(out?.analysis.effects.map((e) => e.label)).toEqual(["A (2019)", "C"]);
    expect(out?.analysis.k).toBe(2);
  });

  it("turns RoB 2 overall judgements for the outcome into a subgroup column", () => {
    const final = (overall: "low" | "high") => ({ overall }) as never;
    const assessments = [
      { recordId: 7, outcomeId: 1, final: final("low") },
      { recordId: 9, outcomeId: 1, final: final("high") },
      { recordId: 8, outcomeId: 2, final: final("high") },
    ];
    expect(riskOfBiasColumn(assessments, 1, [7, 8, 9])).toEqual({
      key: "riskOfBias",
      label: "Risk of bias (RoB 2 overall)",
      values: ["Low", "Not assessed", "High"],
    });
    expect(riskOfBiasColumn(assessments, 3, [7, 8, 9])).toBeNull();
  });
});
