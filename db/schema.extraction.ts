/**
 * Arm-level data extraction (issue 19): the audit trail of a user's corrections to extracted arm data
 * (old → new, who, when), one row per changed cell.
 */
import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./schema";

const now = sql`(unixepoch('subsec') * 1000)`;

export const extractionEdits = sqliteTable(
  "extraction_edits",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The study as the page identifies it (search result id, upload id or PMCID). */
    studyKey: text("study_key").notNull(),
    outcome: text("outcome").notNull(),
    arm: text("arm", { enum: ["intervention", "comparator"] }).notNull(),
    field: text("field", { enum: ["events", "groupSize", "mean", "sd"] }).notNull(),
    oldValue: real("old_value"),
    newValue: real("new_value"),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("extraction_edits_user_study_idx").on(t.userId, t.studyKey, t.outcome)],
);

export type ExtractionEditRow = typeof extractionEdits.$inferSelect;
