/**
 * Title/abstract and full-text screening of a review (issue 13): decisions with their history and
 * undo, progress, and the prioritised next record.
 *
 * Ranking (docs/decisions/0016-review-screening-ranking.md): after every title/abstract decision
 * (and its undo) the remaining records are re-ranked by the active-learning core
 * (app/lib/screening) and the order is stored in D1 (review_rankings, one row per review, tagged
 * with the review's version). GET …/screening/next then only reads that row and the first few
 * candidate records — no model work on the path that shows the next record.
 *
 * At scale (issue 27; docs/fresh-machine-and-scale.md): records are tokenised once, at import
 * (./screening-corpus.ts stores their term counts in R2), and the import ranks the review in the
 * background, so the first `next` reads a stored ranking; a retraining assembles the corpus from
 * the stored counts (or the isolate's cache, bounded in bytes), reads the decisions from a covering
 * index, and holds a lease (review_ranking_leases) so no two isolates retrain one ranking at once.
 * Progress counts read the covering index; the candidate query's join order is pinned (CROSS JOIN)
 * so it walks the stored order and looks records up by id, whatever the review's size.
 */
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import {
  reviewDecisions,
  reviewMemberRankings,
  reviewRankings,
  reviewRecords,
  reviews,
  type ReviewRow,
  type ScreeningDecision,
} from "../../../db/schema";
import {
  rankScreeningSteps,
  type RankResult,
  type ScreeningCorpus,
  type ScreeningLabel,
  type StoppingCriterion,
} from "~/lib/screening";
import type { ScreeningNext, ScreeningProgress, ScreeningStage, ScreeningSuggestion } from "~/lib/reviews";
import { activityInsert, activityStatement } from "./activity";
import { AppError } from "../http/errors";
import { CORPUS_CACHE_BYTES, corpusBytes, loadCorpus } from "./screening-corpus";
import { requireRecord, requireReview, requireReviewRecord, type ReviewsApp } from "./service";
import { castVote, currentVotes, settleRecord } from "./votes";

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
  bytes: number;
}
/**
 * Per-isolate cache of assembled corpora, by review id, each valid for one set of unique records;
 * least recently used first out once they hold more than CORPUS_CACHE_BYTES (the newest is always
 * kept), so a 50,000-record review fits the Worker's 128 MB beside the request's own work.
 */
const corpusCache = new Map<string, CachedCorpus>();

function cacheCorpus(reviewId: string, entry: CachedCorpus) {
  corpusCache.delete(reviewId);
  corpusCache.set(reviewId, entry);
  let total = 0;
  for (const e of corpusCache.values()) total += e.bytes;
  for (const [id, e] of corpusCache) {
    if (total <= CORPUS_CACHE_BYTES || id === reviewId) break;
    corpusCache.delete(id);
    total -= e.bytes;
  }
}

function priorOf(review: ReviewRow) {
  const q = review.question;
  const question = [q.text, q.population, q.intervention, q.comparator, q.outcomes].filter(Boolean).join(". ");
  return { question: question || review.title, criteria: review.inclusionCriteria };
}

/**
 * Re-ranks the review's unscreened records and stores the head of the order (RANKING_HEAD
 * records, with scores and, for the first records, the matched terms) and the stopping criterion
 * for the review's current version. Records marked 'maybe' count as
 * screened but train nothing; only include/exclude are labels. With `memberId` (dual screening)
 * the order is that reviewer's own: trained on the final decisions and on the reviewer's own
 * votes (never on another reviewer's pending vote), stored in review_member_rankings.
 * @returns the stored ranking, the wall time of the model's steps (pauses included, ms) and the
 * review's version when the ranking was written (`versionNow`: newer than `version` when decisions
 * came in during the run).
 */
