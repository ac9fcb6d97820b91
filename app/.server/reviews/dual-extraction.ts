/**
 * Dual data extraction (issue 30 item 5): in a review whose extraction mode is 'dual', two
 * reviewers submit each included study's arm-level values for an outcome independently
 * (review_extraction_submissions: a snapshot of the values each sees — MetaMind's extraction with
 * their own corrections); blind: nobody sees another's values before submitting their own (or
 * before both are in, for the owner, a resolver or a viewer); the owner or a named resolver
 * records consensus values for the cells that differ (review_extraction_consensus: latest per cell
 * counts, each with who and when). The analysis and the exports use the consensus values only.
 */
import { and, asc, eq, inArray, like, sql } from "drizzle-orm";
import { z } from "zod";
import {
  extractionEdits,
  reviewExtractionConsensus,
  reviewExtractionSubmissions,
  reviewOutcomes,
  reviewRecords,
  users,
  type ReviewRow,
} from "../../../db/schema";
import type { ArmField, ArmKey } from "~/lib/arms";
import {
  type ConsensusCell,
  consensusValues,
  differingCells,
  type DualExtractionStudy,
  EXTRACTION_ARMS,
  EXTRACTION_FIELDS,
  EXTRACTORS_PER_STUDY,
  valueProblem,
} from "~/lib/dual-extraction";
import { activityInsert, activityStatement } from "./activity";
import { requireReviewAccess } from "./access";
import { AppError } from "../http/errors";
import { requireRecord, type ReviewsApp } from "./service";

const cellValue = z.number().refine(Number.isFinite, "must be a finite number").nullable();
const ArmValuesSchema = z.object({ events: cellValue, groupSize: cellValue, mean: cellValue, sd: cellValue }).strict();
const arm = z.enum(["intervention", "comparator"]);
const field = z.enum(["events", "groupSize", "mean", "sd"]);

/** POST /api/reviews/{id}/outcomes/{outcomeId}/submissions body: the caller's values for one study. */
export const SubmissionSchema = z
  .object({
    recordId: z.number().int().positive(),
    values: z.object({ intervention: ArmValuesSchema, comparator: ArmValuesSchema }).strict(),
  })
  .strict();
/** POST /api/reviews/{id}/outcomes/{outcomeId}/consensus body: consensus values of one study's cells. */
export const ConsensusSchema = z
  .object({
    recordId: z.number().int().positive(),
    cells: z
      .array(z.object({ arm, field, value: cellValue }).strict())
      .min(1)
      .max(8),
  })
  .strict();

function checkValues(cells: { field: ArmField; value: number | null }[]): void {
  for (const c of cells) {
    const problem = valueProblem(c.field, c.value);
    if (problem) throw new AppError("INVALID_INPUT", `${c.field}: ${problem}`, 400);
  }
}

/** The review (in dual extraction), the outcome and the record included at full text. */
async function requireDualStudy(
  app: ReviewsApp,
  target: { userId: string; reviewId: string | undefined; outcomeId: string | undefined },
  recordId: number,
) {
  const access = await requireReviewAccess(app, target, "write");
  const review = access.review;
  const id = Number(target.outcomeId);
  const [outcome] =
    Number.isSafeInteger(id) && id > 0
      ? await app.db
          .select()
          .from(reviewOutcomes)
          .where(and(eq(reviewOutcomes.id, id), eq(reviewOutcomes.reviewId, review.id)))
          .limit(1)
      : [];
  if (!outcome) throw new AppError("OUTCOME_NOT_FOUND", "Outcome not found", 404);
  const record = await requireRecord(app, review, String(recordId));
  if (review.extractionMode !== "dual")
    throw new AppError(
      "EXTRACTION_NOT_DUAL",
      "This review's data extraction is single: switch it to dual in the Team tab first.",
      409,
    );
  if (record.duplicateOf !== null || record.taDecision !== "include" || record.ftDecision !== "include") {
    throw new AppError("NOT_INCLUDED", "Only studies included at full text are extracted.", 409);
  }
  return { access, review, outcome, record };
}

/**
 * Stores the caller's values of one study for one outcome (dual extraction). At most two
 * reviewers submit per study (a third gets 409 EXTRACTIONS_COMPLETE; checked inside the INSERT);
 * a reviewer may re-submit until the other has submitted (then 409 EXTRACTION_LOCKED: the
 * differences go to consensus). Writes its activity entry in the same batch.
 * @throws AppError 404 REVIEW_NOT_FOUND / OUTCOME_NOT_FOUND / RECORD_NOT_FOUND; 403 FORBIDDEN_ROLE;
 * 409 EXTRACTION_NOT_DUAL / NOT_INCLUDED / EXTRACTIONS_COMPLETE / EXTRACTION_LOCKED; 400 INVALID_INPUT.
 */
