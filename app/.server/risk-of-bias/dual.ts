/**
 * Dual independent RoB 2 assessment (issue 30 item 5), built like dual data extraction
 * (../reviews/dual-extraction.ts): in a review whose RoB mode is 'dual', two reviewers each submit
 * their own RoB 2 assessment of a study × outcome (review_rob_submissions: answers, support,
 * overrides, the algorithm's proposal and the final judgements); blind: nobody sees another's
 * assessment before both are in; the owner or a named resolver records the consensus assessment
 * (review_rob_consensus: every recording with who and when; the latest is copied into
 * risk_of_bias_assessments, which the robvis plots and CSV, the RoB column, the RoB sensitivity
 * analysis, GRADE and the Summary of Findings read).
 */
import { and, asc, eq, sql } from "drizzle-orm";
import {
  reviewOutcomes,
  reviewRecords,
  reviewRobConsensus,
  reviewRobSubmissions,
  riskOfBiasAssessments,
  users,
  type ReviewRow,
} from "../../../db/schema";
import {
  type ApiRobConsensus,
  type ApiRobDualStudy,
  ASSESSORS_PER_STUDY,
  type RobAssessmentContent,
  robDifferences,
  type RobDifferences,
  ROB_JUDGEMENT_KEYS,
  VARIANT_LABEL,
} from "~/lib/risk-of-bias/dual";
import { askedQuestions } from "~/lib/risk-of-bias/rob2";
import type { AppServices } from "../context";
import { AppError } from "../http/errors";
import { requireReviewAccess } from "../reviews/access";
import { activityInsert, activityStatement } from "../reviews/activity";
import { requireRecord } from "../reviews/service";
import { type AssessmentInput, judgeAssessment, requireIncluded, requireOutcomeOf } from "./assessments";

type RobApp = Pick<AppServices, "db" | "bindings">;
type Target = {
  userId: string;
  reviewId: string | undefined;
  recordId: string | undefined;
  outcomeId: string | undefined;
};

/** The review (in dual RoB mode), the outcome and the record included at full text. */
async function requireDualStudy(app: RobApp, target: Target) {
  const access = await requireReviewAccess(app, target, "write");
  const review = access.review;
  const record = await requireRecord(app, review, target.recordId);
  requireIncluded(record);
  const outcome = await requireOutcomeOf(app, review.id, target.outcomeId);
  if (review.robMode !== "dual")
    throw new AppError(
      "ROB_NOT_DUAL",
      "This review's risk-of-bias assessment is single: switch it to dual in the Team tab first.",
      409,
    );
  return { access, review, outcome, record };
}

const toIso = (ms: number) => new Date(ms).toISOString();

/**
 * Stores the caller's own RoB 2 assessment of one study × outcome (dual mode). At most two
 * reviewers per study × outcome (a third gets 409 ASSESSMENTS_COMPLETE; checked inside the
 * INSERT); a reviewer may re-submit until the other has submitted (then 409 ASSESSMENT_LOCKED:
 * differences go to consensus). Writes its activity entry (no answers) in the same batch.
 * @throws AppError 404 REVIEW_NOT_FOUND / RECORD_NOT_FOUND / OUTCOME_NOT_FOUND; 403 FORBIDDEN_ROLE;
 * 409 RECORD_NOT_INCLUDED / ROB_NOT_DUAL / ASSESSMENTS_COMPLETE / ASSESSMENT_LOCKED; 400
 * ANSWERS_INCOMPLETE / INVALID_INPUT / INVALID_OVERRIDE.
 */