export async function rerankReview(
  app: ReviewsApp,
  review: ReviewRow,
  memberId?: string,
  { background = false }: { background?: boolean } = {},
): Promise<StoredRanking & { modelMs: number; versionNow: number }> {
  const rankingKey = memberId ? `${review.id}:${memberId}` : review.id;
  const urgent = () => awaited.has(rankingKey);
  // A background run gives way to the screening requests this isolate is serving (see giveWay).
  if (background) await giveWay(urgent);
  // One batch (one transaction): the version tags exactly the decisions read with it. Only the
  // decided records are read (from the covering index, not the wide rows), and the set of unique
  // records as a fingerprint (count, last id, two sums of ids): the undecided ones are not
  // transferred on every retraining.
  const DB = app.bindings.DB;
  const [versionRes, setRes, decidedRes] = await DB.batch<Record<string, unknown>>([
    DB.prepare("SELECT version FROM reviews WHERE id = ?1").bind(review.id),
    DB.prepare(
      `SELECT count(*) AS n, coalesce(max(id), 0) AS last, coalesce(sum(id), 0) AS ids, coalesce(sum((id * 2654435761) % 4294967296), 0) AS hashes
       FROM review_records INDEXED BY review_records_screening_idx WHERE review_id = ?1 AND duplicate_of IS NULL`,
    ).bind(review.id),
    DB.prepare(
      `SELECT id, ta_decision AS taDecision, ta_decided_at AS taDecidedAt FROM review_records INDEXED BY review_records_screening_idx
       WHERE review_id = ?1 AND duplicate_of IS NULL AND ta_decision IS NOT NULL`,
    ).bind(review.id),
  ]);
  const version = (versionRes!.results[0] as { version: number } | undefined)?.version ?? review.version;
  const set = setRes!.results[0] as { n: number; last: number; ids: number; hashes: number };
  const decided = decidedRes!.results as { id: number; taDecision: ScreeningDecision; taDecidedAt: number | null }[];
  if (memberId) {
    // The reviewer's own votes label the records that have no final decision yet (votes on
    // duplicates are ignored by the model: they are not in the corpus).
    const final = new Set(decided.map((r) => r.id));
    for (const v of await currentVotes(app, review.id, { stage: "title_abstract", userId: memberId })) {
      if (!final.has(v.recordId)) decided.push({ id: v.recordId, taDecision: v.decision, taDecidedAt: v.createdAt });
    }
  }
  decided.sort((a, b) => (a.taDecidedAt ?? 0) - (b.taDecidedAt ?? 0) || a.id - b.id);
  const key = `${set.n}:${set.last}:${set.ids}:${set.hashes}`;
  let cached = corpusCache.get(review.id);
  if (!cached || cached.key !== key) {
    // review_records_review_idx lists a review's unique records in id order.
    const { results: unique } = await DB.prepare(
      "SELECT id FROM review_records INDEXED BY review_records_review_idx WHERE review_id = ?1 AND duplicate_of IS NULL ORDER BY id",
    )
      .bind(review.id)
      .all<{ id: number }>();
    const { corpus } = await loadCorpus(
      app,
      review,
      unique.map((r) => r.id),
    );
    cached = { key, corpus, bytes: corpusBytes(corpus) };
  }
  cacheCorpus(review.id, cached);
  const labels = new Map<string, ScreeningLabel>();
  const screened = new Set<number>();
  for (const r of decided) {
    screened.add(r.id);
    if (r.taDecision === "include" || r.taDecision === "exclude") labels.set(String(r.id), r.taDecision);
  }
  const started = performance.now();
  const result = await withPauses(
    urgent,
    background,
    rankScreeningSteps(
      cached.corpus,
      labels,
      priorOf(review),
      decided.filter((r) => r.taDecision !== "maybe").map((r) => String(r.id)),
      { limit: RANKING_HEAD + screened.size - labels.size },
    ),
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
  // The review's version, read in the write's batch, tells a catching-up retraining whether
  // decisions came in meanwhile without another round trip.
  const versionNow = app.db.select({ version: reviews.version }).from(reviews).where(eq(reviews.id, review.id));
  if (background) await giveWay(urgent);
  if (memberId) {
    const { stopping: _stopping, ...memberRanking } = stored;
    const [, now] = await app.db.batch([
      app.db
        .insert(reviewMemberRankings)
        .values({ reviewId: review.id, userId: memberId, ...memberRanking })
        .onConflictDoUpdate({
          target: [reviewMemberRankings.reviewId, reviewMemberRankings.userId],
          set: {
            version: stored.version,
            mode: stored.mode,
            ranked: stored.ranked,
            estimatedRelevantRemaining: stored.estimatedRelevantRemaining,
            computedAt: Date.now(),
          },
          setWhere: sql`${reviewMemberRankings.version} <= ${stored.version}`,
        }),
      versionNow,
    ]);
    return { ...stored, modelMs, versionNow: now[0]?.version ?? version };
  }
  const [, now] = await app.db.batch([
    app.db
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
      }),
    versionNow,
  ]);
  return { ...stored, modelMs, versionNow: now[0]?.version ?? version };
}

