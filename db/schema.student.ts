/**
 * D1 tables for the student portal and the admin statistics. Re-exported by db/schema.ts.
 * student_assignments and study_guides hold per-user data: app/.server/library/account.ts lists
 * them for the account data download and the account deletion.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./schema";

const now = sql`(unixepoch('subsec') * 1000)`;

/**
 * When each user was last seen with a valid session (epoch ms), written at most once an hour
 * per user; the admin page's 'Active Users (last 30 days)' counts it (SPEC §2, §9).
 */
export const userActivity = sqliteTable(
  "user_activity",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    lastSeenAt: integer("last_seen_at", { mode: "number" }).notNull(),
  },
  (t) => [index("user_activity_last_seen_idx").on(t.lastSeenAt)],
);

/** SPEC §3 Student assignment: id, title, dueDate (YYYY-MM-DD) and the student's notes. */
export const studentAssignments = sqliteTable(
  "student_assignments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    dueDate: text("due_date").notNull(),
    notes: text("notes").notNull().default(""),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
    updatedAt: integer("updated_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("student_assignments_user_due_idx").on(t.userId, t.dueDate)],
);

/**
 * A study guide: a saved report sent to the student portal (SPEC §4 Reports), optionally
 * transferred to one of the student's assignments. `htmlContent` is the report's sanitized HTML.
 */
export const studyGuides = sqliteTable(
  "study_guides",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    reportType: text("report_type").notNull(),
    htmlContent: text("html_content").notNull(),
    assignmentId: integer("assignment_id").references(() => studentAssignments.id, { onDelete: "set null" }),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("study_guides_user_idx").on(t.userId, t.createdAt)],
);
