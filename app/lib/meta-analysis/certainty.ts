/**
 * GRADE certainty and the Summary of Findings row of one pooled outcome from the reviewer's inputs
 * (RoB 2 judgements per result, indirectness, decision threshold, rating changes, assumed control
 * risk). Pure; the one core behind the meta-analysis job (app/.server/meta-analysis/run.ts) and the
 * review's Analysis tab, so both give the same table for the same data and settings. Methods:
 * {@link gradeAnalysis} and {@link summaryOfFindings}.
 */
import { regtest } from "./bias";
import { applyReviewerRating, gradeAnalysis, type GradeReviewerRating } from "./grade";
import { summaryOfFindings } from "./summary-of-findings";
import type { Tau2Control } from "./tau2";
import type {
  EffectSize,
  EggerTest,
  ExtractedStudyData,
  GradeAssessment,
  Measure,
  Method,
  PooledResult,
  SummaryOfFindings,
  TestType,
} from "./types";
import type { RobJudgement } from "~/lib/risk-of-bias/rob2";
import type { RobJudgementSet } from "~/lib/risk-of-bias/types";

/**
 * The reviewer's GRADE inputs: RoB 2 overall judgements by study id; indirectness calls and
 * decision thresholds (natural scale: a ratio for RR/OR/ROM) by outcome name.
 */
export interface GradeOptions {
  riskOfBias?: Record<string, RobJudgement>;
  /**
   * RoB 2 is per result: judgements by outcome name, then study id (take precedence over
   * `riskOfBias`): the overall judgement, or the domains and overall (then drawn in the report).
   */
  riskOfBiasByOutcome?: Record<string, Record<string, RobJudgement | RobJudgementSet>>;
  indirectness?: Record<string, { levels: 0 | 1 | 2; reason: string }>;
  decisionThresholds?: Record<string, number>;
  /** The reviewer's rating changes and rated-up levels by outcome name (see {@link GradeReviewerRating}). */
  reviewerRatings?: Record<string, GradeReviewerRating>;
}

/** Summary of Findings options: one assumed control risk (proportion) or one per outcome name. */
export interface SofOptions {
  assumedControlRisk?: number;
  assumedControlRiskByOutcome?: Record<string, number>;
}

const RATIO: readonly Measure[] = ["RR", "OR", "ROM"];

/** Fewest studies for Egger's and Begg's tests, trim and fill and leave-one-out (the job's rule). */
export const MIN_K_SMALL_STUDY_TESTS = 3;

/**
 * Egger's regression test (metafor regtest) as GRADE's publication-bias input, under the job's
 * rules: null with fewer than {@link MIN_K_SMALL_STUDY_TESTS} studies, when every effect size is
 * identical, or when the test throws or gives a non-finite number.
 */
export function eggerForGrade(
  effects: readonly EffectSize[],
  options: { measure: Measure; method: Method; test: TestType; control?: Tau2Control },
): EggerTest | null {
  if (effects.length < MIN_K_SMALL_STUDY_TESTS || effects.every((e) => e.yi === effects[0]!.yi)) return null;
  try {
    const egger = regtest([...effects], options);
    return Object.values(egger).every((v) => typeof v !== "number" || Number.isFinite(v)) ? egger : null;
  } catch {
    return null;
  }
}

/** What {@link outcomeCertainty} returns; `robGiven`/`robJudgements` aligned with `rows`. */
export interface OutcomeCertainty {
  grade: GradeAssessment;
  summaryOfFindings: SummaryOfFindings;
  /** The RoB 2 input per row (overall or full set; null = not assessed); undefined without any input. */
  robGiven?: (RobJudgement | RobJudgementSet | null)[];
  /** The RoB 2 overall judgement per row. */
  robJudgements?: (RobJudgement | null)[];
  /** Set when a decision threshold was ignored (a ratio threshold must be positive). */
  note?: string;
}

/**
 * GRADE (computed, then the reviewer's rating changes) and the Summary of Findings row of one
 * pooled outcome. `pooled` is the fitted model (analysis scale), `rows` and `effects` the pooled
 * studies in the model's order, `egger` Egger's test (null when not run: k < 3 or identical effects).
 * The reviewer's inputs are looked up by `outcome` (the outcome's name).
 */
export function outcomeCertainty(
  input: {
    outcome: string;
    measure: Measure;
    reportedMeasure?: "HR" | "IRR";
    pooled: PooledResult;
    egger: EggerTest | null;
    rows: ExtractedStudyData[];
    effects: readonly { yi: number; vi: number }[];
  },
  grade: GradeOptions = {},
  sof: SofOptions = {},
): OutcomeCertainty {
  const { outcome, measure, pooled, rows } = input;
  const threshold = grade.decisionThresholds?.[outcome];
  const robByStudy = grade.riskOfBiasByOutcome?.[outcome] ?? grade.riskOfBias;
  const robGiven = robByStudy ? rows.map((r) => robByStudy[r.studyId] ?? null) : undefined;
  const robJudgements = robGiven?.map((j) => (j === null ? null : typeof j === "string" ? j : j.overall));
  const ratio = RATIO.includes(measure);
  const note =
    threshold !== undefined && ratio && !(threshold > 0)
      ? `The decision threshold ${threshold} was ignored: a ${measure} threshold must be a positive ratio.`
      : undefined;
  const computed = gradeAnalysis({
    ...pooled,
    k: input.effects.length,
    egger: input.egger,
    rows,
    effects: input.effects,
    riskOfBias: robJudgements,
    indirectness: grade.indirectness?.[outcome],
    decisionThreshold:
      threshold === undefined ? undefined : ratio ? (threshold > 0 ? Math.log(threshold) : undefined) : threshold,
  });
  const rating = grade.reviewerRatings?.[outcome];
  const assessed = rating ? applyReviewerRating(computed, rating) : computed;
  const base = { measure, ...(input.reportedMeasure ? { reportedMeasure: input.reportedMeasure } : {}) };
  return {
    grade: assessed,
    summaryOfFindings: summaryOfFindings(
      { ...base, estimate: pooled.estimate, ci_lb: pooled.ci_lb, ci_ub: pooled.ci_ub, grade: assessed, rows },
      { assumedControlRisk: sof.assumedControlRiskByOutcome?.[outcome] ?? sof.assumedControlRisk },
    ),
    ...(robGiven ? { robGiven, robJudgements } : {}),
    ...(note ? { note } : {}),
  };
}
