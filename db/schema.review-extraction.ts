/**
 * A review's data-extraction outcomes (issue 19): the outcomes the user names for a systematic
 * review, each with the intervention and comparator its arm-level extraction asks for. The cells'
 * corrections live in extraction_edits (study key `review:{reviewId}:{recordId}`, the outcome's name).
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./schema";
import { reviews } from "./schema.reviews";

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
  (t) => [uniqueIndex("review_outcomes_review_name_unique").on(t.reviewId, t.name), index("review_outcomes_user_idx").on(t.userId)],
);

export type ReviewOutcomeRow = typeof reviewOutcomes.$inferSelect;
