import { describe, expect, it } from "vitest";
import { emptyArm, type ArmExtraction } from "~/lib/arms";
import { DEFAULT_OPTIONS } from "~/lib/meta-analysis/page-logic";
import {
  applyStoredEdits,
  inferGenericMeasure,
  inferPoolType,
  parsePoolChoice,
  poolReviewOutcome,
  reviewOutcomeRows,
  type ReviewOutcomeExtraction,
} from "~/lib/review-extraction";
import { ExtractedRowSchema } from "./request";
import { runMetaAnalysis } from "./run";

// Issue 26 item 7: a review outcome opened in /meta-analysis pools to the review tab's own result.
const arms = (
  outcomeType: ArmExtraction["outcomeType"],
  i: Partial<ReturnType<typeof emptyArm>>,
  c: Partial<ReturnType<typeof emptyArm>>,
): ArmExtraction => ({
  outcomeType,
  intervention: { ...emptyArm(), ...i },
  comparator: { ...emptyArm(), ...c },
  derived: [],
  quotes: [],
  extractor: "rules",
});

function study(
  recordId: number,
  result: ArmExtraction,
  reported: ReviewOutcomeExtraction["studies"][number]["reported"] = null,
): ReviewOutcomeExtraction["studies"][number] {
  return {
    recordId,
    studyKey: `review:r1:${recordId}`,
    title: `Invented trial ${recordId}`,
    year: 2024,
    source: { kind: "abstract", pmcid: null, note: null },
    result,
    audit: [],
    contexts: [],
    tables: {},
    reported,
  };
}

const outcome = {
  id: 7,
  name: "day-28 mortality",
  intervention: "drug A",
  comparator: "placebo",
  createdAt: "2026-11-26T00:00:00.000Z",
};

