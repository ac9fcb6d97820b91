/**
 * Characteristics of included studies (issue 29, item 0): the columns a reviewer adds to a review's
 * characteristics table (name + type), and every edit of a cell (built-in or added column) with who
 * and when. A cell's current value is its latest edit, else the value the rules pre-filled from the
 * study's text; the edits are the audit trail.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { CharacteristicType } from "../app/lib/characteristics";
import { reviewRecords, reviews } from "./schema.reviews";

const now = sql`(unixepoch('subsec') * 1000)`;

export const reviewCharacteristicColumns = sqliteTable(
  "review_characteristic_columns",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type").$type<CharacteristicType>().notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [uniqueIndex("review_characteristic_columns_name_unique").on(t.reviewId, t.name)],
);

export const reviewCharacteristicEdits = sqliteTable(
  "review_characteristic_edits",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    recordId: integer("record_id")
      .notNull()
      .references(() => reviewRecords.id, { onDelete: "cascade" }),
    /** A built-in column's key ("country") or "c{id}" for an added column. */
    columnKey: text("column_key").notNull(),
    oldValue: text("old_value"),
    newValue: text("new_value"),
    userId: text("user_id").notNull(),
    /** The editor's e-mail at the time of the edit. */
    who: text("who").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("review_characteristic_edits_review_idx").on(t.reviewId, t.recordId)],
);

export type ReviewCharacteristicColumnRow = typeof reviewCharacteristicColumns.$inferSelect;
export type ReviewCharacteristicEditRow = typeof reviewCharacteristicEdits.$inferSelect;
