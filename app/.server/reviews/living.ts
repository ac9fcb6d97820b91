/**
 * Living reviews (issue 31): the searches a review imported from are re-run on a schedule (weekly
 * or monthly, by the Worker's Cron Trigger) or on demand. New records go through the review's
 * import (de-duplicated against every record already in the review by DOI → PMID → title, merges
 * reversible), each update becomes a source of its own named after the search it repeats, the
 * screening queue is re-ranked by the review's model, and the owner gets a digest by e-mail.
 * Every run is recorded in review_updates (what ran, when, what it found, what failed); at most one
 * runs per review at a time, and a scheduled slot is claimed atomically so it runs once.
 */
import { and, asc, desc, eq, inArray, isNotNull, isNull, lte } from "drizzle-orm";
import {
  reviewMembers,
  reviewRecords,
  reviews,
  reviewSources,
  reviewUpdates,
  users,
  type ReviewRow,
  type UserRow,
} from "../../../db/schema";
import type { AppServices } from "../context";
import { sendEmail } from "../email/send";
import { livingDigestEmail } from "../email/templates";
import { AppError } from "../http/errors";
import { NO_FILTERS, type SearchFilters } from "../search/filters";
import { PROVIDER_IDS, type ProviderId } from "../search/types";
import type { SearchRequest } from "../search/service";
import { runSearchImport, SEARCH_IMPORT_LIMIT } from "./imports";
import { MAX_SEARCHES_PER_UPDATE, rerunnableSource, savedSearchOf } from "./saved-search";
import { rerankReview } from "./screening";
import { addRecords, nextRunAfter, requireReview } from "./service";

/** What POST /api/reviews/{id}/update answers (and what each run records). */
export interface LivingUpdateResult {
  searchesRun: number;
  newRecords: number;
  duplicatesRemoved: number;
  failed: { source: string; reason: string }[];
  /** ISO time the update started. */
  ranAt: string;
}

export { MAX_SEARCHES_PER_UPDATE };
/** Most due reviews one Cron Trigger run updates; the rest wait for the next run. */
export const MAX_REVIEWS_PER_CRON = 5;
/** A run still marked running after this long is taken to have died (its Worker was stopped). */
export const STALE_RUN_MS = 15 * 60 * 1000;
/** How many records at the head of the re-ranked queue the digest looks at. */
export const DIGEST_TOP = 20;

/**
 * The search a stored source ran, as a request for today: a search's databases and filters
 * (relative date ranges end today); a file marked as a saved search (./saved-search.ts): its
 * database and query, without filters.
 */
export function searchRequestOf(
  source: { query: string | null; details: Record<string, unknown> },
  today: Date,
): SearchRequest | null {
  if (!source.query) return null;
  const saved = savedSearchOf(source.details);
  if (saved)
    return {
      query: source.query,
      page: 1,
      limit: SEARCH_IMPORT_LIMIT,
      providers: [saved.database],
      filters: { ...NO_FILTERS },
    };
  const providers = Object.keys((source.details.providers as Record<string, unknown> | undefined) ?? {}).filter(
    (p): p is ProviderId => (PROVIDER_IDS as readonly string[]).includes(p),
  );
  if (providers.length === 0) return null;
  const stored = (source.details.filters as Partial<SearchFilters> | undefined) ?? {};
  const filters: SearchFilters = { ...NO_FILTERS, ...stored };
  if (filters.dateRange !== "any" && filters.dateRange !== "custom") filters.dateTo = today.toISOString().slice(0, 10);
  return { query: source.query, page: 1, limit: SEARCH_IMPORT_LIMIT, providers, filters };
}

function reasonOf(error: unknown): string {
  if (error instanceof AppError) return error.message;
  return "The search could not be run.";
}

/**
 * Runs one update of a review: re-runs each of its original searches and imported files marked as
 * saved searches (at most MAX_SEARCHES_PER_UPDATE; updates' own sources are never re-run), adds what they return as one new
 * source per search (de-duplicated against the whole review), re-ranks the screening queue and
 * sends the owner a digest when there is something new. A database that fails is listed in
 * `failed`, and the other searches still run.
 *
 * @throws AppError 409 UPDATE_RUNNING while another update of the review runs; 400 NO_SEARCHES when
 *   the review has no search to re-run.
 */
