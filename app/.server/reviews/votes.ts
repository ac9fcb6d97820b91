/**
 * Dual independent screening (issue 30): reviewers' votes, the record's final decision they give,
 * the conflicts queue and its resolutions.
 *
 * Votes are the rows of review_decisions: a reviewer's current vote on a record at a stage is
 * their latest row there (older rows are the undo history). The record's ta_/ft_decision columns
 * hold the FINAL decision only — set when two votes agree (app/lib/team.ts finalFromVotes) or a
 * conflict is resolved — so PRISMA, the records list and the ranking's labels read final decisions.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import {
  reviewDecisions,
  reviewRecords,
  reviewResolutions,
  reviews,
  users,
  type ReviewRecordRow,
  type ReviewRow,
} from "../../../db/schema";
import { screeningAgreement, type PairAgreement, type StageAgreement } from "~/lib/agreement";
import type { RobAgreement } from "~/lib/risk-of-bias/dual";
import { reviewRobAgreement } from "./rob-submissions";
import type { ScreeningDecision, ScreeningStage } from "~/lib/reviews";
import { finalFromVotes, isConflict, type ApiConflict, type Vote } from "~/lib/team";
import { activityInsert, activityStatement } from "./activity";
import { AppError } from "../http/errors";
import { requireReviewAccess } from "./access";
import { requireRecord, type ReviewsApp } from "./service";

/** Reviewers whose votes a record takes in dual screening. */
export const VOTES_PER_RECORD = 2;

/** A current vote with where it belongs. `id`: its review_decisions row (later = cast later). */
export interface StoredVote extends Vote {
  recordId: number;
  stage: ScreeningStage;
  id: number;
  createdAt: number;
}

/**
 * The current votes of a review (optionally one stage, one record or one reviewer), ordered by
 * record, then by when each was cast.
 */
export async function currentVotes(
  app: Pick<ReviewsApp, "bindings">,
  reviewId: string,
  filter: { stage?: ScreeningStage; recordId?: number; userId?: string } = {},
): Promise<StoredVote[]> {
  const { results } = await app.bindings.DB.prepare(
    `SELECT d.id, d.record_id AS recordId, d.stage, d.user_id AS userId, d.decision, d.reason, d.created_at AS createdAt
     FROM review_decisions d
     WHERE d.review_id = ?1 AND (?2 IS NULL OR d.stage = ?2) AND (?3 IS NULL OR d.record_id = ?3) AND (?4 IS NULL OR d.user_id = ?4)
       AND d.id = (SELECT max(e.id) FROM review_decisions e WHERE e.record_id = d.record_id AND e.stage = d.stage AND e.user_id = d.user_id)
     ORDER BY d.record_id, d.id`,
  )
    .bind(reviewId, filter.stage ?? null, filter.recordId ?? null, filter.userId ?? null)
    .all<StoredVote>();
  return results;
}

/**
 * Writes a record's final decision at a stage from its current votes and resolution (the
 * resolution wins). Optimistic: the write only lands if no vote or resolution changed since they
 * were read (else it reads again), so concurrent votes never leave a stale final decision.
 */