export async function submitRobAssessment(
  app: RobApp,
  target: Target,
  input: AssessmentInput,
  now: number = Date.now(),
): Promise<ApiRobDualStudy> {
  const { review, outcome, record } = await requireDualStudy(app, target);
  const { proposed, final } = judgeAssessment(input);
  const DB = app.bindings.DB;
  const others =
    "(SELECT count(*) FROM review_rob_submissions WHERE outcome_id = ?2 AND record_id = ?3 AND user_id <> ?4)";
  const mine =
    "EXISTS (SELECT 1 FROM review_rob_submissions WHERE outcome_id = ?2 AND record_id = ?3 AND user_id = ?4)";
  const [inserted] = await DB.batch([
    DB.prepare(
      `INSERT INTO review_rob_submissions (review_id, outcome_id, record_id, user_id, variant, answers, support, proposed, overrides, final, submitted_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11 WHERE (NOT ${mine} AND ${others} < ?12) OR (${mine} AND ${others} = 0)
       ON CONFLICT (outcome_id, record_id, user_id) DO UPDATE SET variant = excluded.variant, answers = excluded.answers, support = excluded.support,
         proposed = excluded.proposed, overrides = excluded.overrides, final = excluded.final, submitted_at = excluded.submitted_at`,
    ).bind(
      review.id,
      outcome.id,
      record.id,
      target.userId,
      input.variant,
      JSON.stringify(input.answers),
      JSON.stringify(input.support),
      JSON.stringify(proposed),
      JSON.stringify(input.overrides),
      JSON.stringify(final),
      now,
      ASSESSORS_PER_STUDY,
    ),
    activityStatement(
      DB,
      {
        reviewId: review.id,
        userId: target.userId,
        action: "rob.submit",
        recordId: record.id,
        detail: { outcome: outcome.name, outcomeId: outcome.id },
        at: now,
      },
      {
        sql: "EXISTS (SELECT 1 FROM review_rob_submissions WHERE outcome_id = ? AND record_id = ? AND user_id = ? AND submitted_at = ?)",
        values: [outcome.id, record.id, target.userId, now],
      },
    ),
  ]);
  if (inserted!.meta.changes === 0) {
    const rows = await app.db
      .select({ userId: reviewRobSubmissions.userId })
      .from(reviewRobSubmissions)
      .where(and(eq(reviewRobSubmissions.outcomeId, outcome.id), eq(reviewRobSubmissions.recordId, record.id)));
    if (rows.length >= ASSESSORS_PER_STUDY && !rows.some((r) => r.userId === target.userId)) {
      throw new AppError(
        "ASSESSMENTS_COMPLETE",
        "Two reviewers have already assessed this study for this outcome.",
        409,
      );
    }
    throw new AppError(
      "ASSESSMENT_LOCKED",
      "Both assessments are in: differences are settled by the consensus assessment now.",
      409,
    );
  }
  return (await robDualStudies(app, review, target.userId, { outcomeId: outcome.id, recordId: record.id }))[0]!;
}

/**
 * Records the consensus RoB 2 assessment of one study × outcome (owner or a named resolver), once
 * both assessments are in. Kept with who and when; a later consensus supersedes the earlier one
 * (both stay in the history). The consensus is written to risk_of_bias_assessments in the same
 * batch, with its activity entry.
 * @throws AppError 404; 403 FORBIDDEN_ROLE (not the owner or a resolver); 409 RECORD_NOT_INCLUDED /
 * ROB_NOT_DUAL / ASSESSMENT_INCOMPLETE (fewer than two assessments); 400 as for a submission.
 */
export async function recordRobConsensus(
  app: RobApp,
  target: Target,
  input: AssessmentInput,
  now: number = Date.now(),
): Promise<ApiRobDualStudy> {
  const { access, review, outcome, record } = await requireDualStudy(app, target);
  if (!access.resolver)
    throw new AppError(
      "FORBIDDEN_ROLE",
      "Only the owner or a member named resolver can record the consensus assessment.",
      403,
      { role: access.role },
    );
  const { proposed, final } = judgeAssessment(input);
  const [[{ n } = { n: 0 }], [user]] = await Promise.all([
    app.db
      .select({ n: sql<number>`count(*)` })
      .from(reviewRobSubmissions)
      .where(and(eq(reviewRobSubmissions.outcomeId, outcome.id), eq(reviewRobSubmissions.recordId, record.id))),
    app.db.select({ email: users.email }).from(users).where(eq(users.id, target.userId)).limit(1),
  ]);
  if (n < ASSESSORS_PER_STUDY)
    throw new AppError(
      "ASSESSMENT_INCOMPLETE",
      "Both reviewers must submit their assessment before the consensus is recorded.",
      409,
    );
  const content = {
    variant: input.variant,
    answers: input.answers,
    support: input.support,
    proposed,
    overrides: input.overrides,
    final,
  };
  const assessed = { ...content, assessedBy: user?.email ?? target.userId, updatedAt: now };
  await app.db.batch([
    app.db.insert(reviewRobConsensus).values({
      reviewId: review.id,
      outcomeId: outcome.id,
      recordId: record.id,
      userId: target.userId,
      ...content,
      createdAt: now,
    }),
    app.db
      .insert(riskOfBiasAssessments)
      .values({
        reviewId: review.id,
        userId: review.userId,
        recordId: record.id,
        outcomeId: outcome.id,
        createdAt: now,
        ...assessed,
      })
      .onConflictDoUpdate({
        target: [riskOfBiasAssessments.reviewId, riskOfBiasAssessments.recordId, riskOfBiasAssessments.outcomeId],
        set: assessed,
      }),
    activityInsert(app.db, {
      reviewId: review.id,
      userId: target.userId,
      action: "rob.consensus",
      recordId: record.id,
      detail: { outcome: outcome.name, outcomeId: outcome.id, final },
      at: now,
    }),
  ]);
  return (await robDualStudies(app, review, target.userId, { outcomeId: outcome.id, recordId: record.id }))[0]!;
}

