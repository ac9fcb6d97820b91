/**
 * Imported files marked as saved searches (issue 31, living reviews): a RIS / PubMed / CSV export
 * a reviewer imported from one of MetaMind's databases can carry the database and the query that
 * produced it, at import time or afterwards. Such a file is then re-run by every living update
 * like an `import-search` source (see ./living.ts): on the review's schedule and on demand.
 *
 * Stored on the file's review_sources row, with no schema change: `query` holds the query (so
 * PRISMA item 7 states it) and `details.savedSearch` = {database, markedAt, markedBy}.
 */
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { reviewSources, type UserRow } from "../../../db/schema";
import type { ApiReviewSource } from "~/lib/reviews";
import { AppError } from "../http/errors";
import { MAX_QUERY_LENGTH } from "../search/service";
import { PROVIDER_IDS, type ProviderId } from "../search/types";
import { listSources, requireReview, type ReviewsApp } from "./service";

/** Most searches one living update re-runs (the review's first ones, oldest first). */
export const MAX_SEARCHES_PER_UPDATE = 10;

/** What a marked file stores in `details.savedSearch`. */
export interface SavedSearchMark {
  database: ProviderId;
  /** ISO time it was marked. */
  markedAt: string;
  /** The user who marked it. */
  markedBy: string;
}

/** The database and query of a saved search, as a reviewer gives them. */
export const SavedSearchSchema = z
  .object({
    database: z.enum(PROVIDER_IDS, { error: `database must be one of ${PROVIDER_IDS.join(", ")}` }),
    query: z
      .string({ error: "query is required" })
      .transform((v) => v.replace(/\s+/g, " ").trim())
      .pipe(
        z
          .string()
          .min(1, "query is required")
          .max(MAX_QUERY_LENGTH, `query must be at most ${MAX_QUERY_LENGTH} characters`),
      ),
  })
  .strict();

export type SavedSearchInput = z.infer<typeof SavedSearchSchema>;

/** PATCH /api/reviews/{id}/sources/{sourceId} body: a saved search, or null to unmark. */
export const SourcePatchSchema = z.object({ savedSearch: SavedSearchSchema.nullable() }).strict();

/**
 * Sources a living update re-runs: searches run from MetaMind (not an update's own source) and
 * files marked as saved searches.
 */
export const rerunnableSource = sql`((${reviewSources.kind} = 'search' and json_extract(${reviewSources.details}, '$.updateOf') is null) or (${reviewSources.kind} = 'file' and json_extract(${reviewSources.details}, '$.savedSearch.database') is not null))`;

/**
 * rerunnableSource as raw SQL over the review_sources table named (or aliased) `t`, for raw D1
 * statements: the atomic cap below counts with it inside the write.
 */
export function rerunnableSql(t: string): string {
  return `((${t}.kind = 'search' and json_extract(${t}.details, '$.updateOf') is null) or (${t}.kind = 'file' and json_extract(${t}.details, '$.savedSearch.database') is not null))`;
}

/**
 * The SQL condition (anonymous `?` parameters, with their values) that the review still has room
 * for one more saved search: fewer than {@link MAX_SEARCHES_PER_UPDATE} re-runnable sources besides
 * `except`. Written into the INSERT / UPDATE that creates the saved search, so two concurrent
 * creates cannot both pass it (ADR 0009's conditional-write pattern; a read-then-write check could).
 */
export function searchRoomGuard(reviewId: string, except?: string): { sql: string; values: unknown[] } {
  return {
    sql: `(SELECT count(*) FROM review_sources s WHERE s.review_id = ? AND s.id <> ? AND ${rerunnableSql("s")}) < ?`,
    values: [reviewId, except ?? "", MAX_SEARCHES_PER_UPDATE],
  };
}

/** 409 TOO_MANY_SEARCHES, with the review's count of re-runnable searches when known. */
export function tooManySearches(count: number = MAX_SEARCHES_PER_UPDATE): AppError {
  return new AppError(
    "TOO_MANY_SEARCHES",
    `An update re-runs at most ${MAX_SEARCHES_PER_UPDATE} searches, and this review already has ${count}.`,
    409,
  );
}

/** The saved-search mark of a source's details, or null (unknown databases are ignored). */
export function savedSearchOf(details: Record<string, unknown>): SavedSearchMark | null {
  const mark = details.savedSearch as Partial<SavedSearchMark> | undefined;
  if (!mark || typeof mark !== "object" || !(PROVIDER_IDS as readonly string[]).includes(mark.database ?? ""))
    return null;
  return { database: mark.database!, markedAt: String(mark.markedAt ?? ""), markedBy: String(mark.markedBy ?? "") };
}

/**
 * The saved search given with a file import (multipart fields `searchDatabase` and `searchQuery`),
 * or null when neither is given.
 * @throws AppError 400 INVALID_SAVED_SEARCH when only one is given or either is invalid.
 */
