/**
 * Review projects (issue 13): create/list/update/delete, bringing records in (files, searches,
 * uploaded PDFs) with de-duplication across sources, the merges list and its undo, and the record
 * listing. Screening decisions and the ranking live in ./screening.ts, PRISMA in ./prisma.ts.
 *
 * Every function takes the caller's id and checks their access through requireReview (./access.ts:
 * owner, reviewer or viewer; 404 REVIEW_NOT_FOUND for a non-member, 403 FORBIDDEN_ROLE for a role
 * that may not do it); 404 RECORD_NOT_FOUND for a record id that is not the review's.
 */
import { and, asc, desc, eq, getTableColumns, gt, inArray, isNotNull, isNull, sql, type AnyColumn } from "drizzle-orm";
import { z } from "zod";
import {
  reviewDecisions,
  reviewMemberRankings,
  reviewMembers,
  reviewRecords,
  reviewRankings,
  reviews,
  reviewSources,
  type ReviewRecordRow,
  type ReviewRow,
  type UserRow,
} from "../../../db/schema";
import type { ApiReview, ApiReviewRecord, ApiReviewSource, ScreeningSuggestion } from "~/lib/reviews";
import { DEFAULT_EXCLUSION_REASONS, NO_TITLE, type ImportWarning } from "~/lib/reviews";
import type { Vote } from "~/lib/team";
import type { AppServices } from "../context";
import { AppError } from "../http/errors";
import { dedupeWithMembers } from "../search/dedupe";
import { normaliseDoi } from "~/lib/search/normalize";
import type { NormalisedStudy } from "../search/types";
import { activityInsert, activityStatement } from "./activity";
import { accessOf, requireReviewAccess, reviewAccessQuery, type ReviewAccess, type ReviewNeed } from "./access";
import type { ImportedRecord } from "./parse";
import { storeTermCounts, termCountsPrefix } from "./screening-corpus";
import { currentVotes } from "./votes";

export type ReviewsApp = Pick<AppServices, "db" | "bindings">;

/** Free plan: one review of at most this many records (after de-duplication). */
export const FREE_MAX_REVIEWS = 1;
export const FREE_MAX_RECORDS = 500;
/** Records (duplicates included) one review may hold on any plan. */
export const MAX_RECORDS_PER_REVIEW = 50_000;

const line = z.string().trim().min(1).max(1000);
const QuestionSchema = z.union([
  z
    .string()
    .trim()
    .max(4000)
    .transform((text) => (text ? { text } : {})),
  z
    .object({
      text: z.string().trim().max(4000).optional(),
      population: z.string().trim().max(2000).optional(),
      intervention: z.string().trim().max(2000).optional(),
      comparator: z.string().trim().max(2000).optional(),
      outcomes: z.string().trim().max(2000).optional(),
    })
    .strict(),
]);
const lines = z
  .union([z.string().max(20_000), z.array(z.string().max(1000)).max(100)])
  .transform((v) => (typeof v === "string" ? v.split(/\r?\n/) : v).map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(line).max(100));
const CriteriaSchema = z.union([
  lines.transform((inclusion) => ({ inclusion, exclusion: [] as string[] })),
  z.object({ inclusion: lines.optional(), exclusion: lines.optional() }).strict(),
]);

/** POST /api/reviews body. `question`: text or PICO parts; `criteria`: lines or {inclusion, exclusion}. */
export const CreateReviewSchema = z.object({
  title: z.string({ error: "title is required" }).trim().min(1, "title is required").max(300),
  question: QuestionSchema.optional(),
  criteria: CriteriaSchema.optional(),
  exclusionReasons: z.array(line.max(200)).max(50).optional(),
});
/**
 * PATCH /api/reviews/{id} body: any of the create fields; (owner) the screening settings
 * `screening: {mode: 'single' | 'dual', blind?: boolean}` (blind stays as it is when left out;
 * a new review is blind); (owner) the data extraction mode `extraction: {mode: 'single' | 'dual'}`
 * (dual: two independent extractions per study and a consensus, issue 30); and `living: {schedule}` to make the review living (its searches re-run
 * weekly or monthly) or to stop (null).
 */
export const UpdateReviewSchema = CreateReviewSchema.partial().extend({
  screening: z
    .object({
      mode: z.enum(["single", "dual"], { error: "mode must be 'single' or 'dual'" }),
      blind: z.boolean().optional(),
    })
    .strict()
    .optional(),
  living: z
    .object({
      schedule: z.enum(["weekly", "monthly"], { error: "schedule must be weekly, monthly or null" }).nullable(),
    })
    .strict()
    .optional(),
  extraction: z
    .object({ mode: z.enum(["single", "dual"], { error: "mode must be 'single' or 'dual'" }) })
    .strict()
    .optional(),
  riskOfBias: z
    .object({ mode: z.enum(["single", "dual"], { error: "mode must be 'single' or 'dual'" }) })
    .strict()
    .optional(),
});

/** When a living review's next update falls after `from` (ms): 7 days, or one calendar month later (UTC, clamped to the month's last day). */
export function nextRunAfter(schedule: "weekly" | "monthly", from: number): number {
  if (schedule === "weekly") return from + 7 * 24 * 60 * 60 * 1000;
  const d = new Date(from);
  const target = new Date(
    Date.UTC(
      d.getUTCFullYear(),
      d.getUTCMonth() + 1,
      1,
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
      d.getUTCMilliseconds(),
    ),
  );
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return target.getTime();
}

function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

