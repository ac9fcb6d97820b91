/**
 * RoB 2 assessments of a systematic review (issue 28): one per included study (review record) ×
 * outcome, with the effect of interest (variant), the answers to the signalling questions, the
 * reviewer's support text and quotes per answer, the algorithm's proposed judgements, the
 * reviewer's overrides with their justifications, and the final judgements (both kept).
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { Rob2Answer, Rob2DomainId, Rob2Variant, RobJudgement } from "../app/lib/risk-of-bias/rob2";
import type { RobJudgementSet } from "../app/lib/risk-of-bias/types";
import { users } from "./schema";
import { reviewOutcomes } from "./schema.review-extraction";
import { reviewRecords, reviews } from "./schema.reviews";

const now = sql`(unixepoch('subsec') * 1000)`;

/** Support for one answer: the reviewer's words and quotes from the study. */
export type RobSupport = Record<string, { text: string; quotes: string[] }>;
/** The reviewer's changes to the proposed judgements, each with its justification. */
export type RobOverrides = Partial<Record<Rob2DomainId | "overall", { judgement: RobJudgement; justification: string }>>;

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
    answers: text("answers", { mode: "json" }).$type<Record<string, Rob2Answer>>().notNull().default(sql`'{}'`),
    support: text("support", { mode: "json" }).$type<RobSupport>().notNull().default(sql`'{}'`),
    proposed: text("proposed", { mode: "json" }).$type<RobJudgementSet>().notNull(),
    overrides: text("overrides", { mode: "json" }).$type<RobOverrides>().notNull().default(sql`'{}'`),
    final: text("final", { mode: "json" }).$type<RobJudgementSet>().notNull(),
    assessedBy: text("assessed_by").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
    updatedAt: integer("updated_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [uniqueIndex("rob_assessments_result_unique").on(t.reviewId, t.recordId, t.outcomeId), index("rob_assessments_user_idx").on(t.userId)],
);

export type RiskOfBiasAssessmentRow = typeof riskOfBiasAssessments.$inferSelect;
