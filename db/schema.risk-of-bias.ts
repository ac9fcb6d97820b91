/**
 * RoB 2 assessments of a systematic review (issue 28): one per included study (review record) ×
 * outcome, with the effect of interest (variant), the answers to the signalling questions, the
 * reviewer's support text and quotes per answer, the algorithm's proposed judgements, the
 * reviewer's overrides with their justifications, and the final judgements (both kept).
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { Rob2Answer, Rob2DomainId, Rob2Variant, RobJudgement } from "../app/lib/risk-of-bias/rob2";
import type { RobJudgementSet } from "../app/lib/risk-of-bias/types";
import { users } from "./schema";
import { reviewOutcomes } from "./schema.review-extraction";
import { reviewRecords, reviews } from "./schema.reviews";

const now = sql`(unixepoch('subsec') * 1000)`;

/** Support for one answer: the reviewer's words and quotes from the study. */
export type RobSupport = Record<string, { text: string; quotes: string[] }>;
/** The reviewer's changes to the proposed judgements, each with its justification. */
export type RobOverrides = Partial<
  Record<Rob2DomainId | "overall", { judgement: RobJudgement; justification: string }>
>;

export const riskOfBiasAssessments = sqliteTable(
  "risk_of_bias_assessments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    recordId: integer("record_id")
      .notNull()
      .references(() => reviewRecords.id, { onDelete: "cascade" }),
    outcomeId: integer("outcome_id")
      .notNull()
      .references(() => reviewOutcomes.id, { onDelete: "cascade" }),
    variant: text("variant").$type<Rob2Variant>().notNull(),
    answers: text("answers", { mode: "json" })
      .$type<Record<string, Rob2Answer>>()
      .notNull()
      .default(sql`'{}'`),
    support: text("support", { mode: "json" })
      .$type<RobSupport>()
      .notNull()
      .default(sql`'{}'`),
    proposed: text("proposed", { mode: "json" }).$type<RobJudgementSet>().notNull(),
    overrides: text("overrides", { mode: "json" })
      .$type<RobOverrides>()
      .notNull()
      .default(sql`'{}'`),
    final: text("final", { mode: "json" }).$type<RobJudgementSet>().notNull(),
    assessedBy: text("assessed_by").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
    updatedAt: integer("updated_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    uniqueIndex("rob_assessments_result_unique").on(t.reviewId, t.recordId, t.outcomeId),
    index("rob_assessments_user_idx").on(t.userId),
  ],
);

export type RiskOfBiasAssessmentRow = typeof riskOfBiasAssessments.$inferSelect;

/** The columns of one RoB 2 assessment as a reviewer filled it in (answers, support, proposal, overrides, final judgements). */
const assessmentColumns = () => ({
  variant: text("variant").$type<Rob2Variant>().notNull(),
  answers: text("answers", { mode: "json" })
    .$type<Record<string, Rob2Answer>>()
    .notNull()
    .default(sql`'{}'`),
  support: text("support", { mode: "json" })
    .$type<RobSupport>()
    .notNull()
    .default(sql`'{}'`),
  proposed: text("proposed", { mode: "json" }).$type<RobJudgementSet>().notNull(),
  overrides: text("overrides", { mode: "json" })
    .$type<RobOverrides>()
    .notNull()
    .default(sql`'{}'`),
  final: text("final", { mode: "json" }).$type<RobJudgementSet>().notNull(),
});

/**
 * Dual RoB 2 assessment (issue 30 item 5): one reviewer's own assessment of a study × outcome, at
 * most one row per reviewer (a re-submission replaces it until the other reviewer has submitted).
 */
export const reviewRobSubmissions = sqliteTable(
  "review_rob_submissions",
  {
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    outcomeId: integer("outcome_id")
      .notNull()
      .references(() => reviewOutcomes.id, { onDelete: "cascade" }),
    recordId: integer("record_id")
      .notNull()
      .references(() => reviewRecords.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    ...assessmentColumns(),
    submittedAt: integer("submitted_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    primaryKey({ columns: [t.outcomeId, t.recordId, t.userId] }),
    index("review_rob_submissions_review_idx").on(t.reviewId, t.userId),
  ],
);

/**
 * The consensus RoB 2 assessment of a study × outcome recorded by the owner or a named resolver,
 * one row per recording (the latest counts and is copied into risk_of_bias_assessments; earlier
 * rows are its history).
 */
export const reviewRobConsensus = sqliteTable(
  "review_rob_consensus",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    outcomeId: integer("outcome_id")
      .notNull()
      .references(() => reviewOutcomes.id, { onDelete: "cascade" }),
    recordId: integer("record_id")
      .notNull()
      .references(() => reviewRecords.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    ...assessmentColumns(),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    index("review_rob_consensus_study_idx").on(t.outcomeId, t.recordId),
    index("review_rob_consensus_review_idx").on(t.reviewId),
  ],
);

export type ReviewRobSubmissionRow = typeof reviewRobSubmissions.$inferSelect;
export type ReviewRobConsensusRow = typeof reviewRobConsensus.$inferSelect;

/**
 * The reviewer's GRADE settings for one outcome of a review (issue 28): rating changes with their
 * justifications and rated-up levels (app/lib/meta-analysis/grade.ts GradeReviewerRating), the
 * assumed control risk of the Summary of Findings (a proportion) and the imprecision decision
 * threshold (natural scale: a ratio for RR/OR). Sent with the review's meta-analysis.
 */
export const reviewGradeSettings = sqliteTable(
  "review_grade_settings",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    outcomeId: integer("outcome_id")
      .notNull()
      .references(() => reviewOutcomes.id, { onDelete: "cascade" }),
    rating: text("rating", { mode: "json" })
      .$type<GradeReviewerRatingJson>()
      .notNull()
      .default(sql`'{}'`),
    assumedControlRisk: real("assumed_control_risk"),
    decisionThreshold: real("decision_threshold"),
    updatedBy: text("updated_by").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
    updatedAt: integer("updated_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    uniqueIndex("grade_settings_outcome_unique").on(t.reviewId, t.outcomeId),
    index("grade_settings_user_idx").on(t.userId),
  ],
);

/** Stored shape of a reviewer's GRADE rating (validated by GradeReviewerRatingSchema). */
export interface GradeReviewerRatingJson {
  overrides?: Partial<
    Record<
      "risk of bias" | "inconsistency" | "indirectness" | "imprecision" | "publication bias",
      { downgrade: 0 | -1 | -2; justification: string }
    >
  >;
  rateUp?: {
    reason: "large effect" | "dose response" | "plausible confounding";
    levels: 1 | 2;
    justification: string;
  }[];
}

export type ReviewGradeSettingsRow = typeof reviewGradeSettings.$inferSelect;
