/**
 * A review's data-extraction outcomes (issue 19): the outcomes the user names for a systematic
 * review, each with the intervention and comparator its arm-level extraction asks for. The cells'
 * corrections live in extraction_edits (study key `review:{reviewId}:{recordId}`, the outcome's name).
 */
import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./schema";
import { reviewRecords, reviews } from "./schema.reviews";

const now = sql`(unixepoch('subsec') * 1000)`;

export const reviewOutcomes = sqliteTable(
  "review_outcomes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    intervention: text("intervention").notNull(),
    comparator: text("comparator").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    uniqueIndex("review_outcomes_review_name_unique").on(t.reviewId, t.name),
    index("review_outcomes_user_idx").on(t.userId),
  ],
);

export type ReviewOutcomeRow = typeof reviewOutcomes.$inferSelect;

/**
 * Study-level data imported from CSV into a review outcome (issue 31, migration 0027): one row per
 * outcome and included record, replacing MetaMind's reading of that study for the outcome. `kind`
 * says which columns hold the data: counts (events and N per arm), means (mean, SD, N per arm) or
 * estimate-ci (measure, estimate, 95% CI; generic inverse variance). `import_id` groups the rows of
 * one file, written in one batch.
 */
export const reviewStudyData = sqliteTable(
  "review_study_data",
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
    importId: text("import_id").notNull(),
    importedBy: text("imported_by").references(() => users.id, { onDelete: "set null" }),
    fileName: text("file_name"),
    line: integer("line").notNull(),
    kind: text("kind", { enum: ["counts", "means", "estimate-ci"] }).notNull(),
    interventionEvents: real("intervention_events"),
    interventionN: real("intervention_n"),
    interventionMean: real("intervention_mean"),
    interventionSd: real("intervention_sd"),
    comparatorEvents: real("comparator_events"),
    comparatorN: real("comparator_n"),
    comparatorMean: real("comparator_mean"),
    comparatorSd: real("comparator_sd"),
    measure: text("measure"),
    estimate: real("estimate"),
    ciLower: real("ci_lower"),
    ciUpper: real("ci_upper"),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    uniqueIndex("review_study_data_outcome_record_unique").on(t.outcomeId, t.recordId),
    index("review_study_data_review_idx").on(t.reviewId),
  ],
);

export type ReviewStudyDataRow = typeof reviewStudyData.$inferSelect;