/**
 * Runs the ranking's steps (rankScreeningSteps), giving the isolate's thread back between them
 * (a zero-delay timer): a retraining shares that thread with the reviewer's requests — and, under
 * `wrangler dev`, with the local D1 and the proxy that delivers the answers — so one step of a few
 * ms, not the whole model (tens of ms at 20,000 records), is the most a request waits behind it.
 * A background run (`background`) also waits, between steps, while screening requests are being
 * served (giveWay). No pauses while `urgent()` (a `next` is waiting for this very run, e.g. the
 * first after an import).
 */
async function withPauses(
  urgent: () => boolean,
  background: boolean,
  steps: Generator<void, RankResult>,
): Promise<RankResult> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (urgent()) continue;
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (background) await giveWay(urgent);
  }
}

/**
 * Rankings (review id, or `review:member` in dual screening) that a request in this isolate is
 * waiting for (count of waiters): they run without pauses.
 */
const awaited = new Map<string, number>();

/** Screening requests (decision, next, undo) this isolate is serving now. */
let serving = 0;
/**
 * The longest a background retraining defers one step to requests (ms): under a stream of
 * overlapping requests it still advances, one step per this many ms at worst.
 */
const GIVE_WAY_MAX_MS = 50;
/**
 * How often a deferred retraining looks again (ms). It polls with its own timers rather than being
 * woken from another request's handler: workerd ties timers and other I/O objects to the request
 * that made them ("Cannot perform I/O on behalf of a different request").
 */
const GIVE_WAY_POLL_MS = 2;

/**
 * Serves one screening request (`work`), counted in `serving`: background retrainings in this
 * isolate run their steps between requests, not during them (issue 27: the decision's latency at
 * 20,000 records was mostly waiting behind the previous decision's retraining).
 */
async function serve<T>(work: () => Promise<T>): Promise<T> {
  serving++;
  try {
    return await work();
  } finally {
    serving--;
  }
}

/**
 * Resolves at once when no screening request is being served or `urgent()` (a request waits for
 * this retraining), else once either holds or GIVE_WAY_MAX_MS passed.
 */
async function giveWay(urgent: () => boolean): Promise<void> {
  for (let waited = 0; serving > 0 && !urgent() && waited < GIVE_WAY_MAX_MS; waited += GIVE_WAY_POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, GIVE_WAY_POLL_MS));
  }
}

/** Waits for a running ranking (`key` as in `awaited`), which then runs without pauses or giving way. */
async function awaitRanking(key: string, done: Promise<void>): Promise<void> {
  awaited.set(key, (awaited.get(key) ?? 0) + 1);
  try {
    await done;
  } finally {
    const left = awaited.get(key)! - 1;
    if (left > 0) awaited.set(key, left);
    else awaited.delete(key);
  }
}

interface StoredRanking {
  version: number;
  mode: string;
  ranked: [number, number, string[]][];
  estimatedRelevantRemaining: number | null;
  stopping: StoppingCriterion;
}

/**
 * A stage's progress from the final decisions: unique records (at full text: those included at
 * title/abstract), those with a final decision, those included; with `voterId` (dual screening)
 * also that reviewer's own votes at the stage.
 */
async function progressOf(
  app: ReviewsApp,
  reviewId: string,
  stage: ScreeningStage,
  voterId?: string,
): Promise<ScreeningProgress> {
  const progress = await finalProgressOf(app, reviewId, stage);
  if (!voterId) return progress;
  const [row] = await app.db
    .select({ n: sql<number>`count(distinct ${reviewDecisions.recordId})` })
    .from(reviewDecisions)
    .innerJoin(reviewRecords, eq(reviewRecords.id, reviewDecisions.recordId))
    .where(
      and(
        eq(reviewDecisions.reviewId, reviewId),
        eq(reviewDecisions.stage, stage),
        eq(reviewDecisions.userId, voterId),
        isNull(reviewRecords.duplicateOf),
        ...(stage === "full_text" ? [eq(reviewRecords.taDecision, "include")] : []),
      ),
    );
  return { ...progress, voted: row?.n ?? 0 };
}

async function finalProgressOf(app: ReviewsApp, reviewId: string, stage: ScreeningStage): Promise<ScreeningProgress> {
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
 * Single screening's progress and the run of exclusions since the latest include (`?1` = review
 * id): all from the covering index review_records_screening_idx, never the records' wide rows
 * (issue 27: 130–300 ms at 20,000 records from the wide rows). Only the total walks every unique
 * record's index entry (a bare count); screened, included and the latest include read the range
 * of decided records (ta_decision IS NOT NULL), so they cost what the decisions made so far cost
 * (2.3 → 1.0 ms of SQLite CPU at 20,000 records, against one aggregate over every entry).
 */
