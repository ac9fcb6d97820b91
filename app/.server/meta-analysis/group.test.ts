import { describe, expect, it } from "vitest";
import type { EffectData, ExtractedStudyData } from "~/lib/meta-analysis/types";
import { extractByRules } from "../extraction/extract-rules";
import { groupRows } from "./group";
import { runMetaAnalysis } from "./run";

const ci = (estimate: number, lower: number, upper: number): EffectData => ({
  kind: "estimate-ci",
  estimate,
  lower,
  upper,
});

function hr(
  studyId: string,
  outcome: string,
  data: EffectData,
  extra: Partial<ExtractedStudyData> = {},
): ExtractedStudyData {
  return {
    studyId,
    title: `Study ${studyId}`,
    outcome,
    measure: "RR",
    reportedMeasure: "HR",
    data,
    quotes: [],
    extractedBy: "offline-rules",
    design: "cohort",
    totalN: null,
    ...extra,
  };
}

const run = (extracted: ExtractedStudyData[]) =>
  runMetaAnalysis({ studyCount: 3, extracted, excluded: [], model: "test" });

describe("grouping for pooling", () => {
  it("a VTE hazard ratio and a cerebrovascular hazard ratio from two studies do not pool", () => {
    const result = run([
      hr("vte", "venous thromboembolism", ci(0.22, 0.17, 0.29)),
      hr("cvd", "cerebrovascular diseases", ci(0.66, 0.56, 0.77)),
    ]);
    expect(result.analyses).toEqual([]);
    // Named as the study words it ("diseases"), not cut down to a stem.
    expect(result.unpooled?.map((u) => u.outcome).sort()).toEqual([
      "cerebrovascular diseases",
      "venous thromboembolism",
    ]);
  });

  it("the same outcome worded differently pools; one study's other outcomes stay apart", () => {
    const { groups, single } = groupRows([
      hr("a", "risk of venous thromboembolism", ci(0.7, 0.5, 0.98)),
      hr("a", "stroke", ci(0.9, 0.7, 1.1)),
      hr("b", "VTE", ci(0.8, 0.6, 1.05)),
    ]);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.rows.map((r) => `${r.studyId}:${r.outcome}`)).toEqual([
      "a:risk of venous thromboembolism",
      "b:VTE",
    ]);
    expect(single.map((s) => s.outcome)).toEqual(["stroke"]);
  });

  it("incompatible timepoints do not pool", () => {
    const { groups } = groupRows([
      hr("a", "heart failure", ci(0.45, 0.38, 0.53), { timepoint: "0-30 days" }),
      hr("b", "heart failure", ci(0.8, 0.7, 0.9), { timepoint: "1 year" }),
    ]);
    expect(groups).toEqual([]);
  });

  it("a meta-analysis' own pooled estimate is never pooled again with primary studies", () => {
    const result = run([
      hr("ma", "stroke", ci(0.8, 0.7, 0.9), { isPooledEstimate: true }),
      hr("p1", "stroke", ci(0.7, 0.5, 0.98)),
      hr("p2", "stroke", ci(0.9, 0.7, 1.1)),
    ]);
    expect(result.analyses).toHaveLength(1);
    expect(result.analyses[0]!.studyIds).toEqual(["p1", "p2"]);
    expect(result.unpooled?.find((u) => u.studyIds[0] === "ma")?.reason).toMatch(/pooled result of a meta-analysis/);
  });

  it("the user's pool groups merge different wordings and split same ones", () => {
    const merged = groupRows([
      hr("a", "stroke", ci(0.7, 0.5, 0.98), { poolGroup: "cerebrovascular" }),
      hr("b", "cerebral infarction", ci(0.8, 0.6, 1.05), { poolGroup: "cerebrovascular" }),
    ]);
    expect(merged.groups).toHaveLength(1);
    expect(merged.groups[0]!.outcome).toBe("cerebrovascular");
    const split = groupRows([
      hr("a", "stroke", ci(0.7, 0.5, 0.98), { poolGroup: "ischaemic" }),
      hr("b", "stroke", ci(0.8, 0.6, 1.05), { poolGroup: "haemorrhagic" }),
    ]);
    expect(split.groups).toEqual([]);
  });

  it("warns when I² > 75% with 3 or fewer studies", () => {
    const result = run([hr("a", "stroke", ci(0.3, 0.25, 0.36)), hr("b", "stroke", ci(1.5, 1.3, 1.7))]);
    const analysis = result.analyses[0]!;
    expect(analysis.I2).toBeGreaterThan(75);
    expect(analysis.notes?.some((n) => /^Warning: I² is \d+% with only 2 studies/.test(n))).toBe(true);
  });

  it("extracted abstracts: different outcomes of two cohort studies stay apart", () => {
    const { extracted } = extractByRules([
      {
        id: "1",
        title: "Vaccination and VTE: a cohort study",
        abstract: "Vaccination reduced the risk of venous thromboembolism (HR 0.22, 95% CI 0.17 to 0.29).",
      },
      {
        id: "2",
        title: "Vaccination and stroke: a cohort study",
        abstract: "Vaccination reduced the risk of cerebrovascular disease (HR 0.66, 95% CI 0.56 to 0.77).",
      },
    ]);
    expect(extracted.map((r) => r.outcome)).toEqual(["venous thromboembolism", "cerebrovascular disease"]);
    const result = runMetaAnalysis({ studyCount: 2, extracted, excluded: [], model: "test" });
    expect(result.analyses).toEqual([]);
  });
});
