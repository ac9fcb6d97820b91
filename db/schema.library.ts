/**
 * D1 tables for the library area. Re-exported by db/schema.ts (drizzle-kit reads that file).
 * Every table here holds per-user data: app/.server/library/account.ts lists it for the account
 * data download and the account deletion.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { studies, users } from "./schema";

const now = sql`(unixepoch('subsec') * 1000)`;

/** SPEC §3 Bookmark item: a user's bookmark of a stored study (one per user and study). */
export const bookmarks = sqliteTable(
  "bookmarks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    studyId: integer("study_id")
      .notNull()
      .references(() => studies.id, { onDelete: "cascade" }),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    uniqueIndex("bookmarks_user_study_unique").on(t.userId, t.studyId),
    index("bookmarks_user_idx").on(t.userId, t.createdAt),
  ],
);

/**
 * SPEC §3 Saved report: name, type (meta-analysis | export), the studies it covers, its data
 * (with the optional description) and its HTML, sanitized on the server before it is stored.
 */
export const savedReports = sqliteTable(
  "saved_reports",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type", { enum: ["meta-analysis", "export"] }).notNull(),
    studyIds: text("study_ids", { mode: "json" }).$type<string[]>().notNull(),
    reportData: text("report_data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    htmlContent: text("html_content"),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("saved_reports_user_idx").on(t.userId, t.createdAt)],
);

export type BookmarkRow = typeof bookmarks.$inferSelect;
export type SavedReportRow = typeof savedReports.$inferSelect;