export const PROGRESS_SQL = `WITH decided AS (
   SELECT count(*) AS screened, count(*) FILTER (WHERE ta_decision = 'include') AS included,
          coalesce(max(ta_decided_at) FILTER (WHERE ta_decision = 'include'), 0) AS last_include
   FROM review_records INDEXED BY review_records_screening_idx
   WHERE review_id = ?1 AND duplicate_of IS NULL AND ta_decision IS NOT NULL)
 SELECT (SELECT count(*) FROM review_records INDEXED BY review_records_screening_idx
         WHERE review_id = ?1 AND duplicate_of IS NULL) AS total,
        screened, included,
        (SELECT count(*) FROM review_records INDEXED BY review_records_screening_idx
         WHERE review_id = ?1 AND duplicate_of IS NULL AND ta_decision = 'exclude' AND ta_decided_at > decided.last_include) AS run
 FROM decided`;

/** Positions of the stored order that the candidate query tries first (see CANDIDATE_SQL). */
export const CANDIDATE_WINDOW = 32;

/** The candidate query's walk of the stored order; `window`: an extra condition on the position (j.key). */
const candidateArm = (window: string) => `SELECT * FROM (
     SELECT j.value AS entry FROM review_rankings k, json_each(k.ranked) j
     CROSS JOIN review_records x ON x.id = json_extract(j.value, '$[0]')
     WHERE k.review_id = ?1 ${window} AND x.review_id = ?1 AND x.duplicate_of IS NULL AND x.ta_decision IS NULL
     ORDER BY j.key LIMIT 1)`;

/**
 * The best-ranked undecided record of the stored ranking (`?1` = review id). The stored order is
 * walked outside (CROSS JOIN pins the join order: records are looked up by primary key; an
 * unpinned planner may walk the review's records instead and re-parse the order for each: 974 ms
 * at 20,000 records), first over its first CANDIDATE_WINDOW positions — where the best undecided
 * record almost always is, as the order is recomputed after every decision — and over the whole
 * stored order (1,000 records) only when all of those are decided: UNION ALL … LIMIT 1 stops after
 * the first arm that finds one. The same record as sorting every undecided record of the order by
 * position, for 0.16 instead of 3–4 ms of SQLite CPU per request (issue 27). The score and matched
 * terms come from the chosen entry; the record's full row is read once.
 */
export const CANDIDATE_SQL = `WITH best AS (
   ${candidateArm(`AND j.key < ${CANDIDATE_WINDOW}`)}
   UNION ALL
   ${candidateArm("")}
   LIMIT 1)
 SELECT r.id, r.title, r.abstract, r.doi, r.year, r.journal, r.authors, r.suggestion,
        json_extract(best.entry, '$[1]') AS score, json_extract(best.entry, '$[2]') AS terms
 FROM best CROSS JOIN review_records r ON r.id = json_extract(best.entry, '$[0]')`;

/**
 * The next record to screen at title/abstract: the best-ranked unscreened record of the stored
 * ranking (computed here only when the review has none, or none with an unscreened record), with its score and matched terms,
 * the progress, the stopping aids (the stopping criterion stored with the ranking — recall ≥ 95 %
 * with 95 % confidence, and the recall bound —, the legacy estimate of relevant records remaining,
 * the current run of consecutive exclusions) and the mode of the ranking. `record` is null when every record has a
 * decision. @throws AppError 404 REVIEW_NOT_FOUND.
 */
export async function nextForScreening(
  app: ReviewsApp,
  { userId, reviewId }: { userId: string; reviewId: string | undefined },
): Promise<ScreeningNext> {
  return serve(async () => {
    const review = await requireReview(app, { userId, reviewId }, "write");
    return nextOf(app, review, userId);
  });
}

/** The three reads of single screening's next record (one D1 batch; appended to a decision's write batch). */
function nextStatements(DB: D1Database, reviewId: string): D1PreparedStatement[] {
  return [
    DB.prepare(PROGRESS_SQL).bind(reviewId),
    DB.prepare(
      "SELECT mode, estimated_relevant_remaining AS estimate, stopping FROM review_rankings WHERE review_id = ?1",
    ).bind(reviewId),
    DB.prepare(CANDIDATE_SQL).bind(reviewId),
  ];
}

