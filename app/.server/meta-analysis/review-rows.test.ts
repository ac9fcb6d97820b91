import { describe, expect, it } from "vitest";
import { emptyArm, type ArmExtraction } from "~/lib/arms";
import { DEFAULT_OPTIONS } from "~/lib/meta-analysis/page-logic";
import { applyStoredEdits, parsePoolChoice, poolReviewOutcome, reviewOutcomeRows, type ReviewOutcomeExtraction } from "~/lib/review-extraction";
import { ExtractedRowSchema } from "./request";
import { runMetaAnalysis } from "./run";

// Issue 26 item 7: a review outcome opened in /meta-analysis pools to the review tab's own result.
const arms = (outcomeType: ArmExtraction["outcomeType"], i: Partial<ReturnType<typeof emptyArm>>, c: Partial<ReturnType<typeof emptyArm>>): ArmExtraction => ({
  outcomeType,
  intervention: { ...emptyArm(), ...i },
  comparator: { ...emptyArm(), ...c },
  derived: [],
  quotes: [],
  extractor: "rules",
});

function study(recordId: number, result: ArmExtraction, reported: ReviewOutcomeExtraction["studies"][number]["reported"] = null): ReviewOutcomeExtraction["studies"][number] {
  return { recordId, studyKey: `review:r1:${recordId}`, title: `Invented trial ${recordId}`, year: 2024, source: { kind: "abstract", pmcid: null, note: null }, result, audit: [], contexts: [], tables: {}, reported };
}

const outcome = { id: 7, name: "day-28 mortality", intervention: "drug A", comparator: "placebo", createdAt: "2026-11-26T00:00:00.000Z" };

describe("review outcome → /meta-analysis rows", () => {
  // A 2×2 whose extracted events were corrected by the reviewer (12 → 30), a plain 2×2, a study
  // with only a reported RR, and one with nothing usable.
  const corrected = applyStoredEdits(arms("binary", { events: 12, groupSize: 100 }, { events: 4, groupSize: 98 }), [
    { arm: "intervention", field: "events", oldValue: 12, newValue: 30, who: "r@example.org", when: "2026-11-26T10:00:00.000Z" },
  ]);
  const extraction: ReviewOutcomeExtraction = {
    outcome,
    studies: [
      { ...study(1, corrected.result), audit: corrected.audit },
      study(2, arms("binary", { events: 25, groupSize: 120 }, { events: 5, groupSize: 118 })),
      study(3, arms("unknown", {}, {}), { measure: "RR", estimate: 4.2, lower: 1.6, upper: 11, quote: "RR 4.2 (1.6 to 11)" }),
      study(4, arms("unknown", {}, {})),
    ],
  };

  it("carries the outcome, its type and measure, the corrected values and the reported estimate unchanged", () => {
    const { rows, excluded } = reviewOutcomeRows(extraction, { type: "binary", measure: "RR" });
    expect(rows.map((r) => [r.studyId, r.outcome, r.measure, r.data, r.poolGroup])).toEqual([
      ["1", "day-28 mortality", "RR", { kind: "counts", events1: 30, n1: 100, events2: 4, n2: 98 }, "day-28 mortality"],
      ["2", "day-28 mortality", "RR", { kind: "counts", events1: 25, n1: 120, events2: 5, n2: 118 }, "day-28 mortality"],
      ["3", "day-28 mortality", "RR", { kind: "estimate-ci", estimate: 4.2, lower: 1.6, upper: 11 }, "day-28 mortality"],
    ]);
    expect(rows[0]!.extractedBy).toMatch(/1 correction by the reviewer/);
    expect(excluded).toEqual([{ studyId: "4", title: "Invented trial 4", reason: "day-28 mortality: no complete arm data and no reported estimate with CI" }]);
    // The rows are valid job input (POST /api/meta-analysis/enhanced `data`).
    for (const r of rows) expect(ExtractedRowSchema.safeParse(r).success).toBe(true);
  });

  it.each([
    ["RR", "binary"],
    ["OR", "binary"],
    ["RD", "binary"],
  ] as const)("pools in the job exactly as the review tab pools (%s)", (measure, type) => {
    const tab = poolReviewOutcome(extraction.studies, { type, measure, method: DEFAULT_OPTIONS.method, test: DEFAULT_OPTIONS.test });
    const { rows, excluded } = reviewOutcomeRows(extraction, { type, measure });
    const job = runMetaAnalysis({ studyCount: 4, extracted: rows, excluded, model: "review" }, { method: DEFAULT_OPTIONS.method, test: DEFAULT_OPTIONS.test });
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
    const job = runMetaAnalysis({ studyCount: 2, extracted: rows, excluded: [], model: "review" }, { method: "REML", test: "knha" });
    expect(job.analyses[0]!.estimate).toBeCloseTo(tab.pooled!.estimate, 12);
  });

  it("reads back only a stored choice the type can give", () => {
    expect(parsePoolChoice(JSON.stringify({ type: "binary", measure: "RR" }))).toEqual({ type: "binary", measure: "RR" });
    expect(parsePoolChoice(JSON.stringify({ type: "binary", measure: "SMD" }))).toBeNull();
    expect(parsePoolChoice("{not json")).toBeNull();
    expect(parsePoolChoice(null)).toBeNull();
  });
});