interface ReviewCounts {
  records: number;
  duplicates: number;
  screened: number;
  included: number;
  fullTextIncluded: number;
}

function toApiReview(
  row: ReviewRow,
  counts: ReviewCounts,
  access: Pick<ReviewAccess, "role" | "resolver"> = { role: "owner", resolver: true },
): ApiReview {
  return {
    id: row.id,
    title: row.title,
    question: row.question,
    criteria: { inclusion: row.inclusionCriteria, exclusion: row.exclusionCriteria },
    exclusionReasons: row.exclusionReasons,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    counts,
    role: access.role,
    resolver: access.resolver,
    screening: { mode: row.screeningMode, blind: row.screeningBlind },
    extraction: { mode: row.extractionMode },
    riskOfBias: { mode: row.robMode },
    living: {
      schedule: row.livingSchedule,
      nextRunAt: row.livingNextRunAt === null ? null : toIso(row.livingNextRunAt),
    },
  };
}

const countColumns = {
  records: sql<number>`count(*) filter (where ${reviewRecords.duplicateOf} is null)`,
  duplicates: sql<number>`count(*) filter (where ${reviewRecords.duplicateOf} is not null)`,
  screened: sql<number>`count(*) filter (where ${reviewRecords.duplicateOf} is null and ${reviewRecords.taDecision} is not null)`,
  included: sql<number>`count(*) filter (where ${reviewRecords.duplicateOf} is null and ${reviewRecords.taDecision} = 'include')`,
  fullTextIncluded: sql<number>`count(*) filter (where ${reviewRecords.duplicateOf} is null and ${reviewRecords.taDecision} = 'include' and ${reviewRecords.ftDecision} = 'include')`,
};

async function countsOf(app: ReviewsApp, reviewIds: string[]): Promise<Map<string, ReviewCounts>> {
  if (reviewIds.length === 0) return new Map();
  const rows = await app.db
    .select({ reviewId: reviewRecords.reviewId, ...countColumns })
    .from(reviewRecords)
    .where(inArray(reviewRecords.reviewId, reviewIds))
    .groupBy(reviewRecords.reviewId);
  return new Map(rows.map(({ reviewId, ...c }) => [reviewId, c]));
}

const ZERO: ReviewCounts = { records: 0, duplicates: 0, screened: 0, included: 0, fullTextIncluded: 0 };

/**
 * Creates a review. Free plan: one review (403 PRO_REQUIRED {feature:'reviews'} for a second).
 * @returns the review with zero counts.
 */
export async function createReview(
  app: ReviewsApp,
  user: Pick<UserRow, "id" | "plan">,
  input: z.infer<typeof CreateReviewSchema>,
): Promise<ApiReview> {
  if (user.plan !== "pro") {
    const [{ n }] = await app.db
      .select({ n: sql<number>`count(*)` })
      .from(reviews)
      .where(eq(reviews.userId, user.id));
    if (n >= FREE_MAX_REVIEWS) {
      throw new AppError("PRO_REQUIRED", "More than one systematic review requires Professional subscription", 403, {
        feature: "reviews",
      });
    }
  }
  const [row] = await app.db
    .insert(reviews)
    .values({
      id: crypto.randomUUID(),
      userId: user.id,
      title: input.title,
      question: input.question ?? {},
      inclusionCriteria: input.criteria?.inclusion ?? [],
      exclusionCriteria: input.criteria?.exclusion ?? [],
      exclusionReasons: input.exclusionReasons ?? DEFAULT_EXCLUSION_REASONS,
    })
    .returning();
  return toApiReview(row!, ZERO);
}

/** The user's reviews and those shared with them (with their role), newest first, with their counts. */
export async function listReviews(app: ReviewsApp, { userId }: { userId: string }): Promise<ApiReview[]> {
  const rows = await app.db
    .select({ review: reviews, role: reviewMembers.role, resolver: reviewMembers.resolver })
    .from(reviews)
    .leftJoin(reviewMembers, and(eq(reviewMembers.reviewId, reviews.id), eq(reviewMembers.userId, userId)))
    .where(sql`(${reviews.userId} = ${userId} or ${reviewMembers.userId} is not null)`)
    .orderBy(desc(reviews.createdAt));
  const counts = await countsOf(
    app,
    rows.map((r) => r.review.id),
  );
  return rows.map(({ review, role, resolver }) =>
    toApiReview(
      review,
      counts.get(review.id) ?? ZERO,
      review.userId === userId ? undefined : { role: role ?? "viewer", resolver: resolver ?? false },
    ),
  );
}

/**
 * The review row when the caller's role allows `need` (see ./access.ts, the one access check of
 * every review route). @throws AppError 404 REVIEW_NOT_FOUND; 403 FORBIDDEN_ROLE.
 */
export async function requireReview(
  app: ReviewsApp,
  target: { userId: string; reviewId: string | undefined },
  need: ReviewNeed,
): Promise<ReviewRow> {
  return (await requireReviewAccess(app, target, need)).review;
}

/** One review with its counts, sources and the caller's role. @throws AppError 404 REVIEW_NOT_FOUND. */
export async function getReview(
  app: ReviewsApp,
  { userId, reviewId }: { userId: string; reviewId: string | undefined },
): Promise<ApiReview & { sources: ApiReviewSource[] }> {
  const access = await requireReviewAccess(app, { userId, reviewId }, "read");
  const row = access.review;
  const counts = await countsOf(app, [row.id]);
  return { ...toApiReview(row, counts.get(row.id) ?? ZERO, access), sources: await listSources(app, row.id) };
}