export async function settleRecord(
  app: ReviewsApp,
  reviewId: string,
  recordId: number,
  stage: ScreeningStage,
): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const [votes, [resolution], [latest]] = await Promise.all([
      currentVotes(app, reviewId, { stage, recordId }),
      app.db
        .select()
        .from(reviewResolutions)
        .where(and(eq(reviewResolutions.recordId, recordId), eq(reviewResolutions.stage, stage))),
      app.db
        .select({ id: sql<number | null>`max(${reviewDecisions.id})` })
        .from(reviewDecisions)
        .where(and(eq(reviewDecisions.recordId, recordId), eq(reviewDecisions.stage, stage))),
    ]);
    const final = resolution
      ? { decision: resolution.decision, reason: resolution.reason, at: resolution.createdAt }
      : (() => {
          const f = finalFromVotes(stage, votes.slice(0, VOTES_PER_RECORD));
          return f ? { ...f, at: Math.max(...votes.slice(0, VOTES_PER_RECORD).map((v) => v.createdAt)) } : null;
        })();
    const decision = final?.decision ?? null;
    const reason = decision === "include" ? null : (final?.reason ?? null);
    const at = final?.at ?? null;
    const set =
      stage === "full_text"
        ? { ftDecision: decision, ftReason: reason, ftDecidedAt: at }
        : { taDecision: decision, taReason: reason, taDecidedAt: at };
    const unchanged = sql`coalesce((select max(${reviewDecisions.id}) from ${reviewDecisions} where ${reviewDecisions.recordId} = ${recordId} and ${reviewDecisions.stage} = ${stage}), 0) = ${latest?.id ?? 0}
      and ${resolution ? sql`exists` : sql`not exists`} (select 1 from ${reviewResolutions} where ${reviewResolutions.recordId} = ${recordId} and ${reviewResolutions.stage} = ${stage})`;
    const done = await app.db
      .update(reviewRecords)
      .set(set)
      .where(and(eq(reviewRecords.id, recordId), unchanged))
      .returning({ id: reviewRecords.id });
    if (done.length > 0) return;
  }
  throw new AppError("BUSY", "The record changed while it was being saved; please try again.", 409);
}

/**
 * Records the caller's own vote in dual screening: at most two reviewers vote on a record (a third
 * gets 409 VOTES_COMPLETE; checked inside the INSERT, so two concurrent third votes cannot both
 * land); a reviewer may change their own vote. Then settles the record's final decision.
 */
export async function castVote(
  app: ReviewsApp,
  { review, record, userId }: { review: ReviewRow; record: ReviewRecordRow; userId: string },
  vote: { stage: ScreeningStage; decision: ScreeningDecision; reason: string | null },
  now: number = Date.now(),
): Promise<void> {
  const DB = app.bindings.DB;
  const [inserted] = await DB.batch([
    DB.prepare(
      `INSERT INTO review_decisions (review_id, user_id, record_id, stage, decision, reason, created_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7
       WHERE (SELECT count(DISTINCT user_id) FROM review_decisions WHERE record_id = ?3 AND stage = ?4 AND user_id <> ?2) < ?8
          OR EXISTS (SELECT 1 FROM review_decisions WHERE record_id = ?3 AND stage = ?4 AND user_id = ?2)`,
    ).bind(review.id, userId, record.id, vote.stage, vote.decision, vote.reason, now, VOTES_PER_RECORD),
    DB.prepare("UPDATE reviews SET version = version + 1, updated_at = ?2 WHERE id = ?1").bind(review.id, now),
    activityStatement(
      DB,
      {
        reviewId: review.id,
        userId,
        action: "vote",
        recordId: record.id,
        detail: { stage: vote.stage, decision: vote.decision, reason: vote.reason },
        at: now,
      },
      {
        sql: "EXISTS (SELECT 1 FROM review_decisions WHERE record_id = ? AND stage = ? AND user_id = ? AND created_at = ?)",
        values: [record.id, vote.stage, userId, now],
      },
    ),
  ]);
  if (inserted!.meta.changes === 0) {
    throw new AppError("VOTES_COMPLETE", "Two reviewers have already screened this record.", 409);
  }
  await settleRecord(app, review.id, record.id, vote.stage);
}

/** GET /api/reviews/{id}/conflicts query. */
export const ConflictsQuerySchema = z.object({ stage: z.enum(["title_abstract", "full_text"]).optional() });

/**
 * The conflicts queue: records whose two votes disagree (include or maybe vs exclude; at full
 * text also two exclusions for different reasons) and that nobody has resolved yet, oldest record
 * first, with both votes. Any member may read it: both votes are cast, so it reveals no vote to
 * someone who could still vote on the record. Full-text conflicts only for records included at
 * title/abstract. @throws AppError 404 REVIEW_NOT_FOUND.
 */