export async function runLivingUpdate(
  app: AppServices,
  {
    review,
    owner,
    trigger,
    now = new Date(),
  }: { review: ReviewRow; owner: UserRow; trigger: "schedule" | "manual"; now?: Date },
): Promise<LivingUpdateResult> {
  const sources = await app.db
    .select()
    .from(reviewSources)
    .where(and(eq(reviewSources.reviewId, review.id), rerunnableSource))
    .orderBy(asc(reviewSources.createdAt))
    .limit(MAX_SEARCHES_PER_UPDATE);
  if (sources.length === 0) {
    throw new AppError(
      "NO_SEARCHES",
      "This review has no search to re-run: import records from a search, or mark an imported file as a saved search, first.",
      400,
    );
  }
  await app.db
    .update(reviewUpdates)
    .set({
      status: "failed",
      finishedAt: now.getTime(),
      failed: [{ source: "update", reason: "The update stopped before it finished." }],
    })
    .where(
      and(
        eq(reviewUpdates.reviewId, review.id),
        eq(reviewUpdates.status, "running"),
        lte(reviewUpdates.startedAt, now.getTime() - STALE_RUN_MS),
      ),
    );
  const updateId = crypto.randomUUID();
  try {
    await app.db
      .insert(reviewUpdates)
      .values({ id: updateId, reviewId: review.id, userId: review.userId, trigger, startedAt: now.getTime() });
  } catch (error) {
    if (!/UNIQUE/i.test(String((error as { cause?: unknown }).cause ?? error))) throw error;
    throw new AppError("UPDATE_RUNNING", "An update of this review is already running.", 409);
  }
  const result: LivingUpdateResult = {
    searchesRun: 0,
    newRecords: 0,
    duplicatesRemoved: 0,
    failed: [],
    ranAt: now.toISOString(),
  };
  const newSourceIds: string[] = [];
  try {
    const date = now.toISOString().slice(0, 10);
    for (const source of sources) {
      const request = searchRequestOf(source, now);
      if (!request) {
        result.failed.push({ source: source.name, reason: "The stored search has no query or database to re-run." });
        continue;
      }
      result.searchesRun += 1;
      try {
        const found = await runSearchImport(app, owner, request, { fresh: true });
        for (const f of found.failures) result.failed.push({ source: f.source, reason: f.reason });
        if (found.records.length === 0) continue;
        const current = (await app.db.select().from(reviews).where(eq(reviews.id, review.id)).limit(1))[0] ?? review;
        const added = await addRecords(app, {
          user: owner,
          review: current,
          source: {
            kind: "search",
            name: `${source.name} (update ${date})`,
            query: request.query,
            details: { ...found.details, updateOf: source.id, updateId },
          },
          records: found.records,
        });
        newSourceIds.push(added.sourceId);
        result.newRecords += added.imported;
        result.duplicatesRemoved += added.duplicatesRemoved;
      } catch (error) {
        result.failed.push({ source: source.name, reason: reasonOf(error) });
      }
    }
    const digestSent =
      result.newRecords > 0 ? await sendDigest(app, { review, owner, result, newSourceIds, updateId }) : false;
    await app.db
      .update(reviewUpdates)
      .set({
        status: "done",
        searchesRun: result.searchesRun,
        newRecords: result.newRecords,
        duplicatesRemoved: result.duplicatesRemoved,
        failed: result.failed,
        digestSent,
        finishedAt: Date.now(),
      })
      .where(eq(reviewUpdates.id, updateId));
    return result;
  } catch (error) {
    await app.db
      .update(reviewUpdates)
      .set({
        status: "failed",
        failed: [...result.failed, { source: "update", reason: reasonOf(error) }],
        finishedAt: Date.now(),
      })
      .where(eq(reviewUpdates.id, updateId));
    throw error;
  }
}

/**
 * Re-ranks the queue and e-mails the owner and every member (reviewer or viewer, review_members)
 * how many new records came in and how many rank near the top: one message per person, once per
 * update — the update's `digest_sent` is claimed (compare-and-set) before anything is sent, so a
 * second call for the same update sends nothing. A refused message is logged and the others still
 * go. Returns whether any message was delivered.
 */