export async function submitExtraction(
  app: ReviewsApp,
  target: { userId: string; reviewId: string | undefined; outcomeId: string | undefined },
  input: z.infer<typeof SubmissionSchema>,
  now: number = Date.now(),
): Promise<DualExtractionStudy> {
  checkValues(EXTRACTION_ARMS.flatMap((a) => EXTRACTION_FIELDS.map((f) => ({ field: f, value: input.values[a][f] }))));
  const { review, outcome, record } = await requireDualStudy(app, target, input.recordId);
  const DB = app.bindings.DB;
  const others =
    "(SELECT count(*) FROM review_extraction_submissions WHERE outcome_id = ?2 AND record_id = ?3 AND user_id <> ?4)";
  const mine =
    "EXISTS (SELECT 1 FROM review_extraction_submissions WHERE outcome_id = ?2 AND record_id = ?3 AND user_id = ?4)";
  const [inserted] = await DB.batch([
    DB.prepare(
      `INSERT INTO review_extraction_submissions (review_id, outcome_id, record_id, user_id, "values", submitted_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE (NOT ${mine} AND ${others} < ?7) OR (${mine} AND ${others} = 0)
       ON CONFLICT (outcome_id, record_id, user_id) DO UPDATE SET "values" = excluded."values", submitted_at = excluded.submitted_at`,
    ).bind(review.id, outcome.id, record.id, target.userId, JSON.stringify(input.values), now, EXTRACTORS_PER_STUDY),
    activityStatement(
      DB,
      {
        reviewId: review.id,
        userId: target.userId,
        action: "extraction.submit",
        recordId: record.id,
        detail: { outcome: outcome.name, outcomeId: outcome.id },
        at: now,
      },
      {
        sql: "EXISTS (SELECT 1 FROM review_extraction_submissions WHERE outcome_id = ? AND record_id = ? AND user_id = ? AND submitted_at = ?)",
        values: [outcome.id, record.id, target.userId, now],
      },
    ),
  ]);
  if (inserted!.meta.changes === 0) {
    const [{ n } = { n: 0 }] = await app.db
      .select({ n: sql<number>`count(*)` })
      .from(reviewExtractionSubmissions)
      .where(
        and(eq(reviewExtractionSubmissions.outcomeId, outcome.id), eq(reviewExtractionSubmissions.recordId, record.id)),
      );
    if (n >= EXTRACTORS_PER_STUDY && !(await hasSubmitted(app, outcome.id, record.id, target.userId))) {
      throw new AppError("EXTRACTIONS_COMPLETE", "Two reviewers have already extracted this study.", 409);
    }
    throw new AppError("EXTRACTION_LOCKED", "Both extractions are in: differences are settled by consensus now.", 409);
  }
  return (await dualStudies(app, outcome.id, target.userId, [record.id])).get(record.id)!;
}

async function hasSubmitted(app: ReviewsApp, outcomeId: number, recordId: number, userId: string): Promise<boolean> {
  const rows = await app.db
    .select({ userId: reviewExtractionSubmissions.userId })
    .from(reviewExtractionSubmissions)
    .where(
      and(
        eq(reviewExtractionSubmissions.outcomeId, outcomeId),
        eq(reviewExtractionSubmissions.recordId, recordId),
        eq(reviewExtractionSubmissions.userId, userId),
      ),
    );
  return rows.length > 0;
}

/**
 * Records consensus values of one study's cells (owner or a named resolver), once both
 * extractions are in. Each value is kept with who and when; a later value of a cell supersedes
 * the earlier one (both stay in the audit trail). Writes its activity entry in the same batch.
 * @throws AppError 404; 403 FORBIDDEN_ROLE (not the owner or a resolver); 409 EXTRACTION_NOT_DUAL /
 * NOT_INCLUDED / EXTRACTION_INCOMPLETE (fewer than two submissions); 400 INVALID_INPUT.
 */