/** The review's sources, oldest first, each with its records currently merged as duplicates. */
export async function listSources(app: ReviewsApp, reviewId: string): Promise<ApiReviewSource[]> {
  const [rows, dupes] = await Promise.all([
    app.db
      .select()
      .from(reviewSources)
      .where(eq(reviewSources.reviewId, reviewId))
      .orderBy(asc(reviewSources.createdAt)),
    app.db
      .select({ sourceId: reviewRecords.sourceId, n: sql<number>`count(*)` })
      .from(reviewRecords)
      .where(and(eq(reviewRecords.reviewId, reviewId), isNotNull(reviewRecords.duplicateOf)))
      .groupBy(reviewRecords.sourceId),
  ]);
  const bySource = new Map(dupes.map((d) => [d.sourceId, d.n]));
  return rows.map((s) => ({
    id: s.id,
    kind: s.kind,
    name: s.name,
    format: s.format,
    query: s.query,
    createdAt: toIso(s.createdAt),
    recordCount: s.recordCount,
    duplicatesRemoved: bySource.get(s.id) ?? 0,
    details: s.details,
  }));
}

/** Updates title, question, criteria, exclusion reasons or the living schedule. @throws AppError 404. */
export async function updateReview(
  app: ReviewsApp,
  { userId, reviewId }: { userId: string; reviewId: string | undefined },
  input: z.infer<typeof UpdateReviewSchema>,
): Promise<ApiReview & { sources: ApiReviewSource[] }> {
  const row = await requireReview(app, { userId, reviewId }, "owner");
  const changes: Partial<ReviewRow> = { updatedAt: Date.now() };
  if (input.title !== undefined) changes.title = input.title;
  if (input.question !== undefined) changes.question = input.question;
  if (input.criteria !== undefined) {
    if (input.criteria.inclusion !== undefined) changes.inclusionCriteria = input.criteria.inclusion;
    if (input.criteria.exclusion !== undefined) changes.exclusionCriteria = input.criteria.exclusion;
  }
  if (input.exclusionReasons !== undefined) changes.exclusionReasons = input.exclusionReasons;
  if (input.screening) {
    changes.screeningMode = input.screening.mode;
    if (input.screening.blind !== undefined) changes.screeningBlind = input.screening.blind;
  }
  if (input.extraction) changes.extractionMode = input.extraction.mode;
  if (input.riskOfBias) changes.robMode = input.riskOfBias.mode;
  if (input.living !== undefined) {
    changes.livingSchedule = input.living.schedule;
    changes.livingNextRunAt = input.living.schedule ? nextRunAfter(input.living.schedule, changes.updatedAt!) : null;
  }
  const priorChanged = input.question !== undefined || input.criteria !== undefined;
  const toSingle = row.screeningMode === "dual" && input.screening?.mode === "single";
  const settings = {
    ...(input.screening ? { screening: input.screening } : {}),
    ...(input.extraction ? { extraction: input.extraction } : {}),
    ...(input.riskOfBias ? { riskOfBias: input.riskOfBias } : {}),
  };
  await app.db.batch([
    app.db.update(reviews).set(changes).where(eq(reviews.id, row.id)),
    ...(Object.keys(settings).length
      ? [activityInsert(app.db, { reviewId: row.id, userId, action: "settings", detail: settings })]
      : []),
    // Back to single screening: a record waiting for its second vote takes its one vote as final.
    ...(toSingle
      ? (["title_abstract", "full_text"] as const).map((stage) => {
          const latest = (column: "decision" | "reason" | "created_at") =>
            sql`(SELECT x.${sql.raw(column)} FROM ${reviewDecisions} x WHERE x.record_id = review_records.id AND x.stage = ${stage} ORDER BY x.id DESC LIMIT 1)`;
          const c =
            stage === "full_text"
              ? {
                  decision: reviewRecords.ftDecision,
                  set: {
                    ftDecision: latest("decision"),
                    ftReason: latest("reason"),
                    ftDecidedAt: latest("created_at"),
                  },
                }
              : {
                  decision: reviewRecords.taDecision,
                  set: {
                    taDecision: latest("decision"),
                    taReason: latest("reason"),
                    taDecidedAt: latest("created_at"),
                  },
                };
          return app.db
            .update(reviewRecords)
            .set(c.set)
            .where(
              and(
                eq(reviewRecords.reviewId, row.id),
                isNull(reviewRecords.duplicateOf),
                isNull(c.decision),
                sql`(SELECT count(DISTINCT x.user_id) FROM ${reviewDecisions} x WHERE x.record_id = review_records.id AND x.stage = ${stage}) = 1`,
              ),
            );
        })
      : []),
    // The prior ranking depends on the question and criteria: recompute on the next request.
    // The prior ranking depends on the question and criteria, each queue on the mode: recompute on the next request.
    ...(priorChanged || input.screening
      ? [
          app.db.delete(reviewRankings).where(eq(reviewRankings.reviewId, row.id)),
          app.db.delete(reviewMemberRankings).where(eq(reviewMemberRankings.reviewId, row.id)),
        ]
      : []),
  ]);
  return getReview(app, { userId, reviewId: row.id });
}

/** R2 prefix of a review's attached full-text PDFs (inside the user's prefix, see account.ts). */
export const reviewObjectPrefix = (userId: string, reviewId: string) => `uploads/${userId}/reviews/${reviewId}/`;