export async function listConflicts(
  app: ReviewsApp,
  target: { userId: string; reviewId: string | undefined },
  query: z.infer<typeof ConflictsQuerySchema>,
): Promise<ApiConflict[]> {
  const { review } = await requireReviewAccess(app, target, "read");
  return conflictsOf(app, review.id, query.stage);
}

/** The unresolved conflicts of a review (all stages, or one). */
export async function conflictsOf(app: ReviewsApp, reviewId: string, stage?: ScreeningStage): Promise<ApiConflict[]> {
  const [votes, records, resolved] = await Promise.all([
    currentVotes(app, reviewId, { stage }),
    app.bindings.DB.prepare(
      `SELECT id, title, ta_decision AS taDecision FROM review_records WHERE review_id = ?1 AND duplicate_of IS NULL
         AND id IN (SELECT record_id FROM review_decisions WHERE review_id = ?1 GROUP BY record_id, stage HAVING count(DISTINCT user_id) >= 2)`,
    )
      .bind(reviewId)
      .all<{ id: number; title: string; taDecision: string | null }>(),
    app.db
      .select({ recordId: reviewResolutions.recordId, stage: reviewResolutions.stage })
      .from(reviewResolutions)
      .where(eq(reviewResolutions.reviewId, reviewId)),
  ]);
  const byId = new Map(records.results.map((r) => [r.id, r]));
  const done = new Set(resolved.map((r) => `${r.recordId}:${r.stage}`));
  const groups = new Map<string, StoredVote[]>();
  for (const v of votes) {
    const key = `${v.recordId}:${v.stage}`;
    const list = groups.get(key);
    if (list) list.push(v);
    else groups.set(key, [v]);
  }
  const out: ApiConflict[] = [];
  for (const [key, list] of groups) {
    const first = list[0]!;
    const record = byId.get(first.recordId);
    if (!record || done.has(key)) continue;
    if (first.stage === "full_text" && record.taDecision !== "include") continue;
    const pair = list.slice(0, VOTES_PER_RECORD);
    if (!isConflict(first.stage, pair)) continue;
    out.push({
      recordId: record.id,
      title: record.title,
      stage: first.stage,
      votes: pair.map((v) => ({ userId: v.userId, decision: v.decision, reason: v.reason })),
    });
  }
  return out.sort((a, b) => (a.stage === b.stage ? a.recordId - b.recordId : a.stage === "title_abstract" ? -1 : 1));
}

/** POST /api/reviews/{id}/records/{recordId}/resolve body. */
export const ResolveSchema = z.object({
  stage: z.enum(["title_abstract", "full_text"], { error: "stage must be 'title_abstract' or 'full_text'" }),
  decision: z.enum(["include", "exclude", "maybe"], { error: "decision must be 'include', 'exclude' or 'maybe'" }),
  reason: z.string().trim().max(300).optional().nullable(),
});

/**
 * Resolves a conflict: the owner or a member the owner named resolver records the final decision;
 * both votes stay in the history and the resolution is kept (who, when). A resolution may be
 * changed later by resolving again. Full-text exclusions need a reason.
 * @throws AppError 404 REVIEW_NOT_FOUND / RECORD_NOT_FOUND; 403 FORBIDDEN_ROLE (not the owner or a
 * resolver); 400 REASON_REQUIRED; 409 NOT_IN_CONFLICT (votes agree or are not both cast).
 */