export async function recordConsensus(
  app: ReviewsApp,
  target: { userId: string; reviewId: string | undefined; outcomeId: string | undefined },
  input: z.infer<typeof ConsensusSchema>,
  now: number = Date.now(),
): Promise<DualExtractionStudy> {
  checkValues(input.cells);
  const { access, review, outcome, record } = await requireDualStudy(app, target, input.recordId);
  if (!access.resolver)
    throw new AppError(
      "FORBIDDEN_ROLE",
      "Only the owner or a member named resolver can record consensus values.",
      403,
      { role: access.role },
    );
  const [{ n } = { n: 0 }] = await app.db
    .select({ n: sql<number>`count(*)` })
    .from(reviewExtractionSubmissions)
    .where(
      and(eq(reviewExtractionSubmissions.outcomeId, outcome.id), eq(reviewExtractionSubmissions.recordId, record.id)),
    );
  if (n < EXTRACTORS_PER_STUDY)
    throw new AppError(
      "EXTRACTION_INCOMPLETE",
      "Both reviewers must submit their extraction before a consensus is recorded.",
      409,
    );
  await app.db.batch([
    app.db.insert(reviewExtractionConsensus).values(
      input.cells.map((c) => ({
        reviewId: review.id,
        outcomeId: outcome.id,
        recordId: record.id,
        arm: c.arm,
        field: c.field,
        value: c.value,
        userId: target.userId,
        createdAt: now,
      })),
    ),
    activityInsert(app.db, {
      reviewId: review.id,
      userId: target.userId,
      action: "extraction.consensus",
      recordId: record.id,
      detail: { outcome: outcome.name, outcomeId: outcome.id, cells: input.cells },
      at: now,
    }),
  ]);
  return (await dualStudies(app, outcome.id, target.userId, [record.id])).get(record.id)!;
}

/**
 * The dual-extraction state of the given studies for one outcome, as `readerId` may see it: their
 * own submission always; another's values only once the reader has submitted or both are in
 * (blind); the differing cells, the latest consensus per cell and the consensus values once both
 * are in.
 */
export async function dualStudies(
  app: Pick<ReviewsApp, "db">,
  outcomeId: number,
  readerId: string,
  recordIds: number[],
): Promise<Map<number, DualExtractionStudy>> {
  const out = new Map<number, DualExtractionStudy>();
  if (!recordIds.length) return out;
  const [subs, cells] = await Promise.all([
    app.db
      .select({ row: reviewExtractionSubmissions, email: users.email })
      .from(reviewExtractionSubmissions)
      .innerJoin(users, eq(users.id, reviewExtractionSubmissions.userId))
      .where(
        and(
          eq(reviewExtractionSubmissions.outcomeId, outcomeId),
          inArray(reviewExtractionSubmissions.recordId, recordIds),
        ),
      )
      .orderBy(asc(reviewExtractionSubmissions.submittedAt)),
    app.db
      .select({ row: reviewExtractionConsensus, email: users.email })
      .from(reviewExtractionConsensus)
      .innerJoin(users, eq(users.id, reviewExtractionConsensus.userId))
      .where(
        and(eq(reviewExtractionConsensus.outcomeId, outcomeId), inArray(reviewExtractionConsensus.recordId, recordIds)),
      )
      .orderBy(asc(reviewExtractionConsensus.id)),
  ]);
  for (const recordId of recordIds) {
    const mineSubs = subs.filter((s) => s.row.recordId === recordId);
    const mine = mineSubs.some((s) => s.row.userId === readerId);
    const both = mineSubs.length >= EXTRACTORS_PER_STUDY;
    const revealed = both || mine;
    const latest = new Map<string, ConsensusCell>();
    if (both) {
      for (const c of cells.filter((x) => x.row.recordId === recordId)) {
        latest.set(`${c.row.arm}.${c.row.field}`, {
          arm: c.row.arm,
          field: c.row.field,
          value: c.row.value,
          userId: c.row.userId,
          email: c.email,
          at: new Date(c.row.createdAt).toISOString(),
        });
      }
    }
    const consensus = [...latest.values()];
    const values = both ? mineSubs.map((s) => s.row.values) : [];
    out.set(recordId, {
      submissions: mineSubs.map((s) => ({
        userId: s.row.userId,
        email: s.email,
        submittedAt: new Date(s.row.submittedAt).toISOString(),
        values: revealed || s.row.userId === readerId ? s.row.values : null,
      })),
      mine,
      revealed,
      differing: both ? differingCells(values[0]!, values[1]!) : [],
      consensus,
      values: both ? consensusValues(values, consensus) : null,
    });
  }
  return out;
}

/** One row of the dual-extraction audit trail in the exports. */
export interface DualExtractionAuditRow {
  outcome: string;
  recordId: number;
  title: string;
  arm: ArmKey;
  field: ArmField;
  /** The two submissions' values (reviewer e-mail, value, when), in submission order. */
  extractions: { email: string; value: number | null; submittedAt: string }[];
  differs: boolean;
  /** Every consensus value recorded for the cell, oldest first. */
  consensusHistory: { email: string; value: number | null; at: string }[];
  /** The value the analysis uses (null: not reported, or no consensus yet — see `settled`). */
  consensus: number | null;
  settled: boolean;
}