/**
 * Deletes a review with its sources, records, decisions and ranking (one statement, cascading),
 * then its attached PDFs and its screening term counts in R2. @throws AppError 404.
 */
export async function deleteReview(
  app: ReviewsApp,
  { userId, reviewId }: { userId: string; reviewId: string | undefined },
): Promise<void> {
  const row = await requireReview(app, { userId, reviewId }, "owner");
  await app.db.delete(reviews).where(and(eq(reviews.id, row.id), eq(reviews.userId, userId)));
  for (const prefix of [reviewObjectPrefix(userId, row.id), termCountsPrefix(row.userId, row.id)]) {
    let cursor: string | undefined;
    do {
      const page = await app.bindings.BUCKET.list({ prefix, cursor, limit: 1000 });
      if (page.objects.length > 0) await app.bindings.BUCKET.delete(page.objects.map((o) => o.key));
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
  }
}

/** A record to bring in, from any kind of source. */
export interface IncomingRecord extends ImportedRecord {
  /** Database or file shown in PRISMA identification. */
  origin: string;
  studyId?: number | null;
  uploadedStudyId?: number | null;
  fullText?: string | null;
}

/** What the import endpoints answer. */
export interface ImportResult {
  imported: number;
  duplicatesRemoved: number;
  sourceId: string;
  /** Records of a file read with a problem but imported (e.g. no title); empty for other sources. */
  warnings: ImportWarning[];
}

/** A record as the de-duplication sees it; an untitled record ({@link NO_TITLE}) has no title to match. */
function asStudy(r: { title: string; doi: string | null; pmid: string | null; year: number | null }): NormalisedStudy {
  return {
    source: "pubmed",
    sourceId: "",
    title: r.title === NO_TITLE ? "" : r.title,
    abstract: null,
    authors: [],
    journal: null,
    publicationDate: r.year ? String(r.year) : null,
    pmid: r.pmid,
    pmcid: null,
    doi: r.doi,
    studyType: "Research Article",
    publicationTypes: [],
    fullTextAvailable: false,
    isOpenAccess: false,
    openAccessUrl: null,
    citationCount: null,
    impactFactor: null,
    url: null,
  };
}

/** Why two records were merged: the strongest identifier they share. */
function mergeReason(
  a: { doi: string | null; pmid: string | null; title: string },
  b: { doi: string | null; pmid: string | null; title: string },
): "doi" | "pmid" | "title" {
  if (a.doi && b.doi && normaliseDoi(a.doi) === normaliseDoi(b.doi)) return "doi";
  if (a.pmid && b.pmid && a.pmid.trim() === b.pmid.trim()) return "pmid";
  return "title";
}

/** Plan and size limits of a review, checked before an import. */
function checkLimits(
  user: Pick<UserRow, "plan">,
  existing: { all: number; unique: number },
  incoming: { all: number; unique: number },
): void {
  if (existing.all + incoming.all > MAX_RECORDS_PER_REVIEW) {
    throw new AppError(
      "TOO_MANY_RECORDS",
      `A review can hold at most ${MAX_RECORDS_PER_REVIEW.toLocaleString("en")} records; this import would make ${(existing.all + incoming.all).toLocaleString("en")}.`,
      413,
    );
  }
  if (user.plan !== "pro" && existing.unique + incoming.unique > FREE_MAX_RECORDS) {
    throw new AppError(
      "PRO_REQUIRED",
      `The free plan's review holds up to ${FREE_MAX_RECORDS} records; this import would make ${existing.unique + incoming.unique}. Upgrade to Professional for larger reviews.`,
      403,
      { feature: "reviews" },
    );
  }
}

/** Rows per INSERT … SELECT FROM json_each(?) statement (keeps each bound JSON value well under 2 MB). */
const INSERT_CHUNK_BYTES = 900_000;

/**
 * Brings a batch of records into a review as one source: de-duplicates them against the review's
 * unique records and against each other (DOI → PMID → normalised title and year, the search's
 * rules in ../search/dedupe.ts; records whose merge the user undid never merge again), checks the
 * plan's limits (403 PRO_REQUIRED over 500 records on Free; 413 TOO_MANY_RECORDS over 50,000),
 * then writes the source, the records (duplicates kept, pointing at the record they merge into)
 * and drops the cached ranking in ONE D1 batch: all or nothing. `guard` (an SQL condition with its
 * values, e.g. the saved-search cap) is checked by the source's INSERT inside that batch; when it
 * fails nothing is written and addRecords throws `guard.refused()`.
 */
export async function addRecords(
  app: ReviewsApp,
  {
    user,
    review,
    source,
    records,
    guard,
  }: {
    user: Pick<UserRow, "id" | "plan">;
    review: ReviewRow;
    source: {
      kind: "file" | "search" | "uploads";
      name: string;
      format?: string | null;
      query?: string | null;
      details?: Record<string, unknown>;
    };
    records: IncomingRecord[];
    guard?: { sql: string; values: unknown[]; refused: () => AppError };
  },
): Promise<ImportResult> {
  if (records.length === 0) throw new AppError("NO_RECORDS", "There are no records to add.", 400);
  const existing = await app.db
    .select({
      id: reviewRecords.id,
      title: reviewRecords.title,
      doi: reviewRecords.doi,
      pmid: reviewRecords.pmid,
      year: reviewRecords.year,
      duplicateOf: reviewRecords.duplicateOf,
      notDuplicate: reviewRecords.notDuplicate,
    })
    .from(reviewRecords)
    .where(eq(reviewRecords.reviewId, review.id))
    .orderBy(asc(reviewRecords.id));
  const candidates = existing.filter((r) => r.duplicateOf === null && !r.notDuplicate);
  const merged = dedupeWithMembers([candidates.map(asStudy), records.map(asStudy)]);
  /** For each incoming record: the existing record id or the incoming position it merges into. */
  const target = new Map<number, { existingId?: number; position?: number; reason: "doi" | "pmid" | "title" }>();
  for (const group of merged.members) {
    const [first, ...rest] = group;
    const keep = first!.list === 0 ? candidates[first!.index]! : records[first!.index]!;
    for (const m of rest) {
      if (m.list !== 1) continue;
      const reason = mergeReason(keep, records[m.index]!);
      target.set(
        m.index,
        first!.list === 0 ? { existingId: candidates[first!.index]!.id, reason } : { position: first!.index, reason },
      );
    }
  }
  const duplicatesRemoved = target.size;
  checkLimits(
    user,
    { all: existing.length, unique: existing.filter((r) => r.duplicateOf === null).length },
    { all: records.length, unique: records.length - duplicatesRemoved },
  );

  const sourceId = crypto.randomUUID();
  const DB = app.bindings.DB;
  // Every later write of the batch needs the source row: with a failed guard, none lands.
  const sourceExists = "EXISTS (SELECT 1 FROM review_sources s WHERE s.id = ?)";
  const statements: D1PreparedStatement[] = [
    DB.prepare(
      `INSERT INTO review_sources (id, review_id, user_id, kind, name, format, query, details, record_count, duplicates_removed) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?${guard ? ` WHERE ${guard.sql}` : ""}`,
    ).bind(
      sourceId,
      review.id,
      user.id,
      source.kind,
      source.name.slice(0, 300),
      source.format ?? null,
      source.query ?? null,
      JSON.stringify(source.details ?? {}),
      records.length,
      duplicatesRemoved,
      ...(guard?.values ?? []),
    ),
  ];
  const insertSql = `INSERT INTO review_records (review_id, user_id, source_id, position, origin, title, abstract, authors, year, journal, doi, pmid, keywords, url, study_id, uploaded_study_id, full_text, duplicate_of, duplicate_reason)
    SELECT ?1, ?2, ?3, json_extract(j.value, '$.p'), json_extract(j.value, '$.o'), json_extract(j.value, '$.t'), json_extract(j.value, '$.a'),
      json(json_extract(j.value, '$.au')), json_extract(j.value, '$.y'), json_extract(j.value, '$.j'), json_extract(j.value, '$.d'),
      json_extract(j.value, '$.pm'), json_extract(j.value, '$.k'), json_extract(j.value, '$.u'), json_extract(j.value, '$.s'),
      json_extract(j.value, '$.up'), json_extract(j.value, '$.ft'), json_extract(j.value, '$.dup'), json_extract(j.value, '$.why')
    FROM json_each(?4) j WHERE EXISTS (SELECT 1 FROM review_sources s WHERE s.id = ?3)`;
  let chunk: string[] = [];
  let bytes = 0;
  const flush = () => {
    if (chunk.length === 0) return;
    statements.push(DB.prepare(insertSql).bind(review.id, user.id, sourceId, `[${chunk.join(",")}]`));
    chunk = [];
    bytes = 0;
  };
  records.forEach((r, p) => {
    const t = target.get(p);
    const item = JSON.stringify({
      p,
      o: r.origin.slice(0, 300),
      t: r.title.slice(0, 2000),
      a: r.abstract?.slice(0, 20_000) ?? null,
      au: JSON.stringify(r.authors.slice(0, 500)),
      y: r.year,
      j: r.journal?.slice(0, 500) ?? null,
      d: r.doi,
      pm: r.pmid,
      k: r.keywords?.slice(0, 4000) ?? null,
      u: r.url?.slice(0, 2000) ?? null,
      s: r.studyId ?? null,
      up: r.uploadedStudyId ?? null,
      ft: r.fullText ?? null,
      // Merges into a record of this same batch are written as -(position + 1), resolved below.
      dup: t ? (t.existingId ?? -((t.position ?? 0) + 1)) : null,
      why: t?.reason ?? null,
    });
    if (bytes + item.length > INSERT_CHUNK_BYTES) flush();
    chunk.push(item);
    bytes += item.length + 1;
  });
  flush();
  statements.push(
    DB.prepare(
      `UPDATE review_records SET duplicate_of = (SELECT k.id FROM review_records k WHERE k.source_id = ?1 AND k.position = -review_records.duplicate_of - 1)
       WHERE source_id = ?1 AND duplicate_of < 0`,
    ).bind(sourceId),
    DB.prepare(`DELETE FROM review_rankings WHERE review_id = ? AND ${sourceExists}`).bind(review.id, sourceId),
    DB.prepare(`UPDATE reviews SET version = version + 1, updated_at = ? WHERE id = ? AND ${sourceExists}`).bind(
      Date.now(),
      review.id,
      sourceId,
    ),
    activityStatement(
      DB,
      {
        reviewId: review.id,
        userId: user.id,
        action: "import",
        detail: {
          kind: source.kind,
          name: source.name.slice(0, 300),
          format: source.format ?? source.kind,
          records: records.length,
          duplicatesRemoved,
        },
      },
      { sql: sourceExists, values: [sourceId] },
    ),
  );
  const [sourceWrite] = await DB.batch(statements);
  if (guard && sourceWrite!.meta.changes === 0) throw guard.refused();
  // The screening corpus's term counts, made now (the texts are at hand) so no ranking has to
  // tokenise these records again (issue 27). A failure costs a rebuild later, not the import.
  const { results: inserted } = await DB.prepare(
    "SELECT id, position FROM review_records WHERE source_id = ?1 ORDER BY position",
  )
    .bind(sourceId)
    .all<{ id: number; position: number }>();
  await storeTermCounts(
    app,
    review,
    inserted.map(({ id, position }) => {
      const r = records[position]!;
      return {
        id,
        title: r.title.slice(0, 2000),
        abstract: r.abstract?.slice(0, 20_000) ?? null,
        keywords: r.keywords?.slice(0, 4000) ?? null,
      };
    }),
  ).catch((error: unknown) => console.error(`term counts of review ${review.id} not stored`, error));
  return { imported: records.length - duplicatesRemoved, duplicatesRemoved, sourceId, warnings: [] };
}

/** One merge: the duplicate record and the record it was merged into. */
export interface ApiMerge {
  record: { id: number; title: string; year: number | null; doi: string | null; pmid: string | null; origin: string };
  mergedInto: {
    id: number;
    title: string;
    year: number | null;
    doi: string | null;
    pmid: string | null;
    origin: string;
  };
  reason: string | null;
}

/** Every merge of the review (duplicates and what they were merged into). */
export async function listMerges(
  app: ReviewsApp,
  { userId, reviewId }: { userId: string; reviewId: string | undefined },
): Promise<ApiMerge[]> {
  const review = await requireReview(app, { userId, reviewId }, "read");
  const dupes = await app.db
    .select()
    .from(reviewRecords)
    .where(and(eq(reviewRecords.reviewId, review.id), isNotNull(reviewRecords.duplicateOf)))
    .orderBy(asc(reviewRecords.id));
  const keptIds = [...new Set(dupes.map((d) => d.duplicateOf!))];
  const kept = new Map<number, ReviewRecordRow>();
  for (let i = 0; i < keptIds.length; i += 90) {
    const rows = await app.db
      .select()
      .from(reviewRecords)
      .where(inArray(reviewRecords.id, keptIds.slice(i, i + 90)));
    for (const r of rows) kept.set(r.id, r);
  }
  const brief = (r: ReviewRecordRow) => ({
    id: r.id,
    title: r.title,
    year: r.year,
    doi: r.doi,
    pmid: r.pmid,
    origin: r.origin,
  });
  return dupes
    .filter((d) => kept.has(d.duplicateOf!))
    .map((d) => ({ record: brief(d), mergedInto: brief(kept.get(d.duplicateOf!)!), reason: d.duplicateReason }));
}

async function requireRecord(
  app: ReviewsApp,
  review: ReviewRow,
  recordId: string | number | undefined,
): Promise<ReviewRecordRow> {
  const id = typeof recordId === "number" ? recordId : Number(recordId);
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError("RECORD_NOT_FOUND", "Record not found", 404);
  const [row] = await app.db
    .select()
    .from(reviewRecords)
    .where(and(eq(reviewRecords.id, id), eq(reviewRecords.reviewId, review.id)))
    .limit(1);
  if (!row) throw new AppError("RECORD_NOT_FOUND", "Record not found", 404);
  return row;
}
export { requireRecord };

/**
 * requireReview and requireRecord in one D1 round trip (the decision's path, issue 27): the
 * record is read by (id, review id) beside the access check and returned only when that passes.
 * @throws AppError as requireReview, then 404 RECORD_NOT_FOUND.
 */
export async function requireReviewRecord(
  app: ReviewsApp,
  target: { userId: string; reviewId: string | undefined },
  need: ReviewNeed,
  recordId: string | undefined,
): Promise<{ review: ReviewRow; record: ReviewRecordRow }> {
  const id = Number(recordId);
  const access = reviewAccessQuery(app, target);
  if (!Number.isSafeInteger(id) || id <= 0) {
    const review = accessOf((await access)[0], target.userId, need).review;
    return { review, record: await requireRecord(app, review, recordId) };
  }
  const [accessRows, recordRows] = await app.db.batch([
    access,
    app.db
      .select()
      .from(reviewRecords)
      .where(and(eq(reviewRecords.id, id), eq(reviewRecords.reviewId, target.reviewId!)))
      .limit(1),
  ]);
  const review = accessOf(accessRows[0], target.userId, need).review;
  const record = recordRows[0];
  if (!record) throw new AppError("RECORD_NOT_FOUND", "Record not found", 404);
  return { review, record };
}

/**
 * Undoes a merge: the duplicate becomes a unique record again (to be screened) and is never merged
 * automatically again. @throws AppError 404 RECORD_NOT_FOUND; 409 NOT_A_DUPLICATE.
 */
export async function undoMerge(
  app: ReviewsApp,
  { userId, reviewId, recordId }: { userId: string; reviewId: string | undefined; recordId: string | undefined },
): Promise<{ recordId: number }> {
  const review = await requireReview(app, { userId, reviewId }, "owner");
  const record = await requireRecord(app, review, recordId);
  if (record.duplicateOf === null)
    throw new AppError("NOT_A_DUPLICATE", "This record is not merged into another.", 409);
  await app.db.batch([
    app.db
      .update(reviewRecords)
      .set({ duplicateOf: null, duplicateReason: null, notDuplicate: true })
      .where(and(eq(reviewRecords.id, record.id), eq(reviewRecords.reviewId, review.id))),
    app.db.delete(reviewRankings).where(eq(reviewRankings.reviewId, review.id)),
    app.db
      .update(reviews)
      .set({ version: sql`${reviews.version} + 1` })
      .where(eq(reviews.id, review.id)),
  ]);
  return { recordId: record.id };
}

/**
 * Merges a record into another by hand (e.g. to redo an undone merge).
 * @throws AppError 404 RECORD_NOT_FOUND; 409 ALREADY_MERGED / INVALID_MERGE.
 */
export async function mergeRecords(
  app: ReviewsApp,
  {
    userId,
    reviewId,
    recordId,
    intoId,
  }: { userId: string; reviewId: string | undefined; recordId: number; intoId: number },
): Promise<{ recordId: number; mergedInto: number }> {
  const review = await requireReview(app, { userId, reviewId }, "owner");
  const record = await requireRecord(app, review, recordId);
  const into = await requireRecord(app, review, intoId);
  if (record.id === into.id || into.duplicateOf !== null)
    throw new AppError("INVALID_MERGE", "Merge into a different, unique record.", 409);
  if (record.duplicateOf !== null)
    throw new AppError("ALREADY_MERGED", "This record is already merged into another.", 409);
  const pointing = await app.db
    .select({ n: sql<number>`count(*)` })
    .from(reviewRecords)
    .where(eq(reviewRecords.duplicateOf, record.id));
  if (pointing[0]!.n > 0)
    throw new AppError("INVALID_MERGE", "Other records are merged into this one; undo those merges first.", 409);
  await app.db.batch([
    app.db
      .update(reviewRecords)
      .set({ duplicateOf: into.id, duplicateReason: "manual", notDuplicate: false })
      .where(eq(reviewRecords.id, record.id)),
    app.db.delete(reviewRankings).where(eq(reviewRankings.reviewId, review.id)),
    app.db
      .update(reviews)
      .set({ version: sql`${reviews.version} + 1` })
      .where(eq(reviews.id, review.id)),
  ]);
  return { recordId: record.id, mergedInto: into.id };
}

/** Records per page of GET /api/reviews/{id}/records: default and most. */
export const RECORDS_PAGE_DEFAULT = 100;
export const RECORDS_PAGE_MAX = 500;

/**
 * GET /api/reviews/{id}/records query: the filters (stage, decision, duplicates, `source` = a
 * source id, `q` = words every listed record contains in its title, abstract, authors, journal,
 * DOI or PMID, `suggestion=disagrees` = the second screener's suggestion differs from the
 * title/abstract decision) and the page (`limit` 1–500, default 100; `cursor` from the previous
 * page's `nextCursor`).
 */
export const RecordsQuerySchema = z.object({
  stage: z.enum(["title_abstract", "full_text"]).optional(),
  decision: z.enum(["include", "exclude", "maybe", "undecided"]).optional(),
  duplicates: z.enum(["exclude", "include", "only"]).default("exclude"),
  source: z.string().max(64).optional(),
  q: z.string().trim().max(300).optional(),
  suggestion: z.enum(["disagrees"]).optional(),
  limit: z.coerce
    .number()
    .int("limit must be a whole number")
    .min(1, "limit must be at least 1")
    .max(RECORDS_PAGE_MAX, `limit can be at most ${RECORDS_PAGE_MAX}`)
    .default(RECORDS_PAGE_DEFAULT),
  cursor: z.string().max(64).optional(),
});

const CURSOR_PREFIX = "r1.";

/** The opaque cursor after record `id` (base64url of "r1.<id>"). */
export function encodeRecordsCursor(id: number): string {
  return btoa(`${CURSOR_PREFIX}${id}`).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The record id a cursor continues after. @throws AppError 400 INVALID_CURSOR. */
export function decodeRecordsCursor(cursor: string): number {
  let text = "";
  try {
    text = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    text = "";
  }
  const id =
    text.startsWith(CURSOR_PREFIX) && /^\d{1,15}$/.test(text.slice(CURSOR_PREFIX.length))
      ? Number(text.slice(CURSOR_PREFIX.length))
      : 0;
  if (!Number.isSafeInteger(id) || id <= 0) {
    throw new AppError("INVALID_CURSOR", "cursor is not one this listing returned; start again without it.", 400);
  }
  return id;
}

/** Search words of `q`: at most 8, lower-cased (SQLite's LIKE folds ASCII case only). */
const searchTerms = (q: string | undefined): string[] =>
  [...new Set((q ?? "").toLowerCase().split(/\s+/).filter(Boolean))].slice(0, 8);

/** A record row as the API shows it. */
export function toApiRecord(r: ReviewRecordRow): ApiReviewRecord {
  const atFullText = r.taDecision === "include";
  return {
    id: r.id,
    title: r.title,
    abstract: r.abstract,
    doi: r.doi,
    year: r.year,
    stage: atFullText ? "full_text" : "title_abstract",
    decision: atFullText ? r.ftDecision : r.taDecision,
    reason: atFullText ? r.ftReason : r.taReason,
    authors: r.authors,
    journal: r.journal,
    pmid: r.pmid,
    origin: r.origin,
    sourceId: r.sourceId,
    titleAbstract: { decision: r.taDecision, reason: r.taReason },
    fullText: {
      decision: r.ftDecision,
      reason: r.ftReason,
      attached: !!(r.fullText || r.fullTextKey),
      url: r.fullTextUrl,
    },
    duplicateOf: r.duplicateOf,
    duplicateReason: r.duplicateReason,
    suggestion: (r.suggestion as ScreeningSuggestion | null) ?? null,
  };
}

/** One page of the records listing. `total` (records matching the filters) is on the first page only. */
export interface RecordsPage {
  records: ApiReviewRecord[];
  nextCursor: string | null;
  total?: number;
}

/**
 * One page of the review's records in import order (keyset pagination on the record id, so pages
 * stay stable while records are decided or imported). `stage=title_abstract`: every unique record,
 * `decision` filtering its title/abstract decision; `stage=full_text`: the records included at
 * title/abstract, filtered by their full-text decision; no stage: `decision` filters the decision
 * at each record's current stage. `duplicates`: exclude (default), include or only. `source`,
 * `q` and `suggestion` as {@link RecordsQuerySchema}. Decisions are the final ones; in dual
 * screening each record also carries the votes the caller may see.
 * @throws AppError 404; 400 INVALID_CURSOR.
 */
export async function listRecords(
  app: ReviewsApp,
  { userId, reviewId }: { userId: string; reviewId: string | undefined },
  query: z.infer<typeof RecordsQuerySchema>,
): Promise<RecordsPage> {
  const after = query.cursor === undefined ? null : decodeRecordsCursor(query.cursor);
  const review = await requireReview(app, { userId, reviewId }, "read");
  const conds = [eq(reviewRecords.reviewId, review.id)];
  if (query.duplicates === "exclude") conds.push(isNull(reviewRecords.duplicateOf));
  if (query.duplicates === "only") conds.push(isNotNull(reviewRecords.duplicateOf));
  const decided = (col: typeof reviewRecords.taDecision | typeof reviewRecords.ftDecision, d: string) =>
    d === "undecided" ? isNull(col) : sql`${col} = ${d}`;
  if (query.stage === "full_text") {
    conds.push(eq(reviewRecords.taDecision, "include"));
    if (query.decision) conds.push(decided(reviewRecords.ftDecision, query.decision));
  } else if (query.stage === "title_abstract") {
    if (query.decision) conds.push(decided(reviewRecords.taDecision, query.decision));
  } else if (query.decision) {
    const d = query.decision;
    conds.push(
      d === "undecided"
        ? sql`((${reviewRecords.taDecision} = 'include' and ${reviewRecords.ftDecision} is null) or ${reviewRecords.taDecision} is null)`
        : sql`((${reviewRecords.taDecision} = 'include' and ${reviewRecords.ftDecision} = ${d}) or (${reviewRecords.taDecision} is not 'include' and ${reviewRecords.taDecision} = ${d}))`,
    );
  }
  if (query.source) conds.push(eq(reviewRecords.sourceId, query.source));
  if (query.suggestion === "disagrees") {
    conds.push(
      sql`${reviewRecords.taDecision} is not null and ${reviewRecords.suggestion} is not null and json_extract(${reviewRecords.suggestion}, '$.decision') is not ${reviewRecords.taDecision}`,
    );
  }
  // LIKE is case-insensitive for ASCII in SQLite and compares each column in place (no
  // concatenated, lower-cased copy of every row); the term's own % _ \ are escaped.
  for (const term of searchTerms(query.q)) {
    const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const like = (col: AnyColumn) => sql`${col} like ${pattern} escape '\\'`;
    conds.push(
      sql`(${like(reviewRecords.title)} or ${like(reviewRecords.abstract)} or ${like(reviewRecords.authors)} or ${like(reviewRecords.journal)} or ${like(reviewRecords.doi)} or ${like(reviewRecords.pmid)})`,
    );
  }
  const matching = and(...conds);
  // The full text itself stays in D1; the listing only says whether there is one.
  const { fullText: _fullText, ...columns } = getTableColumns(reviewRecords);
  const rows = await app.db
    .select({ ...columns, fullText: sql<string | null>`case when ${reviewRecords.fullText} is not null then '1' end` })
    .from(reviewRecords)
    .where(after === null ? matching : and(matching, gt(reviewRecords.id, after)))
    .orderBy(asc(reviewRecords.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const more = rows.length > query.limit;
  // The first page counts the matches, with a second query only when they do not all fit on it.
  let total: number | undefined;
  if (after === null)
    total = more
      ? (
          await app.db
            .select({ n: sql<number>`count(*)` })
            .from(reviewRecords)
            .where(matching)
        )[0]!.n
      : page.length;
  let records = page.map(toApiRecord);
  if (review.screeningMode === "dual") {
    // Dual screening: each record's votes the caller may see (blind: only their own).
    const onPage = new Set(page.map((r) => r.id));
    const votes = (await currentVotes(app, review.id, review.screeningBlind ? { userId } : {})).filter((v) =>
      onPage.has(v.recordId),
    );
    const byRecord = new Map<number, { titleAbstract: Vote[]; fullText: Vote[] }>();
    for (const v of votes) {
      let entry = byRecord.get(v.recordId);
      if (!entry) byRecord.set(v.recordId, (entry = { titleAbstract: [], fullText: [] }));
      entry[v.stage === "full_text" ? "fullText" : "titleAbstract"].push({
        userId: v.userId,
        decision: v.decision,
        reason: v.reason,
      });
    }
    records = records.map((r) => ({ ...r, votes: byRecord.get(r.id) ?? { titleAbstract: [], fullText: [] } }));
  }
  return {
    records,
    nextCursor: more ? encodeRecordsCursor(page[page.length - 1]!.id) : null,
    ...(total === undefined ? {} : { total }),
  };
}