async function nextOf(
  app: ReviewsApp,
  review: ReviewRow,
  userId: string,
  allowRerank = true,
  read?: D1Result<Record<string, unknown>>[],
): Promise<ScreeningNext> {
  if (review.screeningMode === "dual") return nextOfDual(app, review, userId, allowRerank);
  const DB = app.bindings.DB;
  // One round trip (or the tail of the decision's own batch, `read`): progress, the run of
  // exclusions, the stored ranking's summary and the best-ranked record that is still unscreened
  // (walking the stored order in SQL).
  const [progressRes, rankingRes, candidateRes] =
    read ?? (await DB.batch<Record<string, unknown>>(nextStatements(DB, review.id)));
  const counts = progressRes!.results[0] as { total: number; screened: number; included: number; run: number };
  const progress = { screened: counts.screened, total: counts.total, included: counts.included };
  const consecutiveExclusions = Number(counts.run);
  const ranking = rankingRes!.results[0] as
    { mode: string; estimate: number | null; stopping: string | null } | undefined;
  const stopping = ranking?.stopping ? (JSON.parse(ranking.stopping) as StoppingCriterion) : null;
  const hit = candidateRes!.results[0] as CandidateRow | undefined;
  if (hit && ranking) {
    return {
      record: nextRecordOf(hit),
      progress,
      consecutiveExclusions,
      mode: ranking.mode === "active" ? "active" : "prior",
      estimatedRelevantRemaining: ranking.estimate,
      stopping,
    };
  }
  if (progress.screened < progress.total && allowRerank) {
    // No stored ranking yet (new review, import, undone merge) or a stale one: wait for the
    // retraining this isolate is running (an import's, a decision's), else rank now.
    const inFlight = running.get(review.id);
    if (inFlight) {
      // A request waits for this run: it goes on without pauses (nothing else to make room for).
      await awaitRanking(review.id, inFlight.done);
      return nextOf(app, review, userId, true);
    }
    await rerankReview(app, review);
    return nextOf(app, review, userId, false);
  }
  return { record: null, progress, consecutiveExclusions, mode: null, estimatedRelevantRemaining: null, stopping };
}

/** The record `next` offers, from its candidate row (JSON columns parsed). */
function nextRecordOf(hit: CandidateRow): NonNullable<ScreeningNext["record"]> {
  return {
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
  };
}

type CandidateRow = {
  id: number;
  title: string;
  abstract: string | null;
  doi: string | null;
  year: number | null;
  journal: string | null;
  authors: string;
  suggestion: string | null;
  score: number;
  terms: string;
};

/**
 * Dual screening's next record for one reviewer: a unique record with no final decision that the
 * reviewer has not voted on and that fewer than two reviewers have voted on; records waiting for
 * their second vote come first (so pairs complete), then the reviewer's own order (trained on the
 * final decisions and their own votes). The answer carries no other reviewer's vote.
 */
async function nextOfDual(
  app: ReviewsApp,
  review: ReviewRow,
  userId: string,
  allowRerank: boolean,
): Promise<ScreeningNext> {
  const DB = app.bindings.DB;
  const [rankingRes, candidateRes, availableRes] = await DB.batch<Record<string, unknown>>([
    DB.prepare(
      "SELECT mode, estimated_relevant_remaining AS estimate FROM review_member_rankings WHERE review_id = ?1 AND user_id = ?2",
    ).bind(review.id, userId),
    DB.prepare(
      `WITH ranked AS MATERIALIZED (
         SELECT j.key AS position, json_extract(j.value, '$[0]') AS record_id,
                json_extract(j.value, '$[1]') AS score, json_extract(j.value, '$[2]') AS terms
         FROM review_member_rankings k, json_each(k.ranked) j WHERE k.review_id = ?1 AND k.user_id = ?2),
       votes AS MATERIALIZED (
         SELECT record_id, count(DISTINCT user_id) AS n, max(user_id = ?2) AS mine
         FROM review_decisions WHERE review_id = ?1 AND stage = 'title_abstract' GROUP BY record_id),
       best AS (
         SELECT ranked.record_id, ranked.score, ranked.terms FROM ranked
         CROSS JOIN review_records x ON x.id = ranked.record_id
         LEFT JOIN votes v ON v.record_id = x.id
         WHERE x.review_id = ?1 AND x.duplicate_of IS NULL AND x.ta_decision IS NULL
           AND coalesce(v.mine, 0) = 0 AND coalesce(v.n, 0) < 2
         ORDER BY coalesce(v.n, 0) DESC, ranked.position LIMIT 1)
       SELECT r.id, r.title, r.abstract, r.doi, r.year, r.journal, r.authors, r.suggestion, best.score, best.terms
       FROM best JOIN review_records r ON r.id = best.record_id`,
    ).bind(review.id, userId),
    DB.prepare(
      `SELECT count(*) AS n FROM review_records x WHERE x.review_id = ?1 AND x.duplicate_of IS NULL AND x.ta_decision IS NULL
         AND NOT EXISTS (SELECT 1 FROM review_decisions d WHERE d.record_id = x.id AND d.stage = 'title_abstract' AND d.user_id = ?2)
         AND (SELECT count(DISTINCT user_id) FROM review_decisions d WHERE d.record_id = x.id AND d.stage = 'title_abstract') < 2`,
    ).bind(review.id, userId),
  ]);
  const progress = await progressOf(app, review.id, "title_abstract", userId);
  const ranking = rankingRes!.results[0] as { mode: string; estimate: number | null } | undefined;
  const hit = candidateRes!.results[0] as CandidateRow | undefined;
  const available = Number((availableRes!.results[0] as { n: number }).n);
  if (hit && ranking) {
    return {
      record: nextRecordOf(hit),
      progress,
      consecutiveExclusions: 0,
      mode: ranking.mode === "active" ? "active" : "prior",
      estimatedRelevantRemaining: ranking.estimate,
      // The stopping criterion reads one screening order; a reviewer's own order in dual screening is not one.
      stopping: null,
    };
  }
  if (available > 0 && allowRerank) {
    const inFlight = running.get(`${review.id}:${userId}`);
    if (inFlight) {
      await awaitRanking(`${review.id}:${userId}`, inFlight.done);
      return nextOfDual(app, review, userId, true);
    }
    await rerankReview(app, review, userId);
    return nextOfDual(app, review, userId, false);
  }
  return {
    record: null,
    progress,
    consecutiveExclusions: 0,
    mode: null,
    estimatedRelevantRemaining: null,
    stopping: null,
  };
}