/**
 * The dual-extraction audit trail of a review for its exports: for each outcome and each study
 * that both reviewers have extracted, every cell with both values, whether they differ, every
 * consensus value recorded (who, when) and the value the analysis uses. Studies with one
 * submission are left out (blind: no export shows a value before both are in).
 */
export async function dualExtractionAudit(
  app: Pick<ReviewsApp, "db">,
  reviewId: string,
): Promise<DualExtractionAuditRow[]> {
  const [subs, cells] = await Promise.all([
    app.db
      .select({
        row: reviewExtractionSubmissions,
        email: users.email,
        outcome: reviewOutcomes.name,
        title: reviewRecords.title,
      })
      .from(reviewExtractionSubmissions)
      .innerJoin(users, eq(users.id, reviewExtractionSubmissions.userId))
      .innerJoin(reviewOutcomes, eq(reviewOutcomes.id, reviewExtractionSubmissions.outcomeId))
      .innerJoin(reviewRecords, eq(reviewRecords.id, reviewExtractionSubmissions.recordId))
      .where(eq(reviewExtractionSubmissions.reviewId, reviewId))
      .orderBy(
        asc(reviewExtractionSubmissions.outcomeId),
        asc(reviewExtractionSubmissions.recordId),
        asc(reviewExtractionSubmissions.submittedAt),
      ),
    app.db
      .select({ row: reviewExtractionConsensus, email: users.email })
      .from(reviewExtractionConsensus)
      .innerJoin(users, eq(users.id, reviewExtractionConsensus.userId))
      .where(eq(reviewExtractionConsensus.reviewId, reviewId))
      .orderBy(asc(reviewExtractionConsensus.id)),
  ]);
  const studies = new Map<string, typeof subs>();
  for (const s of subs) {
    const key = `${s.row.outcomeId}|${s.row.recordId}`;
    studies.set(key, [...(studies.get(key) ?? []), s]);
  }
  const out: DualExtractionAuditRow[] = [];
  for (const pair of studies.values()) {
    if (pair.length < EXTRACTORS_PER_STUDY) continue;
    const first = pair[0]!;
    const history = cells.filter(
      (c) => c.row.outcomeId === first.row.outcomeId && c.row.recordId === first.row.recordId,
    );
    for (const a of EXTRACTION_ARMS) {
      for (const f of EXTRACTION_FIELDS) {
        const cellHistory = history.filter((c) => c.row.arm === a && c.row.field === f);
        const values = pair.map((p) => p.row.values[a][f]);
        const differs = values[0] !== values[1];
        const settled = !differs || cellHistory.length > 0;
        out.push({
          outcome: first.outcome,
          recordId: first.row.recordId,
          title: first.title,
          arm: a,
          field: f,
          extractions: pair.map((p) => ({
            email: p.email,
            value: p.row.values[a][f],
            submittedAt: new Date(p.row.submittedAt).toISOString(),
          })),
          differs,
          consensusHistory: cellHistory.map((c) => ({
            email: c.email,
            value: c.row.value,
            at: new Date(c.row.createdAt).toISOString(),
          })),
          consensus: settled ? (cellHistory.at(-1)?.row.value ?? values[0]!) : null,
          settled,
        });
      }
    }
  }
  return out;
}

/**
 * Studies × outcomes each member extracted: dual mode, their submissions; single mode, the
 * studies and outcomes they corrected at least one value of.
 */
export async function extractedByMember(app: Pick<ReviewsApp, "db">, review: ReviewRow): Promise<Map<string, number>> {
  const rows =
    review.extractionMode === "dual"
      ? await app.db
          .select({ userId: reviewExtractionSubmissions.userId, n: sql<number>`count(*)` })
          .from(reviewExtractionSubmissions)
          .where(eq(reviewExtractionSubmissions.reviewId, review.id))
          .groupBy(reviewExtractionSubmissions.userId)
      : await app.db
          .select({
            userId: extractionEdits.userId,
            n: sql<number>`count(distinct ${extractionEdits.studyKey} || '|' || ${extractionEdits.outcome})`,
          })
          .from(extractionEdits)
          .where(like(extractionEdits.studyKey, `review:${review.id}:%`))
          .groupBy(extractionEdits.userId);
  return new Map(rows.map((r) => [r.userId, r.n]));
}