export async function resolveConflict(
  app: ReviewsApp,
  { userId, reviewId, recordId }: { userId: string; reviewId: string | undefined; recordId: string | undefined },
  input: z.infer<typeof ResolveSchema>,
  now: number = Date.now(),
): Promise<{
  recordId: number;
  stage: ScreeningStage;
  decision: ScreeningDecision;
  reason: string | null;
  votes: Vote[];
}> {
  const access = await requireReviewAccess(app, { userId, reviewId }, "write");
  if (!access.resolver)
    throw new AppError("FORBIDDEN_ROLE", "Only the owner or a member named resolver can resolve conflicts.", 403, {
      role: access.role,
    });
  const review = access.review;
  const record = await requireRecord(app, review, recordId);
  const reason = input.reason?.trim() || null;
  if (input.stage === "full_text" && input.decision === "exclude" && !reason) {
    throw new AppError("REASON_REQUIRED", "Give a reason to exclude a report at full text.", 400);
  }
  const votes = (await currentVotes(app, review.id, { stage: input.stage, recordId: record.id })).slice(
    0,
    VOTES_PER_RECORD,
  );
  const [already] = await app.db
    .select({ recordId: reviewResolutions.recordId })
    .from(reviewResolutions)
    .where(and(eq(reviewResolutions.recordId, record.id), eq(reviewResolutions.stage, input.stage)));
  if (!already && !isConflict(input.stage, votes)) {
    throw new AppError("NOT_IN_CONFLICT", "This record has no conflict to resolve at this stage.", 409);
  }
  const stored = { decision: input.decision, reason: input.decision === "include" ? null : reason };
  await app.db.batch([
    app.db
      .insert(reviewResolutions)
      .values({ reviewId: review.id, recordId: record.id, stage: input.stage, userId, ...stored, createdAt: now })
      .onConflictDoUpdate({
        target: [reviewResolutions.recordId, reviewResolutions.stage],
        set: { userId, ...stored, createdAt: now },
      }),
    app.db
      .update(reviews)
      .set({ version: sql`${reviews.version} + 1`, updatedAt: now })
      .where(eq(reviews.id, review.id)),
    activityInsert(app.db, {
      reviewId: review.id,
      userId,
      action: "resolve",
      recordId: record.id,
      detail: { stage: input.stage, ...stored },
      at: now,
    }),
  ]);
  await settleRecord(app, review.id, record.id, input.stage);
  return {
    recordId: record.id,
    stage: input.stage,
    ...stored,
    votes: votes.map((v) => ({ userId: v.userId, decision: v.decision, reason: v.reason })),
  };
}

/**
 * GET /api/reviews/{id}/agreement: screening agreement per stage from the reviewers' current
 * votes (app/lib/agreement.ts: records both screened, percent agreement, Cohen's κ with its 95%
 * CI, the 2×2 table; 'maybe' counts as include), overall and per pair of reviewers, each pair
 * with the reviewers' e-mails; and `riskOfBias`: dual RoB 2 agreement per domain and overall
 * (unweighted κ over Low / Some concerns / High, ./rob-submissions.ts reviewRobAgreement).
 * Aggregates only: it shows no record's votes or answers.
 * @throws AppError 404 REVIEW_NOT_FOUND.
 */
export async function reviewAgreement(
  app: ReviewsApp,
  target: { userId: string; reviewId: string | undefined },
): Promise<{ titleAbstract: AgreementWithEmails; fullText: AgreementWithEmails; riskOfBias: RobAgreement }> {
  const { review } = await requireReviewAccess(app, target, "read");
  const [votes, riskOfBias] = await Promise.all([currentVotes(app, review.id), reviewRobAgreement(app, review.id)]);
  const ids = [...new Set(votes.map((v) => v.userId))];
  const emails = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 90) {
    const rows = await app.db
      .select({ id: users.id, email: users.email })
      .from(users)
      .where(inArray(users.id, ids.slice(i, i + 90)));
    for (const r of rows) emails.set(r.id, r.email);
  }
  const stageOf = (stage: ScreeningStage): AgreementWithEmails => {
    const result = screeningAgreement(votes.filter((v) => v.stage === stage));
    return {
      ...result,
      pairs: result.pairs.map((p) => ({
        ...p,
        emails: [emails.get(p.reviewers[0]) ?? "", emails.get(p.reviewers[1]) ?? ""] as [string, string],
      })),
    };
  };
  return { titleAbstract: stageOf("title_abstract"), fullText: stageOf("full_text"), riskOfBias };
}

/** A stage's agreement with each pair's e-mails. */
export type AgreementWithEmails = Omit<StageAgreement, "pairs"> & {
  pairs: (PairAgreement & { emails: [string, string] })[];
};