/** Re-rankings running in this isolate, per ranking; `again` = a decision came in meanwhile. */
const running = new Map<string, { again: boolean; done: Promise<void> }>();

/** How long a retraining's lease lasts: longer than any retraining, short enough that a crashed holder blocks little. */
const LEASE_MS = 60_000;
/** Retrainings one lease holder runs at most to catch up with decisions made meanwhile. */
const CATCH_UP_RUNS = 5;

/**
 * Runs `retrain` while holding the ranking's lease (review_ranking_leases: one atomic
 * INSERT … ON CONFLICT DO UPDATE … WHERE expired … RETURNING, ADR 0009's pattern), so no two
 * isolates retrain the same ranking at once. @returns false (and runs nothing) when another holder
 * has it; that holder retrains again when it sees a newer version (it re-reads every decision).
 */
export async function withRankingLease(
  app: ReviewsApp,
  reviewId: string,
  ranking: string,
  retrain: () => Promise<void>,
): Promise<boolean> {
  const DB = app.bindings.DB;
  const holder = crypto.randomUUID();
  const now = Date.now();
  const got = await DB.prepare(
    `INSERT INTO review_ranking_leases (review_id, ranking, holder, expires_at) VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (review_id, ranking) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
     WHERE review_ranking_leases.expires_at < ?5
     RETURNING holder`,
  )
    .bind(reviewId, ranking, holder, now + LEASE_MS, now)
    .first<{ holder: string }>();
  if (got?.holder !== holder) return false;
  try {
    await retrain();
  } finally {
    await DB.prepare("DELETE FROM review_ranking_leases WHERE review_id = ?1 AND ranking = ?2 AND holder = ?3")
      .bind(reviewId, ranking, holder)
      .run();
  }
  return true;
}

/** How long a background retraining waits before its CPU work, so the answer it follows leaves first (ms). */
const RESPONSE_HEADROOM_MS = 5;

/**
 * Runs the re-ranking after a decision or an import: awaited, or handed to `background` (the
 * Worker's waitUntil). Background runs are coalesced per ranking: while one runs in this isolate,
 * later decisions only ask for one more run when it ends (it reads every decision then), so a fast
 * screener never queues one retrain per key press; across isolates the lease lets one run at a
 * time, and its holder retrains again (up to CATCH_UP_RUNS times) while the review's version moved
 * on during its run — the decisions whose isolate found the lease taken.
 */
