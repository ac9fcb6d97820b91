/**
 * A review's activity log (issue 30 item 6): who did what when — screening votes and decisions,
 * undos, conflict resolutions, extraction corrections, submissions and consensus values, member
 * changes, imports and settings. Each entry is written by the action's own D1 batch (the same
 * transaction), so an action and its entry land together or not at all.
 */
import { and, desc, eq, lt, type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import { reviewActivity, reviewRecords, users } from "../../../db/schema";
import type { ActivityAction, ApiActivityEntry } from "~/lib/team";
import type { Database } from "../db/client";
import { requireReviewAccess } from "./access";
import type { ReviewsApp } from "./service";

/** One entry to record. `detail` holds the action's particulars (stage, decision, role, outcome, cells…). */
export interface ActivityInput {
  reviewId: string;
  userId: string | null;
  action: ActivityAction;
  recordId?: number | null;
  detail?: Record<string, unknown>;
  at?: number;
}

/**
 * The INSERT of one entry, to put into the action's own `db.batch([...])`; with `guard`, written
 * only when that SQL condition holds (evaluated in the batch, after the statements before it).
 */
export function activityInsert(db: Database, entry: ActivityInput, guard?: SQL) {
  if (!guard) return plainInsert(db, entry);
  // INSERT … SELECT lists every column in table order (id NULL: the next rowid).
  return db
    .insert(reviewActivity)
    .select(
      sql`SELECT NULL, ${entry.reviewId}, ${entry.userId}, ${entry.action}, ${entry.recordId ?? null}, ${JSON.stringify(entry.detail ?? {})}, ${entry.at ?? Date.now()} WHERE ${guard}`,
    );
}

function plainInsert(db: Database, entry: ActivityInput) {
  return db.insert(reviewActivity).values({
    reviewId: entry.reviewId,
    userId: entry.userId,
    action: entry.action,
    recordId: entry.recordId ?? null,
    detail: entry.detail ?? {},
    ...(entry.at !== undefined ? { createdAt: entry.at } : {}),
  });
}

/**
 * The INSERT of one entry as a raw D1 statement (for batches of prepared statements), written only
 * when `guard` (an SQL condition with its own bound values) holds — e.g. "the vote row exists".
 */
export function activityStatement(
  DB: D1Database,
  entry: ActivityInput,
  guard?: { sql: string; values: unknown[] },
): D1PreparedStatement {
  const values = [
    entry.reviewId,
    entry.userId,
    entry.action,
    entry.recordId ?? null,
    JSON.stringify(entry.detail ?? {}),
    entry.at ?? Date.now(),
  ];
  if (!guard) {
    return DB.prepare(
      "INSERT INTO review_activity (review_id, user_id, action, record_id, detail, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    ).bind(...values);
  }
  return DB.prepare(
    `INSERT INTO review_activity (review_id, user_id, action, record_id, detail, created_at) SELECT ?, ?, ?, ?, ?, ? WHERE ${guard.sql}`,
  ).bind(...values, ...guard.values);
}

/** GET /api/reviews/{id}/activity query: `cursor` is the id of the last entry of the previous page. */
export const ActivityQuerySchema = z.object({
  cursor: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

/**
 * The review's activity, newest first, `limit` entries before `cursor`, with each actor's e-mail
 * and each record's title. Blind dual screening: a vote by someone else carries no decision or
 * reason until the reader has voted on that record at that stage (or its two votes are cast,
 * when the conflicts queue shows them anyway) — the entry then reads only "voted".
 * @returns `{entries, nextCursor}` (`nextCursor` null on the last page).
 * @throws AppError 404 REVIEW_NOT_FOUND (members of every role may read it).
 */
export async function listActivity(
  app: ReviewsApp,
  target: { userId: string; reviewId: string | undefined },
  query: z.infer<typeof ActivityQuerySchema>,
): Promise<{ entries: ApiActivityEntry[]; nextCursor: string | null }> {
  const { review } = await requireReviewAccess(app, target, "read");
  const rows = await app.db
    .select({ entry: reviewActivity, email: users.email, title: reviewRecords.title })
    .from(reviewActivity)
    .leftJoin(users, eq(users.id, reviewActivity.userId))
    .leftJoin(reviewRecords, eq(reviewRecords.id, reviewActivity.recordId))
    .where(and(eq(reviewActivity.reviewId, review.id), ...(query.cursor ? [lt(reviewActivity.id, query.cursor)] : [])))
    .orderBy(desc(reviewActivity.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const hidden =
    review.screeningMode === "dual" && review.screeningBlind
      ? await votesHiddenFrom(
          app,
          review.id,
          target.userId,
          page.map((r) => r.entry),
        )
      : () => false;
  return {
    entries: page.map(({ entry, email, title }) => {
      const masked = (entry.action === "vote" || entry.action === "undo") && hidden(entry);
      const detail = masked ? { stage: entry.detail.stage } : entry.detail;
      return {
        id: entry.id,
        userId: entry.userId,
        email: email ?? null,
        action: entry.action as ActivityAction,
        recordId: entry.recordId,
        recordTitle: title ?? null,
        detail,
        createdAt: new Date(entry.createdAt).toISOString(),
      };
    }),
    nextCursor: rows.length > query.limit ? String(page[page.length - 1]!.entry.id) : null,
  };
}

/** Which vote entries the reader may not see the decision of: another's vote on a record and stage the reader has not voted on, with fewer than two voters. */
async function votesHiddenFrom(
  app: ReviewsApp,
  reviewId: string,
  readerId: string,
  entries: (typeof reviewActivity.$inferSelect)[],
): Promise<(entry: typeof reviewActivity.$inferSelect) => boolean> {
  const recordIds = [
    ...new Set(
      entries
        .filter((e) => (e.action === "vote" || e.action === "undo") && e.recordId !== null)
        .map((e) => e.recordId!),
    ),
  ];
  const voters = new Map<string, Set<string>>();
  if (recordIds.length) {
    const { results } = await app.bindings.DB.prepare(
      `SELECT DISTINCT record_id AS recordId, stage, user_id AS userId FROM review_decisions WHERE review_id = ?1 AND record_id IN (SELECT value FROM json_each(?2))`,
    )
      .bind(reviewId, JSON.stringify(recordIds))
      .all<{ recordId: number; stage: string; userId: string }>();
    for (const r of results) {
      const key = `${r.recordId}|${r.stage}`;
      voters.set(key, (voters.get(key) ?? new Set()).add(r.userId));
    }
  }
  return (entry) => {
    if (entry.userId === readerId) return false;
    const set = voters.get(`${entry.recordId}|${String(entry.detail.stage)}`);
    return !set || (!set.has(readerId) && set.size < 2);
  };
}