const contentOf = (row: RobAssessmentContent): RobAssessmentContent => ({
  variant: row.variant,
  answers: row.answers,
  support: row.support,
  proposed: row.proposed,
  overrides: row.overrides,
  final: row.final,
});

/**
 * The dual-assessment state of a review's studies × outcomes that have at least one submission
 * (optionally one study × outcome), as `readerId` may see it: their own assessment always;
 * another's only once both are in (blind, for every role); the differences, the latest consensus
 * and its history once both are in.
 */
export async function robDualStudies(
  app: Pick<RobApp, "db">,
  review: Pick<ReviewRow, "id">,
  readerId: string,
  only?: { outcomeId: number; recordId: number },
): Promise<ApiRobDualStudy[]> {
  const subFilter = only
    ? and(eq(reviewRobSubmissions.outcomeId, only.outcomeId), eq(reviewRobSubmissions.recordId, only.recordId))
    : eq(reviewRobSubmissions.reviewId, review.id);
  const consFilter = only
    ? and(eq(reviewRobConsensus.outcomeId, only.outcomeId), eq(reviewRobConsensus.recordId, only.recordId))
    : eq(reviewRobConsensus.reviewId, review.id);
  const [subs, cons] = await Promise.all([
    app.db
      .select({ row: reviewRobSubmissions, email: users.email })
      .from(reviewRobSubmissions)
      .innerJoin(users, eq(users.id, reviewRobSubmissions.userId))
      .where(subFilter)
      .orderBy(
        asc(reviewRobSubmissions.outcomeId),
        asc(reviewRobSubmissions.recordId),
        asc(reviewRobSubmissions.submittedAt),
      ),
    app.db
      .select({ row: reviewRobConsensus, email: users.email })
      .from(reviewRobConsensus)
      .innerJoin(users, eq(users.id, reviewRobConsensus.userId))
      .where(consFilter)
      .orderBy(asc(reviewRobConsensus.id)),
  ]);
  const studies = new Map<string, typeof subs>();
  for (const s of subs) {
    const key = `${s.row.outcomeId}|${s.row.recordId}`;
    studies.set(key, [...(studies.get(key) ?? []), s]);
  }
  return [...studies.values()].map((pair) => {
    const { outcomeId, recordId } = pair[0]!.row;
    const both = pair.length >= ASSESSORS_PER_STUDY;
    const recorded: ApiRobConsensus[] = both
      ? cons
          .filter((c) => c.row.outcomeId === outcomeId && c.row.recordId === recordId)
          .map((c) => ({
            userId: c.row.userId,
            email: c.email,
            at: toIso(c.row.createdAt),
            assessment: contentOf(c.row),
          }))
      : [];
    return {
      recordId,
      outcomeId,
      submissions: pair.map((s) => ({
        userId: s.row.userId,
        email: s.email,
        submittedAt: toIso(s.row.submittedAt),
        assessment: both || s.row.userId === readerId ? contentOf(s.row) : null,
      })),
      mine: pair.some((s) => s.row.userId === readerId),
      revealed: both,
      differing: both ? robDifferences(pair[0]!.row, pair[1]!.row) : null,
      consensus: recorded.at(-1) ?? null,
      history: recorded.slice(0, -1),
    };
  });
}

/**
 * The SQL condition "this risk_of_bias_assessments row is a recorded consensus, unchanged since"
 * (the consensus upsert sets updated_at to the consensus row's created_at): in dual mode the
 * review's analysis, plots and exports read only these (an assessment saved in single mode, before
 * the switch or after a consensus, is not a consensus).
 */
export const isConsensusAssessment = sql`EXISTS (SELECT 1 FROM review_rob_consensus c WHERE c.outcome_id = ${riskOfBiasAssessments.outcomeId} AND c.record_id = ${riskOfBiasAssessments.recordId} AND c.created_at = ${riskOfBiasAssessments.updatedAt})`;

/** One study × outcome of the dual RoB audit trail in the JSON export (both assessments in). */
export interface RobDualAuditStudy {
  outcome: string;
  outcomeId: number;
  recordId: number;
  title: string;
  assessments: { email: string; submittedAt: string; assessment: RobAssessmentContent }[];
  differing: RobDifferences;
  /** The consensus the analysis uses (null: none recorded yet). */
  consensus: { email: string; at: string; assessment: RobAssessmentContent } | null;
  /** Earlier consensus assessments, oldest first. */
  history: { email: string; at: string; assessment: RobAssessmentContent }[];
}

/**
 * The dual RoB audit trail of a review (optionally one outcome): each study × outcome both
 * reviewers assessed, with both assessments (who, when), the differences, the consensus in use and
 * the earlier ones. Studies with one assessment are left out (blind: no export shows an
 * assessment before both are in).
 */