function scheduleRerank(
  app: ReviewsApp,
  review: ReviewRow,
  background?: (task: Promise<unknown>) => void,
  memberId?: string,
): Promise<void> {
  const key = memberId ? `${review.id}:${memberId}` : review.id;
  const fail = (error: unknown) => console.error(`re-ranking review ${review.id} failed`, error);
  if (!background) return rerankReview(app, review, memberId).then(() => undefined, fail);
  const current = running.get(key);
  if (current) {
    current.again = true;
    background(current.done);
    return Promise.resolve();
  }
  const catchUp = async () => {
    for (let i = 0; i < CATCH_UP_RUNS; i++) {
      const { version, versionNow } = await rerankReview(app, review, memberId, { background: true });
      if (versionNow <= version) return;
    }
  };
  const entry = { again: false, done: Promise.resolve() };
  entry.done = (async () => {
    try {
      // The retraining is CPU-bound (tens of ms at 20,000 records) and shares the isolate's one
      // thread with the answer it follows: yield first so that answer is written out before it.
      await new Promise((resolve) => setTimeout(resolve, RESPONSE_HEADROOM_MS));
      do {
        entry.again = false;
        let held = true;
        try {
          held = await withRankingLease(app, review.id, memberId ?? "", catchUp);
        } catch (error) {
          fail(error);
        }
        if (!held) break;
      } while (entry.again);
    } finally {
      running.delete(key);
    }
  })();
  running.set(key, entry);
  background(entry.done);
  return Promise.resolve();
}

/**
 * Ranks a review after records were added (an import): in the background, so the import answers
 * at once and the first `next` finds the ranking stored (or, in this isolate, waits for it instead
 * of ranking a second time). The records' term counts were stored by the import itself.
 */
export function rankAfterImport(
  app: ReviewsApp,
  review: ReviewRow,
  background: (task: Promise<unknown>) => void,
): void {
  void scheduleRerank(app, review, background);
}

/**
 * Records the caller's decision on one record at one stage and keeps its history (for undo).
 * Full-text decisions need the record to be included at title/abstract (409 NOT_AT_FULL_TEXT) and
 * a reason to exclude (400 REASON_REQUIRED); a duplicate cannot be screened (409
 * DUPLICATE_RECORD). Single screening: the decision is the record's final decision. Dual
 * screening (issue 30): it is the caller's own vote (./votes.ts castVote; 409 VOTES_COMPLETE when
 * two others voted); the record's final decision follows when two votes agree. A title/abstract
 * decision re-ranks the remaining records (in dual screening, the caller's own order): awaited,
 * or — with `background` (the route passes the Worker's waitUntil) — after answering, so the next
 * record is served at once from the latest stored ranking while the model retrains (as ASReview
 * LAB does).
 * @returns the stage's progress and, at title/abstract, the caller's next record to screen.
 */
export async function decide(
  app: ReviewsApp,
  target: { userId: string; reviewId: string | undefined; recordId: string | undefined },
  input: z.infer<typeof DecisionSchema>,
  options: { background?: (task: Promise<unknown>) => void } = {},
): Promise<{ progress: ScreeningProgress; next?: ScreeningNext }> {
  return serve(() => decideServed(app, target, input, options));
}

