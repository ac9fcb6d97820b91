/**
 * Title/abstract and full-text screening of a review (issue 13): decisions with their history and
 * undo, progress, and the prioritised next record.
 *
 * Ranking (docs/decisions/0016-review-screening-ranking.md): after every title/abstract decision
 * (and its undo) the remaining records are re-ranked by the active-learning core
 * (app/lib/screening) and the order is stored in D1 (review_rankings, one row per review, tagged
 * with the review's version). GET …/screening/next then only reads that row and the first few
 * candidate records — no model work on the path that shows the next record. The TF-IDF corpus of
 * a review is kept per isolate (keyed by the review's record set), so retraining does not
 * re-tokenise the abstracts on every decision.
 */
import { and, asc, desc, eq, gt, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { reviewDecisions, reviewRankings, reviewRecords, reviews, type ReviewRow } from "../../../db/schema";
import { corpusBuilder, rankScreening, type ScreeningCorpus, type ScreeningLabel, type StoppingCriterion } from "~/lib/screening";
import type { ScreeningNext, ScreeningProgress, ScreeningStage, ScreeningSuggestion } from "~/lib/reviews";
import { AppError } from "../http/errors";
import { requireRecord, requireReview, type ReviewsApp } from "./service";

/** Records whose matched terms are stored with the ranking (the rest keep only their score). */
const TERMS_KEPT = 100;
/**
 * Records of the ranking stored per review: its head, not the whole order. The order is
 * recomputed after every decision, so the next record always comes from the head; should a
 * reviewer outpace the retraining by this many decisions, `next` ranks again before answering.
 * Keeps the stored row, its JSON parse on every `next` and the retraining's sort independent of
 * the review's size (issue 27: 20,000 records).
 */
const RANKING_HEAD = 1000;

/** POST …/records/{recordId}/decision body. */
export const DecisionSchema = z.object({
  stage: z.enum(["title_abstract", "full_text"], { error: "stage must be 'title_abstract' or 'full_text'" }),
  decision: z.enum(["include", "exclude", "maybe"], { error: "decision must be 'include', 'exclude' or 'maybe'" }),
  reason: z.string().trim().max(300).optional().nullable(),
});

/** POST …/screening/undo body. */
export const UndoSchema = z.object({ stage: z.enum(["title_abstract", "full_text"]).default("title_abstract") });

interface CachedCorpus {
  key: string;
  corpus: ScreeningCorpus;
}
/** Per-isolate corpus cache: a few reviews, keyed by review id; each entry valid for one record set. */
const corpusCache = new Map<string, CachedCorpus>();
const CORPUS_CACHE_SIZE = 8;

function priorOf(review: ReviewRow) {
  const q = review.question;
  const question = [q.text, q.population, q.intervention, q.comparator, q.outcomes].filter(Boolean).join(". ");
  return { question: question || review.title, criteria: review.inclusionCriteria };
}

/** Records whose texts are read per query while building a corpus. */
const TEXT_PAGE = 1000;
/** Records tokenised between two yields to the event loop. */
const TOKENISE_SLICE = 250;

/**
 * The review's corpus, built from its unique records read TEXT_PAGE at a time in id order (the
 * order buildScreeningCorpus would get), so only one page of titles and abstracts is in memory
 * beside the term counts (issue 27: bounded memory at 50,000 records); it yields to the event loop
 * every TOKENISE_SLICE records, so requests arriving meanwhile are not held up by the whole build.
 */
async function buildCorpusPaged(app: ReviewsApp, reviewId: string): Promise<ScreeningCorpus> {
  const builder = corpusBuilder();
  let after = 0;
  for (;;) {
    const page = await app.db
      .select({ id: reviewRecords.id, title: reviewRecords.title, abstract: reviewRecords.abstract, keywords: reviewRecords.keywords })
      .from(reviewRecords)
      .where(and(eq(reviewRecords.reviewId, reviewId), isNull(reviewRecords.duplicateOf), gt(reviewRecords.id, after)))
      .orderBy(asc(reviewRecords.id))
      .limit(TEXT_PAGE);
    for (let i = 0; i < page.length; i++) {
      if (i > 0 && i % TOKENISE_SLICE === 0) await new Promise((resolve) => setTimeout(resolve, 0));
      builder.add({ ...page[i], id: String(page[i].id) });
    }
    if (page.length < TEXT_PAGE) return builder.finish();
    after = page.at(-1)!.id;
  }
}

/**
 * Re-ranks the review's unscreened records and stores the head of the order (RANKING_HEAD
 * records, with scores and, for the first records, the matched terms) and the stopping criterion
 * for the review's current version. Records marked 'maybe' count as
 * screened but train nothing; only include/exclude are labels.
 * @returns the stored ranking plus the time spent in the model (ms).
 */
export async function rerankReview(app: ReviewsApp, review: ReviewRow): Promise<StoredRanking & { modelMs: number }> {
  // One batch (one transaction): the version tags exactly the decisions read with it.
  const [[versionRow], rows] = await app.db.batch([
    app.db.select({ version: reviews.version }).from(reviews).where(eq(reviews.id, review.id)),
    app.db
      .select({ id: reviewRecords.id, taDecision: reviewRecords.taDecision, taDecidedAt: reviewRecords.taDecidedAt })
      .from(reviewRecords)
      .where(and(eq(reviewRecords.reviewId, review.id), isNull(reviewRecords.duplicateOf)))
      .orderBy(asc(reviewRecords.id)),
  ]);
  const version = versionRow?.version ?? review.version;
  const key = `${rows.length}:${rows.at(-1)?.id ?? 0}:${rows.reduce((h, r) => (h * 31 + r.id) % 2_147_483_647, 7)}`;
  let cached = corpusCache.get(review.id);
  if (!cached || cached.key !== key) {
    cached = { key, corpus: await buildCorpusPaged(app, review.id) };
    corpusCache.delete(review.id);
    corpusCache.set(review.id, cached);
    while (corpusCache.size > CORPUS_CACHE_SIZE) corpusCache.delete(corpusCache.keys().next().value!);
  }
  const labels = new Map<string, ScreeningLabel>();
  const screened = new Set<number>();
  const decided = rows.filter((r) => r.taDecision !== null).sort((a, b) => (a.taDecidedAt ?? 0) - (b.taDecidedAt ?? 0) || a.id - b.id);
  for (const r of decided) {
    screened.add(r.id);
    if (r.taDecision === "include" || r.taDecision === "exclude") labels.set(String(r.id), r.taDecision);
  }
  const started = performance.now();
  const result = rankScreening(
    cached.corpus,
    labels,
    priorOf(review),
    decided.filter((r) => r.taDecision !== "maybe").map((r) => String(r.id)),
    { limit: RANKING_HEAD + screened.size - labels.size },
  );
  const modelMs = performance.now() - started;
  const ranked: [number, number, string[]][] = [];
  for (const r of result.ranked) {
    const id = Number(r.id);
    if (screened.has(id)) continue;
    ranked.push([id, Math.round(r.score * 1e6) / 1e6, ranked.length < TERMS_KEPT ? r.terms : []]);
  }
  const stored: StoredRanking = {
    version,
    mode: result.mode,
    ranked,
    estimatedRelevantRemaining: result.estimatedRelevantRemaining,
    stopping: result.stopping,
  };
  await app.db
    .insert(reviewRankings)
    .values({ reviewId: review.id, userId: review.userId, ...stored })
    .onConflictDoUpdate({
      target: reviewRankings.reviewId,
      set: {
        version: stored.version,
        mode: stored.mode,
        ranked: stored.ranked,
        estimatedRelevantRemaining: stored.estimatedRelevantRemaining,
        stopping: stored.stopping,
        computedAt: Date.now(),
      },
      setWhere: sql`${reviewRankings.version} <= ${stored.version}`,
    });
  return { ...stored, modelMs };
}

interface StoredRanking {
  version: number;
  mode: string;
  ranked: [number, number, string[]][];
  estimatedRelevantRemaining: number | null;
  stopping: StoppingCriterion;
}

/** Title/abstract progress: unique records, those with a decision, those included. */
async function progressOf(app: ReviewsApp, reviewId: string, stage: ScreeningStage): Promise<ScreeningProgress> {
  const base = and(eq(reviewRecords.reviewId, reviewId), isNull(reviewRecords.duplicateOf));
  if (stage === "full_text") {
    const [row] = await app.db
      .select({
        total: sql<number>`count(*)`,
        screened: sql<number>`count(*) filter (where ${reviewRecords.ftDecision} is not null)`,
        included: sql<number>`count(*) filter (where ${reviewRecords.ftDecision} = 'include')`,
      })
      .from(reviewRecords)
      .where(and(base, eq(reviewRecords.taDecision, "include")));
    return { screened: row!.screened, total: row!.total, included: row!.included };
  }
  const [row] = await app.db
    .select({
      total: sql<number>`count(*)`,
      screened: sql<number>`count(*) filter (where ${reviewRecords.taDecision} is not null)`,
      included: sql<number>`count(*) filter (where ${reviewRecords.taDecision} = 'include')`,
    })
    .from(reviewRecords)
    .where(base);
  return { screened: row!.screened, total: row!.total, included: row!.included };
}

/**
 * The next record to screen at title/abstract: the best-ranked unscreened record of the stored
 * ranking (computed here only when the review has none, or none with an unscreened record), with its score and matched terms,
 * the progress, the stopping aids (the stopping criterion stored with the ranking — recall ≥ 95 %
 * with 95 % confidence, and the recall bound —, the legacy estimate of relevant records remaining,
 * the current run of consecutive exclusions) and the mode of the ranking. `record` is null when every record has a
 * decision. @throws AppError 404 REVIEW_NOT_FOUND.
 */
export async function nextForScreening(app: ReviewsApp, { userId, reviewId }: { userId: string; reviewId: string | undefined }): Promise<ScreeningNext> {
  const review = await requireReview(app, { userId, reviewId });
  return nextOf(app, review);
}

async function nextOf(app: ReviewsApp, review: ReviewRow, allowRerank = true): Promise<ScreeningNext> {
  const DB = app.bindings.DB;
  // One round trip: progress, the run of exclusions, the stored ranking's summary and the
  // best-ranked record that is still unscreened (walking the stored order in SQL).
  const [progressRes, rankingRes, candidateRes] = await DB.batch<Record<string, unknown>>([
    // Progress and the run of exclusions since the latest include: two passes over the records.
    DB.prepare(
      `WITH counts AS (
         SELECT count(*) AS total, count(ta_decision) AS screened, count(*) FILTER (WHERE ta_decision = 'include') AS included,
                coalesce(max(ta_decided_at) FILTER (WHERE ta_decision = 'include'), 0) AS last_include
         FROM review_records WHERE review_id = ?1 AND duplicate_of IS NULL)
       SELECT total, screened, included,
              (SELECT count(*) FROM review_records WHERE review_id = ?1 AND duplicate_of IS NULL AND ta_decision = 'exclude'
               AND ta_decided_at > counts.last_include) AS run
       FROM counts`,
    ).bind(review.id),
    DB.prepare("SELECT mode, estimated_relevant_remaining AS estimate, stopping FROM review_rankings WHERE review_id = ?1").bind(review.id),
    // The stored order is unpacked once (MATERIALIZED): joined directly, D1's planner walks the
    // review's records and re-parses the whole JSON order for each of them (seconds at 3,000).
    // Only ids are sorted; the chosen record's full row is read once.
    DB.prepare(
      `WITH ranked AS MATERIALIZED (
         SELECT j.key AS position, json_extract(j.value, '$[0]') AS record_id,
                json_extract(j.value, '$[1]') AS score, json_extract(j.value, '$[2]') AS terms
         FROM review_rankings k, json_each(k.ranked) j WHERE k.review_id = ?1),
       best AS (
         SELECT ranked.record_id, ranked.score, ranked.terms FROM ranked
         JOIN review_records x ON x.id = ranked.record_id
         WHERE x.review_id = ?1 AND x.duplicate_of IS NULL AND x.ta_decision IS NULL
         ORDER BY ranked.position LIMIT 1)
       SELECT r.id, r.title, r.abstract, r.doi, r.year, r.journal, r.authors, r.suggestion, best.score, best.terms
       FROM best JOIN review_records r ON r.id = best.record_id`,
    ).bind(review.id),
  ]);
  const counts = progressRes!.results[0] as { total: number; screened: number; included: number; run: number };
  const progress = { screened: counts.screened, total: counts.total, included: counts.included };
  const consecutiveExclusions = Number(counts.run);
  const ranking = rankingRes!.results[0] as { mode: string; estimate: number | null; stopping: string | null } | undefined;
  const stopping = ranking?.stopping ? (JSON.parse(ranking.stopping) as StoppingCriterion) : null;
  const hit = candidateRes!.results[0] as
    | { id: number; title: string; abstract: string | null; doi: string | null; year: number | null; journal: string | null; authors: string; suggestion: string | null; score: number; terms: string }
    | undefined;
  if (hit && ranking) {
    return {
      record: {
        id: hit.id,
        title: hit.title,
        abstract: hit.abstract,
        doi: hit.doi,
        year: hit.year,
        journal: hit.journal,
        authors: JSON.parse(hit.authors) as string[],
        suggestion: hit.suggestion ? (JSON.parse(hit.suggestion) as ScreeningSuggestion) : null,
        score: hit.score,
        terms: JSON.parse(hit.terms) as string[],
      },
      progress,
      consecutiveExclusions,
      mode: ranking.mode === "active" ? "active" : "prior",
      estimatedRelevantRemaining: ranking.estimate,
      stopping,
    };
  }
  if (progress.screened < progress.total && allowRerank) {
    // No stored ranking yet (new review, import, undone merge) or a stale one: rank now.
    await rerankReview(app, review);
    return nextOf(app, review, false);
  }
  return { record: null, progress, consecutiveExclusions, mode: null, estimatedRelevantRemaining: null, stopping };
}

/** Re-rankings running in this isolate, per review; `again` = a decision came in meanwhile. */
const running = new Map<string, { again: boolean; done: Promise<void> }>();

/**
 * Runs the re-ranking after a decision: awaited, or handed to `background` (the Worker's
 * waitUntil). Background runs are coalesced per review: while one runs, later decisions only ask
 * for one more run when it ends (it reads every decision then), so a fast screener never queues
 * one retrain per key press.
 */
function scheduleRerank(app: ReviewsApp, review: ReviewRow, background?: (task: Promise<unknown>) => void): Promise<void> {
  const run = () =>
    rerankReview(app, review).then(
      () => undefined,
      (error: unknown) => console.error(`re-ranking review ${review.id} failed`, error),
    );
  if (!background) return run();
  const current = running.get(review.id);
  if (current) {
    current.again = true;
    background(current.done);
    return Promise.resolve();
  }
  const entry = { again: false, done: Promise.resolve() };
  entry.done = (async () => {
    try {
      do {
        entry.again = false;
        await run();
      } while (entry.again);
    } finally {
      running.delete(review.id);
    }
  })();
  running.set(review.id, entry);
  background(entry.done);
  return Promise.resolve();
}

/**
 * Records a decision on one record at one stage and keeps its history (for undo). Full-text
 * decisions need the record to be included at title/abstract (409 NOT_AT_FULL_TEXT) and a reason
 * to exclude (400 REASON_REQUIRED); a duplicate cannot be screened (409 DUPLICATE_RECORD). A
 * title/abstract decision re-ranks the remaining records: awaited, or — with `background` (the
 * route passes the Worker's waitUntil) — after answering, so the next record is served at once
 * from the latest stored ranking while the model retrains (as ASReview LAB does).
 * @returns the stage's progress and, at title/abstract, the next record to screen.
 */
export async function decide(
  app: ReviewsApp,
  { userId, reviewId, recordId }: { userId: string; reviewId: string | undefined; recordId: string | undefined },
  input: z.infer<typeof DecisionSchema>,
  options: { background?: (task: Promise<unknown>) => void } = {},
): Promise<{ progress: ScreeningProgress; next?: ScreeningNext }> {
  const review = await requireReview(app, { userId, reviewId });
  const record = await requireRecord(app, review, recordId);
  if (record.duplicateOf !== null) {
    throw new AppError("DUPLICATE_RECORD", "This record was merged into another; screen that one (or undo the merge).", 409);
  }
  const reason = input.reason?.trim() || null;
  if (input.stage === "full_text") {
    if (record.taDecision !== "include") {
      throw new AppError("NOT_AT_FULL_TEXT", "Only records included at title/abstract are screened on full text.", 409);
    }
    if (input.decision === "exclude" && !reason) {
      throw new AppError("REASON_REQUIRED", "Give a reason to exclude a report at full text.", 400);
    }
  }
  const now = Date.now();
  const set =
    input.stage === "full_text"
      ? { ftDecision: input.decision, ftReason: input.decision === "include" ? null : reason, ftDecidedAt: now }
      : { taDecision: input.decision, taReason: input.decision === "include" ? null : reason, taDecidedAt: now };
  await app.db.batch([
    app.db.insert(reviewDecisions).values({
      reviewId: review.id,
      userId,
      recordId: record.id,
      stage: input.stage,
      decision: input.decision,
      reason: set.ftReason ?? set.taReason ?? null,
      createdAt: now,
    }),
    app.db.update(reviewRecords).set(set).where(eq(reviewRecords.id, record.id)),
    app.db.update(reviews).set({ version: sql`${reviews.version} + 1`, updatedAt: now }).where(eq(reviews.id, review.id)),
  ]);
  if (input.stage === "full_text") return { progress: await progressOf(app, review.id, "full_text") };
  if (options.background) {
    // The answer comes from the latest stored order (skipping decided records) before the
    // retraining's CPU work can delay it; the new order is stored moments later.
    const next = await nextOf(app, review);
    await scheduleRerank(app, review, options.background);
    return { progress: next.progress, next };
  }
  await scheduleRerank(app, review);
  const next = await nextOf(app, review);
  return { progress: next.progress, next };
}

/**
 * Undoes a decision: the latest one of the stage (`recordId` absent, the u key) or the given
 * record's. The record's decision returns to its previous one in the history (or none).
 * @throws AppError 404 REVIEW_NOT_FOUND / RECORD_NOT_FOUND; 409 NOTHING_TO_UNDO.
 */
export async function undoDecision(
  app: ReviewsApp,
  { userId, reviewId, recordId, stage }: { userId: string; reviewId: string | undefined; recordId?: string; stage: ScreeningStage },
  options: { background?: (task: Promise<unknown>) => void } = {},
): Promise<{ progress: ScreeningProgress; recordId: number; next?: ScreeningNext }> {
  const review = await requireReview(app, { userId, reviewId });
  const record = recordId !== undefined ? await requireRecord(app, review, recordId) : null;
  const [latest] = await app.db
    .select()
    .from(reviewDecisions)
    .where(
      and(
        eq(reviewDecisions.reviewId, review.id),
        eq(reviewDecisions.stage, stage),
        ...(record ? [eq(reviewDecisions.recordId, record.id)] : []),
      ),
    )
    .orderBy(desc(reviewDecisions.id))
    .limit(1);
  if (!latest) throw new AppError("NOTHING_TO_UNDO", "There is no decision to undo.", 409);
  const [previous] = await app.db
    .select()
    .from(reviewDecisions)
    .where(
      and(
        eq(reviewDecisions.recordId, latest.recordId),
        eq(reviewDecisions.stage, stage),
        sql`${reviewDecisions.id} < ${latest.id}`,
      ),
    )
    .orderBy(desc(reviewDecisions.id))
    .limit(1);
  const restored = previous
    ? { decision: previous.decision, reason: previous.reason, at: previous.createdAt }
    : { decision: null, reason: null, at: null };
  const set =
    stage === "full_text"
      ? { ftDecision: restored.decision, ftReason: restored.reason, ftDecidedAt: restored.at }
      : { taDecision: restored.decision, taReason: restored.reason, taDecidedAt: restored.at };
  await app.db.batch([
    app.db.delete(reviewDecisions).where(eq(reviewDecisions.id, latest.id)),
    app.db.update(reviewRecords).set(set).where(eq(reviewRecords.id, latest.recordId)),
    app.db.update(reviews).set({ version: sql`${reviews.version} + 1`, updatedAt: Date.now() }).where(eq(reviews.id, review.id)),
  ]);
  if (stage === "full_text") return { progress: await progressOf(app, review.id, "full_text"), recordId: latest.recordId };
  await scheduleRerank(app, review, options.background);
  const next = await nextOf(app, review);
  return { progress: next.progress, recordId: latest.recordId, next };
}

/** Progress of both stages. @throws AppError 404. */
export async function screeningProgress(app: ReviewsApp, { userId, reviewId }: { userId: string; reviewId: string | undefined }) {
  const review = await requireReview(app, { userId, reviewId });
  const [titleAbstract, fullText] = await Promise.all([progressOf(app, review.id, "title_abstract"), progressOf(app, review.id, "full_text")]);
  return { titleAbstract, fullText };
}