export function savedSearchFromForm(form: FormData): SavedSearchInput | null {
  const database = form.get("searchDatabase");
  const query = form.get("searchQuery");
  const given = (v: FormDataEntryValue | null) => typeof v === "string" && v.trim() !== "";
  if (!given(database) && !given(query)) return null;
  if (!given(database) || !given(query)) {
    throw new AppError(
      "INVALID_SAVED_SEARCH",
      "To re-run this file as a saved search, give both the database (searchDatabase) and the query (searchQuery).",
      400,
    );
  }
  const parsed = SavedSearchSchema.safeParse({ database: String(database).trim().toLowerCase(), query });
  if (!parsed.success) throw new AppError("INVALID_SAVED_SEARCH", parsed.error.issues[0]!.message, 400);
  return parsed.data;
}

/**
 * Refuses a new saved search when the review already has {@link MAX_SEARCHES_PER_UPDATE}
 * re-runnable searches (an update re-runs at most that many). `except` is a source not counted
 * (the one being re-marked). An early answer before the work of an import; the cap itself holds
 * through searchRoomGuard, checked inside the write.
 * @throws AppError 409 TOO_MANY_SEARCHES.
 */
export async function assertSearchRoom(app: Pick<ReviewsApp, "db">, reviewId: string, except?: string): Promise<void> {
  const [row] = await app.db
    .select({ n: sql<number>`count(*)` })
    .from(reviewSources)
    .where(
      and(
        eq(reviewSources.reviewId, reviewId),
        rerunnableSource,
        except ? sql`${reviewSources.id} <> ${except}` : undefined,
      ),
    );
  if ((row?.n ?? 0) >= MAX_SEARCHES_PER_UPDATE) throw tooManySearches(row!.n);
}

/** The details and query a file source stores when imported or marked as a saved search. */
export function markedSource(
  details: Record<string, unknown>,
  search: SavedSearchInput,
  user: UserRow,
  now: Date,
): { query: string; details: Record<string, unknown> } {
  const savedSearch: SavedSearchMark = { database: search.database, markedAt: now.toISOString(), markedBy: user.id };
  return { query: search.query, details: { ...details, savedSearch } };
}

/**
 * PATCH /api/reviews/{id}/sources/{sourceId}: marks an imported file as a saved search (the
 * database and query that produced it), changes the mark, or removes it (`savedSearch: null`).
 * Only the review's owner (who imports and runs updates). Records already imported stay; updates
 * already run stay in the history and the PRISMA flow.
 *
 * @returns the source as GET /api/reviews/{id} lists it.
 * @throws AppError 404 REVIEW_NOT_FOUND / SOURCE_NOT_FOUND; 403 FORBIDDEN_ROLE (a member);
 *   409 NOT_A_FILE_IMPORT (a search, an update's source or uploaded PDFs), 409 TOO_MANY_SEARCHES.
 */
export async function markSourceSavedSearch(
  app: ReviewsApp,
  {
    user,
    reviewId,
    sourceId,
    savedSearch,
  }: {
    user: UserRow;
    reviewId: string | undefined;
    sourceId: string | undefined;
    savedSearch: SavedSearchInput | null;
  },
  now: Date = new Date(),
): Promise<ApiReviewSource> {
  const review = await requireReview(app, { userId: user.id, reviewId }, "owner");
  const [source] =
    sourceId && sourceId.length <= 64
      ? await app.db
          .select()
          .from(reviewSources)
          .where(and(eq(reviewSources.id, sourceId), eq(reviewSources.reviewId, review.id)))
          .limit(1)
      : [];
  if (!source) throw new AppError("SOURCE_NOT_FOUND", "This review has no such source.", 404);
  if (source.kind !== "file") {
    const what =
      source.kind === "search"
        ? "It is a search: living updates already re-run it."
        : "Uploaded PDFs come from no search.";
    throw new AppError("NOT_A_FILE_IMPORT", `Only an imported file can be marked as a saved search. ${what}`, 409);
  }
  if (savedSearch) {
    await assertSearchRoom(app, review.id, source.id);
    const next = markedSource(source.details, savedSearch, user, now);
    const guard = searchRoomGuard(review.id, source.id);
    const written = await app.bindings.DB.prepare(
      `UPDATE review_sources SET query = ?, details = ? WHERE id = ? AND ${guard.sql}`,
    )
      .bind(next.query, JSON.stringify(next.details), source.id, ...guard.values)
      .run();
    if (written.meta.changes === 0) throw tooManySearches();
  } else {
    const rest = { ...source.details };
    delete rest.savedSearch;
    await app.db.update(reviewSources).set({ query: null, details: rest }).where(eq(reviewSources.id, source.id));
  }
  return (await listSources(app, review.id)).find((s) => s.id === source.id)!;
}
