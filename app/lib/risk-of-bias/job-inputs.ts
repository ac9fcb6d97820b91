/**
 * A review's risk-of-bias and GRADE settings as the inputs of a meta-analysis job (POST
 * /api/meta-analysis/enhanced): pure functions of the answers of the review's risk-of-bias routes.
 */
import type { ApiGradeRating, ApiGradeSettings, ApiRobOverview, RobJudgementSet } from "./types";

/**
 * The final judgements (domains and overall) of a review's assessments, by outcome name then
 * record id (the study id of rows that come from the review's data extraction): the
 * `grade.riskOfBiasByOutcome` of POST /api/meta-analysis/enhanced.
 */
export function judgementsByOutcome(overview: ApiRobOverview): Record<string, Record<string, RobJudgementSet>> {
  const names = new Map(overview.outcomes.map((o) => [o.id, o.name]));
  const out: Record<string, Record<string, RobJudgementSet>> = {};
  for (const a of overview.assessments) {
    const name = names.get(a.outcomeId);
    if (name === undefined) continue;
    (out[name] ??= {})[String(a.recordId)] = a.final;
  }
  return out;
}

/**
 * A review's stored GRADE settings as the job's inputs, keyed by outcome name:
 * `grade.reviewerRatings`, `grade.decisionThresholds` and `summaryOfFindings.assumedControlRiskByOutcome`.
 */
export function gradeInputs(settings: readonly ApiGradeSettings[]): {
  reviewerRatings: Record<string, ApiGradeRating>;
  decisionThresholds: Record<string, number>;
  assumedControlRiskByOutcome: Record<string, number>;
} {
  const out = {
    reviewerRatings: {} as Record<string, ApiGradeRating>,
    decisionThresholds: {} as Record<string, number>,
    assumedControlRiskByOutcome: {} as Record<string, number>,
  };
  for (const s of settings) {
    if (Object.keys(s.rating.overrides).length || s.rating.rateUp.length) out.reviewerRatings[s.outcome] = s.rating;
    if (s.decisionThreshold !== null) out.decisionThresholds[s.outcome] = s.decisionThreshold;
    if (s.assumedControlRisk !== null) out.assumedControlRiskByOutcome[s.outcome] = s.assumedControlRisk;
  }
  return out;
}