describe("review outcome → /meta-analysis rows", () => {
  // A 2×2 whose extracted events were corrected by the reviewer (12 → 30), a plain 2×2, a study
  // with only a reported RR, and one with nothing usable.
  const corrected = applyStoredEdits(arms("binary", { events: 12, groupSize: 100 }, { events: 4, groupSize: 98 }), [
    {
      arm: "intervention",
      field: "events",
      oldValue: 12,
      newValue: 30,
      who: "r@example.org",
      when: "2026-11-26T10:00:00.000Z",
    },
  ]);
  const extraction: ReviewOutcomeExtraction = {
    outcome,
    studies: [
      { ...study(1, corrected.result), audit: corrected.audit },
      study(2, arms("binary", { events: 25, groupSize: 120 }, { events: 5, groupSize: 118 })),
      study(3, arms("unknown", {}, {}), {
        measure: "RR",
        estimate: 4.2,
        lower: 1.6,
        upper: 11,
        quote: "RR 4.2 (1.6 to 11)",
      }),
      study(4, arms("unknown", {}, {})),
    ],
  };

  it("carries the outcome, its type and measure, the corrected values and the reported estimate unchanged", () => {
    const { rows, excluded } = reviewOutcomeRows(extraction, { type: "binary", measure: "RR" });
    expect(rows.map((r) => [r.studyId, r.outcome, r.measure, r.data, r.poolGroup])).toEqual([
      ["1", "day-28 mortality", "RR", { kind: "counts", events1: 30, n1: 100, events2: 4, n2: 98 }, "day-28 mortality"],
      [
        "2",
        "day-28 mortality",
        "RR",
        { kind: "counts", events1: 25, n1: 120, events2: 5, n2: 118 },
        "day-28 mortality",
      ],
      [
        "3",
        "day-28 mortality",
        "RR",
        { kind: "estimate-ci", estimate: 4.2, lower: 1.6, upper: 11 },
        "day-28 mortality",
      ],
    ]);
    expect(rows[0]!.extractedBy).toMatch(/1 correction by the reviewer/);
    expect(excluded).toEqual([
      {
        studyId: "4",
        title: "Invented trial 4",
        reason: "day-28 mortality: no complete arm data: no reported estimate with CI",
      },
    ]);
    // The rows are valid job input (POST /api/meta-analysis/enhanced `data`).
    for (const r of rows) expect(ExtractedRowSchema.safeParse(r).success).toBe(true);
  });

  it.each([
    ["RR", "binary"],
    ["OR", "binary"],
    ["RD", "binary"],
  ] as const)("pools in the job exactly as the review tab pools (%s)", (measure, type) => {
    const tab = poolReviewOutcome(extraction.studies, {
      type,
      measure,
      method: DEFAULT_OPTIONS.method,
      test: DEFAULT_OPTIONS.test,
    });
    const { rows, excluded } = reviewOutcomeRows(extraction, { type, measure });
    const job = runMetaAnalysis(
      { studyCount: 4, extracted: rows, excluded, model: "review" },
      { method: DEFAULT_OPTIONS.method, test: DEFAULT_OPTIONS.test },
    );
    expect(job.analyses).toHaveLength(1);
    const pooled = job.analyses[0]!;
    expect(pooled.k).toBe(tab.pooled!.k);
    expect(pooled.estimate).toBeCloseTo(tab.pooled!.estimate, 12);
    expect(pooled.ci_lb).toBeCloseTo(tab.pooled!.ci_lb, 12);
    expect(pooled.ci_ub).toBeCloseTo(tab.pooled!.ci_ub, 12);
    expect(pooled.tau2).toBeCloseTo(tab.pooled!.tau2, 12);
    expect(job.analyses[0]!.outcome).toBe("day-28 mortality");
  });

  it("continuous outcomes keep their means and the chosen SMD", () => {
    const ext: ReviewOutcomeExtraction = {
      outcome: { ...outcome, name: "pain score" },
      studies: [
        study(1, arms("continuous", { mean: 3.1, sd: 1.2, groupSize: 40 }, { mean: 4.0, sd: 1.3, groupSize: 41 })),
        study(2, arms("continuous", { mean: 2.8, sd: 1.0, groupSize: 55 }, { mean: 3.4, sd: 1.1, groupSize: 52 })),
      ],
    };
    const tab = poolReviewOutcome(ext.studies, { type: "continuous", measure: "SMD", method: "REML", test: "knha" });
    const { rows } = reviewOutcomeRows(ext, { type: "continuous", measure: "SMD" });
    expect(rows.every((r) => r.data.kind === "means" && r.measure === "SMD")).toBe(true);
    const job = runMetaAnalysis(
      { studyCount: 2, extracted: rows, excluded: [], model: "review" },
      { method: "REML", test: "knha" },
    );
    expect(job.analyses[0]!.estimate).toBeCloseTo(tab.pooled!.estimate, 12);
  });

  it("trials reporting only hazard ratios: generic inverse variance, inferred, pooled on the log scale in the tab and the job alike", () => {
    const hr = (estimate: number, lower: number, upper: number) => ({
      measure: "RR" as const,
      reportedMeasure: "HR" as const,
      estimate,
      lower,
      upper,
      quote: `HR ${estimate}`,
    });
    const ext: ReviewOutcomeExtraction = {
      outcome: { ...outcome, name: "overall survival" },
      studies: [
        study(1, arms("unknown", {}, {}), hr(0.74, 0.52, 1.05)),
        study(2, arms("unknown", {}, {}), hr(0.66, 0.48, 0.92)),
        study(3, arms("unknown", {}, {}), { measure: "RR", estimate: 0.8, lower: 0.6, upper: 1.1, quote: "RR 0.8" }),
      ],
    };
    expect(inferPoolType(ext.studies)).toBe("generic");
    expect(inferGenericMeasure(ext.studies)).toBe("HR");
    const tab = poolReviewOutcome(ext.studies, { type: "generic", measure: "HR", method: "REML", test: "z" });
    expect(tab.studies.map((s) => s.via)).toEqual(["reported-estimate", "reported-estimate", "none"]);
    expect(tab.studies[2]!.note).toContain("is a RR, not a HR");
    const { rows, excluded } = reviewOutcomeRows(ext, { type: "generic", measure: "HR" });
    expect(rows.map((r) => [r.measure, r.reportedMeasure])).toEqual([
      ["RR", "HR"],
      ["RR", "HR"],
    ]);
    expect(excluded.map((e) => e.studyId)).toEqual(["3"]);
    const job = runMetaAnalysis(
      { studyCount: 3, extracted: rows, excluded, model: "review" },
      { method: "REML", test: "z" },
    );
    expect(job.analyses[0]!.reportedMeasure).toBe("HR");
    expect(job.analyses[0]!.estimate).toBeCloseTo(tab.pooled!.estimate, 12);
    // A HR is never the fallback of a binary outcome pooled as RR.
    expect(
      poolReviewOutcome(ext.studies, { type: "binary", measure: "RR", method: "REML", test: "z" }).studies.map(
        (s) => s.via,
      ),
    ).toEqual(["none", "none", "reported-estimate"]);
  });

  it("reads back only a stored choice the type can give", () => {
    expect(parsePoolChoice(JSON.stringify({ type: "generic", measure: "IRR" }))).toEqual({
      type: "generic",
      measure: "IRR",
    });
    expect(parsePoolChoice(JSON.stringify({ type: "continuous", measure: "HR" }))).toBeNull();
    expect(parsePoolChoice(JSON.stringify({ type: "binary", measure: "RR" }))).toEqual({
      type: "binary",
      measure: "RR",
    });
    expect(parsePoolChoice(JSON.stringify({ type: "binary", measure: "SMD" }))).toBeNull();
    expect(parsePoolChoice("{not json")).toBeNull();
    expect(parsePoolChoice(null)).toBeNull();
  });
});