async function sendDigest(
  app: AppServices,
  {
    review,
    owner,
    result,
    newSourceIds,
    updateId,
  }: { review: ReviewRow; owner: UserRow; result: LivingUpdateResult; newSourceIds: string[]; updateId: string },
): Promise<boolean> {
  const claimed = await app.db
    .update(reviewUpdates)
    .set({ digestSent: true })
    .where(and(eq(reviewUpdates.id, updateId), eq(reviewUpdates.digestSent, false)))
    .returning({ id: reviewUpdates.id });
  if (claimed.length === 0) return false;
  let nearTop = 0;
  try {
    const current = (await app.db.select().from(reviews).where(eq(reviews.id, review.id)).limit(1))[0] ?? review;
    const ranking = await rerankReview(app, current);
    const head = new Set(ranking.ranked.slice(0, DIGEST_TOP).map(([id]) => id));
    const fresh = await app.db
      .select({ id: reviewRecords.id })
      .from(reviewRecords)
      .where(
        and(
          eq(reviewRecords.reviewId, review.id),
          isNull(reviewRecords.duplicateOf),
          inArray(reviewRecords.sourceId, newSourceIds),
        ),
      );
    nearTop = fresh.filter((r) => head.has(r.id)).length;
  } catch (error) {
    console.error("living review: re-ranking for the digest failed", error);
  }
  const link = `${app.env.APP_URL ?? ""}/reviews/${review.id}?tab=screening`;
  const members = await app.db
    .select({ email: users.email })
    .from(reviewMembers)
    .innerJoin(users, eq(users.id, reviewMembers.userId))
    .where(eq(reviewMembers.reviewId, review.id))
    .orderBy(asc(reviewMembers.createdAt));
  const recipients = [
    ...new Map([owner.email, ...members.map((m) => m.email)].map((e) => [e.toLowerCase(), e])).values(),
  ];
  let sent = false;
  for (const to of recipients) {
    const message = livingDigestEmail(to, {
      reviewTitle: review.title,
      newRecords: result.newRecords,
      nearTop,
      top: DIGEST_TOP,
      failed: result.failed.length,
      link,
    });
    try {
      const delivery = await sendEmail({ fetch: app.fetch, env: app.env }, message);
      if (!delivery.sent) console.info(`living review digest for ${to} (no e-mail provider): ${message.subject}`);
      sent ||= delivery.sent;
    } catch (error) {
      console.error(`living review digest for ${to} was refused`, error);
    }
  }
  if (!sent) await app.db.update(reviewUpdates).set({ digestSent: false }).where(eq(reviewUpdates.id, updateId));
  return sent;
}

/**
 * POST /api/reviews/{id}/update: one update now, for the review's owner.
 * @throws AppError 404 REVIEW_NOT_FOUND, 409 UPDATE_RUNNING, 400 NO_SEARCHES.
 */
export async function updateReviewNow(
  app: AppServices,
  { user, reviewId }: { user: UserRow; reviewId: string | undefined },
): Promise<LivingUpdateResult> {
  const review = await requireReview(app, { userId: user.id, reviewId }, "owner");
  return runLivingUpdate(app, { review, owner: user, trigger: "manual" });
}

/** The review's updates, newest first (at most 20). */
export async function listLivingUpdates(app: Pick<AppServices, "db">, reviewId: string) {
  const rows = await app.db
    .select()
    .from(reviewUpdates)
    .where(eq(reviewUpdates.reviewId, reviewId))
    .orderBy(desc(reviewUpdates.startedAt))
    .limit(20);
  return rows.map((r) => ({
    id: r.id,
    trigger: r.trigger,
    status: r.status,
    searchesRun: r.searchesRun,
    newRecords: r.newRecords,
    duplicatesRemoved: r.duplicatesRemoved,
    failed: r.failed,
    digestSent: r.digestSent,
    ranAt: new Date(r.startedAt).toISOString(),
    finishedAt: r.finishedAt === null ? null : new Date(r.finishedAt).toISOString(),
  }));
}

/**
 * The Cron Trigger's part: updates the living reviews that are due (at most MAX_REVIEWS_PER_CRON
 * per run, the most overdue first). Each due slot is claimed by moving the review's next run
 * forward only if it still holds the value read (compare-and-set), so two overlapping runs never
 * update a review twice for one slot. A failing review is recorded and the others still run.
 */
export async function runDueLivingReviews(
  app: AppServices,
  { now }: { now: number },
): Promise<{ due: number; updated: number; failed: number }> {
  const due = await app.db
    .select()
    .from(reviews)
    .where(and(isNotNull(reviews.livingSchedule), lte(reviews.livingNextRunAt, now)))
    .orderBy(asc(reviews.livingNextRunAt))
    .limit(MAX_REVIEWS_PER_CRON);
  let updated = 0;
  let failed = 0;
  for (const review of due) {
    const claimed = await app.db
      .update(reviews)
      .set({ livingNextRunAt: nextRunAfter(review.livingSchedule!, now) })
      .where(and(eq(reviews.id, review.id), eq(reviews.livingNextRunAt, review.livingNextRunAt!)))
      .returning({ id: reviews.id });
    if (claimed.length === 0) continue;
    const [owner] = await app.db.select().from(users).where(eq(users.id, review.userId)).limit(1);
    if (!owner) continue;
    try {
      await runLivingUpdate(app, { review, owner, trigger: "schedule", now: new Date(now) });
      updated += 1;
    } catch (error) {
      failed += 1;
      console.error(`living review ${review.id}: update failed`, error);
    }
  }
  return { due: due.length, updated, failed };
}
