import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { runMetaAnalysis } from "~/.server/meta-analysis/run";
import { SummaryOfFindingsTable } from "~/components/meta-analysis/risk-of-bias-panels";
import { formatSofRow, sofTableCsv } from "./meta-analysis/summary-of-findings";
import { reviewOutcomeCertainty } from "./review-analysis";
import {
  poolReviewOutcome,
  type PoolChoice,
  type ReviewOutcomeExtraction,
  reviewOutcomeRows,
} from "./review-extraction";
import { gradeInputs, judgementsByOutcome } from "./risk-of-bias/job-inputs";
import type { ApiGradeSettings, ApiRobOverview, RobJudgementSet } from "./risk-of-bias/types";

const arm = (events: number | null, groupSize: number | null) => ({ events, groupSize, mean: null, sd: null });
const study = (recordId: number, i: [number | null, number | null], c: [number | null, number | null]) => ({
  recordId,
  title: `Trial ${recordId}`,
  year: 2010 + recordId,
  reported: null,
  audit: [],
  result: { intervention: arm(...i), comparator: arm(...c) },
});
const extraction = {
  outcome: { id: 1, name: "All-cause mortality", intervention: "drug", comparator: "placebo", createdAt: "2026-01-01" },
  studies: [
    study(7, [10, 100], [20, 100]),
    study(8, [null, null], [null, null]),
    study(9, [15, 120], [25, 118]),
    study(10, [30, 200], [41, 205]),
    study(11, [8, 90], [9, 88]),
  ],
} as unknown as ReviewOutcomeExtraction;
const set = (overall: RobJudgementSet["overall"]): RobJudgementSet => ({
  D1: "low",
  D2: "low",
  D3: "low",
  D4: "low",
  D5: overall,
  overall,
});
const overview = {
  outcomes: [{ id: 1, name: "All-cause mortality" }],
  studies: [],
  assessments: [
    { recordId: 7, outcomeId: 1, final: set("high") },
    { recordId: 9, outcomeId: 1, final: set("high") },
    { recordId: 10, outcomeId: 1, final: set("some_concerns") },
  ],
} as unknown as ApiRobOverview;
const settings = [
  {
    outcomeId: 1,
    outcome: "All-cause mortality",
    rating: {
      overrides: { indirectness: { downgrade: -1, justification: "Trials enrolled only men over 70." } },
      rateUp: [{ reason: "dose response", levels: 1, justification: "Higher doses, fewer deaths." }],
    },
    assumedControlRisk: 0.15,
    decisionThreshold: 0.9,
    updatedBy: "a@b.c",
    updatedAt: "2026-01-01",
  },
] as ApiGradeSettings[];
const model = { method: "REML" as const, test: "knha" as const };

/** The job the /meta-analysis?review= page starts for the same outcome, choice, RoB 2 and GRADE settings. */
function jobAnalysis(choice: PoolChoice, withSettings: boolean) {
  const { rows, excluded } = reviewOutcomeRows(extraction, choice);
  const reviewer = gradeInputs(withSettings ? settings : []);
  const result = runMetaAnalysis(
    { studyCount: extraction.studies.length, extracted: rows, excluded, model: "review" },
    {
      ...model,
      grade: {
        riskOfBiasByOutcome: judgementsByOutcome(overview),
        reviewerRatings: reviewer.reviewerRatings,
        decisionThresholds: reviewer.decisionThresholds,
      },
      summaryOfFindings: { assumedControlRiskByOutcome: reviewer.assumedControlRiskByOutcome },
    },
  );
  expect(result.analyses).toHaveLength(1);
  return result.analyses[0]!;
}

describe("the Summary of Findings in the review's Analysis tab", () => {
  for (const measure of ["RR", "OR"] as const) {
    it(`equals the meta-analysis job's table for the same data and settings (${measure})`, () => {
      const choice: PoolChoice = { type: "binary", measure };
      const pooling = poolReviewOutcome(extraction.studies, { ...choice, ...model });
      const tab = reviewOutcomeCertainty(extraction, choice, pooling, model, settings, overview);
      const job = jobAnalysis(choice, true);
      expect(tab).not.toBeNull();
      expect(tab!.grade).toEqual(job.grade);
      expect(tab!.summaryOfFindings).toEqual(job.summaryOfFindings);
      const row = formatSofRow("All-cause mortality", tab!.summaryOfFindings);
      expect(row).toEqual(formatSofRow(job.outcome, job.summaryOfFindings!));
      expect(sofTableCsv([row])).toBe(sofTableCsv([formatSofRow(job.outcome, job.summaryOfFindings!)]));
      // The stored settings are used: the reviewer's control risk, indirectness call and rated-up level; RoB 2 rates down.
      expect(tab!.summaryOfFindings.assumedRiskPer1000).toBeCloseTo(150, 10);
      expect(tab!.summaryOfFindings.assumedRiskSource).toBe("reviewer");
      expect(tab!.summaryOfFindings.studies).toBe(4);
      expect(tab!.summaryOfFindings.downgrades.map((d) => d.domain)).toEqual(
        expect.arrayContaining(["risk of bias", "indirectness"]),
      );
      expect(row.footnotes.join(" ")).toContain("Trials enrolled only men over 70.");
      expect(row.footnotes.join(" ")).toContain("Higher doses, fewer deaths.");
      expect(tab!.grade.judgements.find((j) => j.domain === "publication bias")).toBeDefined();
      // The tab renders the report's component with its row: the same markup as the job's table.
      const tabHtml = renderToStaticMarkup(
        <SummaryOfFindingsTable
          analyses={[{ outcome: "All-cause mortality", summaryOfFindings: tab!.summaryOfFindings }]}
        />,
      );
      expect(tabHtml).toBe(renderToStaticMarkup(<SummaryOfFindingsTable analyses={[job]} />));
      expect(tabHtml).toContain("150 per 1,000");
    });
  }

  it("without stored settings uses the pooled control-group risk, as the job does", () => {
    const choice: PoolChoice = { type: "binary", measure: "RR" };
    const pooling = poolReviewOutcome(extraction.studies, { ...choice, ...model });
    const tab = reviewOutcomeCertainty(extraction, choice, pooling, model, [], overview)!;
    const job = jobAnalysis(choice, false);
    expect(tab.summaryOfFindings).toEqual(job.summaryOfFindings);
    expect(tab.summaryOfFindings.assumedRiskSource).toBe("pooled control groups");
    expect(tab.summaryOfFindings.assumedRiskPer1000).toBeCloseTo((95 / 511) * 1000, 10);
  });

  it("gives no table when the outcome is not pooled", () => {
    const choice: PoolChoice = { type: "continuous", measure: "MD" };
    const pooling = poolReviewOutcome(extraction.studies, { ...choice, ...model });
    expect(reviewOutcomeCertainty(extraction, choice, pooling, model, settings, overview)).toBeNull();
  });
});