/** decide's work, counted among the requests served (`serve`). */
async function decideServed(
  app: ReviewsApp,
  { userId, reviewId, recordId }: { userId: string; reviewId: string | undefined; recordId: string | undefined },
  input: z.infer<typeof DecisionSchema>,
  options: { background?: (task: Promise<unknown>) => void },
): Promise<{ progress: ScreeningProgress; next?: ScreeningNext }> {
  const { review, record } = await requireReviewRecord(app, { userId, reviewId }, "write", recordId);
  if (record.duplicateOf !== null) {
    throw new AppError(
      "DUPLICATE_RECORD",
      "This record was merged into another; screen that one (or undo the merge).",
      409,
    );
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
  const dual = review.screeningMode === "dual";
  /** Single screening in the background mode: the next record's reads ride in the decision's batch (one round trip less). */
  let read: D1Result<Record<string, unknown>>[] | undefined;
  if (dual) {
    await castVote(
      app,
      { review, record, userId },
      { stage: input.stage, decision: input.decision, reason: input.decision === "include" ? null : reason },
      now,
    );
  } else {
    const DB = app.bindings.DB;
    const stage = input.stage === "full_text" ? "ft" : "ta";
    const stored = input.decision === "include" ? null : reason;
    const withNext = input.stage === "title_abstract" && options.background !== undefined;
    const results = await DB.batch<Record<string, unknown>>([
      DB.prepare(
        "INSERT INTO review_decisions (review_id, user_id, record_id, stage, decision, reason, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
      ).bind(review.id, userId, record.id, input.stage, input.decision, stored, now),
      DB.prepare(
        `UPDATE review_records SET ${stage}_decision = ?1, ${stage}_reason = ?2, ${stage}_decided_at = ?3 WHERE id = ?4`,
      ).bind(input.decision, stored, now, record.id),
      DB.prepare("UPDATE reviews SET version = version + 1, updated_at = ?2 WHERE id = ?1").bind(review.id, now),
      activityStatement(DB, {
        reviewId: review.id,
        userId,
        action: "vote",
        recordId: record.id,
        detail: { stage: input.stage, decision: input.decision, reason: stored },
        at: now,
      }),
      ...(withNext ? nextStatements(DB, review.id) : []),
    ]);
    if (withNext) read = results.slice(4);
  }
  const memberId = dual ? userId : undefined;
  if (input.stage === "full_text") return { progress: await progressOf(app, review.id, "full_text", memberId) };
  if (options.background) {
    // The answer comes from the latest stored order (skipping decided records) before the
    // retraining's CPU work can delay it; the new order is stored moments later.
    const next = await nextOf(app, review, userId, true, read);
    await scheduleRerank(app, review, options.background, memberId);
    return { progress: next.progress, next };
  }
  await scheduleRerank(app, review, undefined, memberId);
  const next = await nextOf(app, review, userId);
  return { progress: next.progress, next };
}

/**
 * Undoes one of the caller's own decisions: their latest one of the stage (`recordId` absent, the
 * u key) or their latest on the given record. Single screening: the record's decision returns to
 * the previous one in its history (or none). Dual screening: the caller's vote returns to their
 * previous one (or none) and the record's final decision is settled again from the votes. The
 * re-ranking is awaited, whatever `_options.background` says (ADR 0042), so the undone record is
 * in the stored order when the next `next` reads it.
 * @throws AppError 404 REVIEW_NOT_FOUND / RECORD_NOT_FOUND; 409 NOTHING_TO_UNDO.
 */
export async function undoDecision(
  app: ReviewsApp,
  target: { userId: string; reviewId: string | undefined; recordId?: string; stage: ScreeningStage },
  _options: { background?: (task: Promise<unknown>) => void } = {},
): Promise<{ progress: ScreeningProgress; recordId: number; next?: ScreeningNext }> {
  return serve(() => undoServed(app, target));
}

/** undoDecision's work, counted among the requests served (`serve`). */
async function undoServed(
  app: ReviewsApp,
  {
    userId,
    reviewId,
    recordId,
    stage,
  }: { userId: string; reviewId: string | undefined; recordId?: string; stage: ScreeningStage },
): Promise<{ progress: ScreeningProgress; recordId: number; next?: ScreeningNext }> {
  const review = await requireReview(app, { userId, reviewId }, "write");
  const record = recordId !== undefined ? await requireRecord(app, review, recordId) : null;
  const [latest] = await app.db
    .select()
    .from(reviewDecisions)
    .where(
      and(
        eq(reviewDecisions.reviewId, review.id),
        eq(reviewDecisions.stage, stage),
        eq(reviewDecisions.userId, userId),
        ...(record ? [eq(reviewDecisions.recordId, record.id)] : []),
      ),
    )
    .orderBy(desc(reviewDecisions.id))
    .limit(1);
  if (!latest) throw new AppError("NOTHING_TO_UNDO", "There is no decision to undo.", 409);
  const dual = review.screeningMode === "dual";
  const bump = app.db
    .update(reviews)
    .set({ version: sql`${reviews.version} + 1`, updatedAt: Date.now() })
    .where(eq(reviews.id, review.id));
  const logged = activityInsert(app.db, {
    reviewId: review.id,
    userId,
    action: "undo",
    recordId: latest.recordId,
    detail: { stage },
  });
  if (dual) {
    await app.db.batch([app.db.delete(reviewDecisions).where(eq(reviewDecisions.id, latest.id)), bump, logged]);
    await settleRecord(app, review.id, latest.recordId, stage);
  } else {
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
      bump,
      logged,
    ]);
  }
  const memberId = dual ? userId : undefined;
  if (stage === "full_text")
    return { progress: await progressOf(app, review.id, "full_text", memberId), recordId: latest.recordId };
  // The undone record is back among the undecided but not in the stored order until a retraining
  // adds it: awaited here (an undo is rare), so the next `next` offers it where the model puts it.
  // A background run would give way to that very `next` and let it read the order without it.
  await scheduleRerank(app, review, undefined, memberId);
  const next = await nextOf(app, review, userId);
  return { progress: next.progress, recordId: latest.recordId, next };
}