export async function robDualAudit(
  app: Pick<RobApp, "db">,
  review: Pick<ReviewRow, "id">,
  outcomeId?: number,
): Promise<RobDualAuditStudy[]> {
  const [studies, names, titles] = await Promise.all([
    robDualStudies(app, review, "", undefined),
    app.db
      .select({ id: reviewOutcomes.id, name: reviewOutcomes.name })
      .from(reviewOutcomes)
      .where(eq(reviewOutcomes.reviewId, review.id)),
    app.db
      .select({ id: reviewRecords.id, title: reviewRecords.title })
      .from(reviewRecords)
      .where(
        and(
          eq(reviewRecords.reviewId, review.id),
          sql`${reviewRecords.id} IN (SELECT record_id FROM review_rob_submissions WHERE review_id = ${review.id})`,
        ),
      ),
  ]);
  const outcomeName = new Map(names.map((o) => [o.id, o.name]));
  const title = new Map(titles.map((r) => [r.id, r.title]));
  return studies
    .filter((s) => s.revealed && (outcomeId === undefined || s.outcomeId === outcomeId))
    .map((s) => ({
      outcome: outcomeName.get(s.outcomeId) ?? "",
      outcomeId: s.outcomeId,
      recordId: s.recordId,
      title: title.get(s.recordId) ?? "",
      assessments: s.submissions.map((x) => ({
        email: x.email,
        submittedAt: x.submittedAt,
        assessment: x.assessment!,
      })),
      differing: s.differing!,
      consensus: s.consensus && { email: s.consensus.email, at: s.consensus.at, assessment: s.consensus.assessment },
      history: s.history.map((h) => ({ email: h.email, at: h.at, assessment: h.assessment })),
    }));
}

function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * The dual RoB audit trail as CSV (RFC 4180, formula-safe): one row per study and item (effect of
 * interest, each signalling question asked in either assessment, D1–D5, Overall) with both
 * reviewers' values (who, when), whether they differ, the consensus value in use, who recorded it
 * when, and earlier consensus values. Judgements in robvis words; answers Y / PY / PN / N / NI / NA
 * ("" when the question was not asked).
 */
export function robDualAuditCsv(studies: readonly RobDualAuditStudy[]): string {
  const header = [
    "Outcome",
    "Record ID",
    "Title",
    "Item",
    "Reviewer 1",
    "Value 1",
    "Submitted 1",
    "Reviewer 2",
    "Value 2",
    "Submitted 2",
    "Differs",
    "Consensus",
    "Consensus by",
    "Consensus at",
    "Earlier consensus values",
  ];
  const words: Record<string, string> = { low: "Low", some_concerns: "Some concerns", high: "High" };
  const lines = [header.join(",")];
  for (const s of studies) {
    const [a, b] = s.assessments;
    const asked = new Set([
      ...askedQuestions(a!.assessment.variant, a!.assessment.answers),
      ...askedQuestions(b!.assessment.variant, b!.assessment.answers),
    ]);
    const questions = [...asked].sort((x, y) => {
      const [x1, x2] = x.split(".").map(Number);
      const [y1, y2] = y.split(".").map(Number);
      return x1! - y1! || x2! - y2!;
    });
    const answerOf = (c: RobAssessmentContent, q: string) =>
      askedQuestions(c.variant, c.answers).includes(q) ? (c.answers[q] ?? "") : "";
    const items: { item: string; value: (c: RobAssessmentContent) => string; differs: boolean }[] = [
      { item: "Effect of interest", value: (c) => VARIANT_LABEL[c.variant], differs: s.differing.variant },
      ...questions.map((q) => ({
        item: q,
        value: (c: RobAssessmentContent) => answerOf(c, q),
        differs: s.differing.questions.includes(q),
      })),
      ...ROB_JUDGEMENT_KEYS.map((k) => ({
        item: k === "overall" ? "Overall" : k,
        value: (c: RobAssessmentContent) => words[c.final[k]]!,
        differs: s.differing.judgements.includes(k),
      })),
    ];
    for (const it of items) {
      lines.push(
        [
          s.outcome,
          String(s.recordId),
          s.title,
          it.item,
          a!.email,
          it.value(a!.assessment),
          a!.submittedAt,
          b!.email,
          it.value(b!.assessment),
          b!.submittedAt,
          it.differs ? "yes" : "no",
          s.consensus ? it.value(s.consensus.assessment) : "awaiting consensus",
          s.consensus?.email ?? "",
          s.consensus?.at ?? "",
          s.history.map((h) => `${it.value(h.assessment) || "not asked"} (${h.email}, ${h.at})`).join("; "),
        ]
          .map(csvField)
          .join(","),
      );
    }
  }
  return `${lines.join("\r\n")}\r\n`;
}
