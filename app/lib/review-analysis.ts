/**
 * A review outcome's pooled analysis as the exploration panels read it (issue 29, review Analysis
 * tab): the pooled result of poolReviewOutcome with each pooled study's effect labelled, and the
 * review's characteristics turned into subgroup columns and moderators of exactly those studies.
 * Pure; the panels are the same as /meta-analysis's.
 */
import { analysisColumns, type CharacteristicsTable } from "./characteristics";
import type { ExploredAnalysis, ModeratorColumn, StudyColumn } from "./meta-analysis/explore";
import { eggerForGrade, outcomeCertainty, type OutcomeCertainty } from "./meta-analysis/certainty";
import type { Method, TestType } from "./meta-analysis/types";
import type { Tau2Control } from "./meta-analysis/tau2";
import {
  engineMeasure,
  type OutcomePooling,
  type PoolChoice,
  type ReviewOutcomeExtraction,
  reviewOutcomeRows,
} from "./review-extraction";
import { gradeInputs, judgementsByOutcome } from "./risk-of-bias/job-inputs";
import { ROBVIS_LABEL } from "./risk-of-bias/robvis";
import type { ApiGradeSettings, ApiRobAssessment, ApiRobOverview } from "./risk-of-bias/types";

/** Level of a study without a RoB 2 assessment for the outcome. */
export const NOT_ASSESSED = "Not assessed";

/**
 * The RoB 2 overall judgement of each study for one outcome, as a subgroup column ("Low", "Some
 * concerns", "High", "Not assessed"); null when no study of the analysis is assessed for it or
 * all share one level.
 */
export function riskOfBiasColumn(
  assessments: readonly Pick<ApiRobAssessment, "recordId" | "outcomeId" | "final">[],
  outcomeId: number,
  recordIds: readonly number[],
): StudyColumn | null {
  const byRecord = new Map(
    assessments.filter((x) => x.outcomeId === outcomeId).map((x) => [x.recordId, x.final.overall]),
  );
  if (!recordIds.some((id) => byRecord.has(id))) return null;
  const values = recordIds.map((id) => {
    const j = byRecord.get(id);
    return j ? ROBVIS_LABEL[j] : NOT_ASSESSED;
  });
  return new Set(values).size >= 2 ? { key: "riskOfBias", label: "Risk of bias (RoB 2 overall)", values } : null;
}

/** The analysis of a pooled outcome, and the record id of each of its effects (same order). */
export function reviewExploredAnalysis(
  outcome: string,
  pooling: OutcomePooling,
  years: ReadonlyMap<number, number | null> = new Map(),
): { analysis: ExploredAnalysis; recordIds: number[] } | null {
  if (!pooling.pooled) return null;
  const used = pooling.studies.filter((s) => s.yi !== null && s.vi !== null);
  const effects = used.map((s) => {
    const year = years.get(s.recordId);
    return { yi: s.yi!, vi: s.vi!, studyId: String(s.recordId), label: year ? `${s.title} (${year})` : s.title };
  });
  return { analysis: { ...pooling.pooled, outcome, effects }, recordIds: used.map((s) => s.recordId) };
}

/**
 * The characteristics that can split the analysis's studies (categorical columns with ≥ 2 levels)
 * and the moderators (those, plus numeric columns every study reports and that vary).
 */
export function reviewExplorationColumns(
  table: Pick<CharacteristicsTable, "columns" | "studies">,
  recordIds: readonly number[],
): { subgroups: StudyColumn[]; moderators: ModeratorColumn[] } {
  const cols = analysisColumns(table, recordIds);
  return {
    subgroups: cols
      .filter((c) => c.kind === "categorical")
      .map((c) => ({ key: c.key, label: c.label, values: c.values as string[] })),
    moderators: cols.map((c) => ({ key: c.key, label: c.label, kind: c.kind, values: c.values })),
  };
}

/**
 * GRADE and the Summary of Findings row of a review outcome as the review's Analysis tab pools it
 * (poolReviewOutcome's model and studies), with the review's stored GRADE settings for the outcome
 * (rating changes with justifications, rated-up levels, decision threshold, assumed control risk)
 * and its RoB 2 final judgements — the inputs /meta-analysis?review= sends to the job
 * ({@link gradeInputs}, {@link judgementsByOutcome}), through the job's own core
 * ({@link outcomeCertainty}), so the tab's table equals the job's for the same data and settings.
 * Null when the outcome is not pooled.
 */
export function reviewOutcomeCertainty(
  extraction: ReviewOutcomeExtraction,
  choice: PoolChoice,
  pooling: OutcomePooling,
  model: { method: Method; test: TestType; control?: Tau2Control },
  settings: readonly ApiGradeSettings[],
  overview: ApiRobOverview | null,
): OutcomeCertainty | null {
  const pooled = pooling.pooled;
  if (!pooled) return null;
  const used = pooling.studies.filter((s) => s.yi !== null && s.vi !== null);
  const byId = new Map(reviewOutcomeRows(extraction, choice).rows.map((r) => [r.studyId, r]));
  const rows = used.map((s) => byId.get(String(s.recordId))).filter((r) => r !== undefined);
  if (rows.length !== used.length) return null;
  const effects = used.map((s) => ({ yi: s.yi!, vi: s.vi! }));
  const { measure, reportedMeasure } = engineMeasure(choice.measure);
  const reviewer = gradeInputs(settings);
  const rob = overview && overview.assessments.length > 0 ? judgementsByOutcome(overview) : undefined;
  return outcomeCertainty(
    {
      outcome: extraction.outcome.name,
      measure,
      ...(reportedMeasure ? { reportedMeasure } : {}),
      pooled,
      egger: eggerForGrade(effects, { measure, ...model }),
      rows,
      effects,
    },
    {
      ...(rob ? { riskOfBiasByOutcome: rob } : {}),
      reviewerRatings: reviewer.reviewerRatings,
      decisionThresholds: reviewer.decisionThresholds,
    },
    { assumedControlRiskByOutcome: reviewer.assumedControlRiskByOutcome },
  );
}
