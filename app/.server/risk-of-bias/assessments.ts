/**
 * A review's RoB 2 assessments (issue 28): one per study included at full text × outcome, with the
 * answers, the reviewer's support per answer, the algorithm's proposal, the reviewer's overrides
 * (each with a justification) and the final judgements; suggestions from the study's best text;
 * the robvis CSV. Every function takes the owner's id: another user's review is a 404.
 */
import { and, asc, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import {
  reviewOutcomes,
  reviewRecords,
  riskOfBiasAssessments,
  users,
  type ReviewRecordRow,
  type ReviewRow,
  type RiskOfBiasAssessmentRow,
} from "../../../db/schema";
import { documentSentences } from "~/lib/extraction/core";
import { judgeRob2, ROB2_DOMAINS, worstJudgement, type Rob2DomainId, type RobJudgement } from "~/lib/risk-of-bias/rob2";
import { summarySvg, trafficLightSvg } from "~/lib/risk-of-bias/plots";
import { robvisCsv } from "~/lib/risk-of-bias/robvis";
import { suggestRob2 } from "~/lib/risk-of-bias/suggestions";
import type {
  ApiRobAssessment,
  ApiRobOverview,
  ApiRobStudy,
  ApiRobSuggestions,
  RobJudgementSet,
} from "~/lib/risk-of-bias/types";
import type { AppServices } from "../context";
import { recordDocument } from "../extraction/service";
import { AppError } from "../http/errors";
import { getRecordReport } from "../reviews/outcomes";
import { enforceRateLimits, RATE_LIMITS } from "../security/rate-limit";
import { requireRecord, requireReview } from "../reviews/service";
import { isConsensusAssessment, robDualAudit, robDualAuditCsv, robDualStudies } from "./dual";
import { checkRob2Answers, QUESTION_IDS, Rob2AnswersSchema } from "./judge";

type RobApp = Pick<AppServices, "db" | "bindings" | "env" | "fetch">;

/** Included studies listed per review (in import order). */
export const MAX_ASSESSED_STUDIES = 500;

const judgement = z.enum(["low", "some_concerns", "high"]);
const override = z.object({
  judgement,
  justification: z
    .string({ error: "An override needs a justification" })
    .trim()
    .min(1, "An override needs a justification")
    .max(2000),
});

/** PUT /api/reviews/{id}/risk-of-bias/{recordId}/{outcomeId} body. */
export const AssessmentInputSchema = z
  .object({
    variant: z.enum(["assignment", "adhering"]),
    answers: Rob2AnswersSchema,
    support: z
      .record(
        z.string().refine((id) => QUESTION_IDS.has(id), "support may only name RoB 2 signalling questions"),
        z.object({ text: z.string().max(4000).default(""), quotes: z.array(z.string().max(2000)).max(10).default([]) }),
      )
      .default({}),
    overrides: z
      .object({ D1: override, D2: override, D3: override, D4: override, D5: override, overall: override })
      .partial()
      .strict()
      .default({}),
  })
  .strict();
export type AssessmentInput = z.infer<typeof AssessmentInputSchema>;

/** The included-at-full-text condition (duplicates left out). */
const includedIn = (reviewId: string) =>
  and(
    eq(reviewRecords.reviewId, reviewId),
    isNull(reviewRecords.duplicateOf),
    eq(reviewRecords.taDecision, "include"),
    eq(reviewRecords.ftDecision, "include"),
  );

/** robvis "Study" label: first author's surname and year ("Doe 2021"), else the shortened title. */
export function studyLabel(record: Pick<ReviewRecordRow, "authors" | "year" | "title">): string {
  const first = record.authors[0]?.split(",")[0]?.trim();
  if (first) return `${first}${record.authors.length > 1 ? " et al." : ""}${record.year ? ` ${record.year}` : ""}`;
  const title = record.title.replace(/\s+/g, " ").trim();
  return title.length > 60 ? `${title.slice(0, 57)}…` : title;
}

function toStudy(r: ReviewRecordRow): ApiRobStudy {
  return { recordId: r.id, label: studyLabel(r), title: r.title, year: r.year };
}

function toApi(row: RiskOfBiasAssessmentRow): ApiRobAssessment {
  return {
    id: row.id,
    recordId: row.recordId,
    outcomeId: row.outcomeId,
    variant: row.variant,
    answers: row.answers,
    support: row.support,
    proposed: row.proposed,
    overrides: row.overrides,
    final: row.final,
    assessedBy: row.assessedBy,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

/**
 * The proposal and the final judgements for complete answers and overrides: a domain override
 * replaces the proposed judgement; the overall is the least favourable final domain unless the
 * reviewer overrides it, which may only make it less favourable (RoB 2: the overall is at least as
 * severe as the worst domain; 'some concerns' in several domains may be judged high).
 * @throws AppError 400 ANSWERS_INCOMPLETE / INVALID_INPUT / INVALID_OVERRIDE.
 */
export function judgeAssessment(input: AssessmentInput): { proposed: RobJudgementSet; final: RobJudgementSet } {
  checkRob2Answers(input.variant, input.answers);
  const result = judgeRob2(input.variant, input.answers);
  const proposed: RobJudgementSet = { ...result.domains, overall: result.overall };
  const domains = Object.fromEntries(
    ROB2_DOMAINS.map((d) => [d, input.overrides[d]?.judgement ?? result.domains[d]]),
  ) as Record<Rob2DomainId, RobJudgement>;
  const worst = worstJudgement(Object.values(domains));
  const overall = input.overrides.overall?.judgement ?? worst;
  const order: RobJudgement[] = ["low", "some_concerns", "high"];
  if (order.indexOf(overall) < order.indexOf(worst)) {
    throw new AppError(
      "INVALID_OVERRIDE",
      `The overall judgement cannot be more favourable than the least favourable domain (${worst.replace("_", " ")}).`,
      400,
    );
  }
  return { proposed, final: { ...domains, overall } };
}

/** The review's outcome by id. @throws AppError 404 OUTCOME_NOT_FOUND. */
export async function requireOutcomeOf(app: Pick<AppServices, "db">, reviewId: string, outcomeId: string | undefined) {
  const id = Number(outcomeId);
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError("OUTCOME_NOT_FOUND", "Outcome not found", 404);
  const [row] = await app.db
    .select()
    .from(reviewOutcomes)
    .where(and(eq(reviewOutcomes.id, id), eq(reviewOutcomes.reviewId, reviewId)))
    .limit(1);
  if (!row) throw new AppError("OUTCOME_NOT_FOUND", "Outcome not found", 404);
  return row;
}

/** @throws AppError 409 RECORD_NOT_INCLUDED unless the record is included at full text (and not a duplicate). */
export function requireIncluded(record: ReviewRecordRow): void {
  if (record.duplicateOf !== null || record.taDecision !== "include" || record.ftDecision !== "include") {
    throw new AppError(
      "RECORD_NOT_INCLUDED",
      "Only studies included at full-text screening are assessed for risk of bias.",
      409,
    );
  }
}

/** In dual mode the assessment in use is the consensus: no one saves or deletes it directly. @throws AppError 409 ROB_DUAL_MODE. */
function refuseInDualMode(review: Pick<ReviewRow, "robMode">): void {
  if (review.robMode === "dual") {
    throw new AppError(
      "ROB_DUAL_MODE",
      "This review's risk of bias is assessed by two reviewers: submit your own assessment; the owner or a resolver records the consensus.",
      409,
    );
  }
}

/**
 * The review's outcomes, its studies included at full text and every assessment. Dual mode: the
 * assessments are the recorded consensus ones only, and `dual` lists each study × outcome with a
 * submission as the caller may see it (blind until both are in).
 * @throws AppError 404 REVIEW_NOT_FOUND.
 */
export async function getRiskOfBias(
  app: Pick<AppServices, "db" | "bindings">,
  target: { userId: string; reviewId: string | undefined },
): Promise<ApiRobOverview> {
  const review = await requireReview(app, target, "read");
  const dual = review.robMode === "dual";
  const [outcomes, records, rows, dualStudies] = await Promise.all([
    app.db
      .select({ id: reviewOutcomes.id, name: reviewOutcomes.name })
      .from(reviewOutcomes)
      .where(eq(reviewOutcomes.reviewId, review.id))
      .orderBy(asc(reviewOutcomes.id)),
    app.db
      .select()
      .from(reviewRecords)
      .where(includedIn(review.id))
      .orderBy(asc(reviewRecords.id))
      .limit(MAX_ASSESSED_STUDIES),
    app.db
      .select()
      .from(riskOfBiasAssessments)
      .where(
        dual
          ? and(eq(riskOfBiasAssessments.reviewId, review.id), isConsensusAssessment)
          : eq(riskOfBiasAssessments.reviewId, review.id),
      )
      .orderBy(asc(riskOfBiasAssessments.id)),
    dual ? robDualStudies(app, review, target.userId) : Promise.resolve([]),
  ]);
  return {
    outcomes,
    studies: records.map(toStudy),
    assessments: rows.map(toApi),
    mode: review.robMode,
    dual: dualStudies,
  };
}

/**
 * Saves (creates or replaces) the assessment of one included study × outcome, in one upsert.
 * @throws AppError 404 REVIEW_NOT_FOUND / RECORD_NOT_FOUND / OUTCOME_NOT_FOUND; 409
 *   RECORD_NOT_INCLUDED; 400 ANSWERS_INCOMPLETE / INVALID_INPUT / INVALID_OVERRIDE.
 */
export async function saveAssessment(
  app: RobApp,
  target: { userId: string; reviewId: string | undefined; recordId: string | undefined; outcomeId: string | undefined },
  input: AssessmentInput,
): Promise<{ assessment: ApiRobAssessment; created: boolean }> {
  const review = await requireReview(app, target, "write");
  refuseInDualMode(review);
  const record = await requireRecord(app, review, target.recordId);
  requireIncluded(record);
  const outcome = await requireOutcomeOf(app, review.id, target.outcomeId);
  const { proposed, final } = judgeAssessment(input);
  const [user] = await app.db.select({ email: users.email }).from(users).where(eq(users.id, target.userId)).limit(1);
  const now = Date.now();
  const values = {
    variant: input.variant,
    answers: input.answers,
    support: input.support,
    proposed,
    overrides: input.overrides,
    final,
    assessedBy: user?.email ?? target.userId,
    updatedAt: now,
  };
  const [row] = await app.db
    .insert(riskOfBiasAssessments)
    .values({
      reviewId: review.id,
      userId: review.userId,
      recordId: record.id,
      outcomeId: outcome.id,
      createdAt: now,
      ...values,
    })
    .onConflictDoUpdate({
      target: [riskOfBiasAssessments.reviewId, riskOfBiasAssessments.recordId, riskOfBiasAssessments.outcomeId],
      set: values,
    })
    .returning();
  return { assessment: toApi(row!), created: row!.createdAt === now };
}

/** Deletes one assessment. @throws AppError 404 (review, record, outcome or ASSESSMENT_NOT_FOUND). */
export async function deleteAssessment(
  app: RobApp,
  target: { userId: string; reviewId: string | undefined; recordId: string | undefined; outcomeId: string | undefined },
): Promise<void> {
  const review = await requireReview(app, target, "write");
  refuseInDualMode(review);
  const record = await requireRecord(app, review, target.recordId);
  const outcome = await requireOutcomeOf(app, review.id, target.outcomeId);
  const deleted = await app.db
    .delete(riskOfBiasAssessments)
    .where(
      and(
        eq(riskOfBiasAssessments.reviewId, review.id),
        eq(riskOfBiasAssessments.recordId, record.id),
        eq(riskOfBiasAssessments.outcomeId, outcome.id),
      ),
    )
    .returning({ id: riskOfBiasAssessments.id });
  if (!deleted.length)
    throw new AppError("ASSESSMENT_NOT_FOUND", "This study has no assessment for this outcome.", 404);
}

/**
 * Suggestions for every signalling question from the record's best text (Europe PMC JATS, the
 * uploaded PDF's text, the attached full text, else title and abstract), as plain text. Counted
 * against the extraction's hourly limit (RATE_LIMITS.reviewExtractionPerAccount) once the owner
 * checks pass.
 * @throws AppError 404 REVIEW_NOT_FOUND / RECORD_NOT_FOUND; 409 RECORD_NOT_INCLUDED; 429 RATE_LIMITED.
 */
export async function suggestForRecord(
  app: RobApp,
  target: {
    userId: string;
    reviewId: string | undefined;
    recordId: string | undefined;
    variant: "assignment" | "adhering";
  },
): Promise<ApiRobSuggestions> {
  const review = await requireReview(app, target, "read");
  const record = await requireRecord(app, review, target.recordId);
  requireIncluded(record);
  await enforceRateLimits(app, [{ rule: RATE_LIMITS.reviewExtractionPerAccount, subject: target.userId }]);
  const report = await getRecordReport(app, target);
  const { document, fallback } = recordDocument(report, record);
  const text = document.text;
  const note = fallback
    ? `the Europe PMC full text could not be read (${fallback}); title and abstract used`
    : report.note;
  return {
    recordId: record.id,
    variant: target.variant,
    source: { kind: report.kind, note },
    text,
    suggestions: suggestRob2(text, target.variant, documentSentences(document)),
  };
}

/** GET /api/reviews/{id}/risk-of-bias/export query. */
export const RobExportQuerySchema = z.object({
  outcomeId: z.string().max(20).optional(),
  format: z
    .enum(["csv", "traffic-light", "summary", "audit"], {
      error: "format must be csv, traffic-light, summary or audit",
    })
    .default("csv"),
});

/**
 * The review's final judgements for one outcome, studies in import order: robvis's CSV layout
 * (Study, D1…D5, Overall, Weight; weight 1, as the review holds no meta-analysis weights), or the
 * traffic-light or summary plot as SVG (dual mode: the consensus judgements); `audit`: the dual
 * assessment's audit trail as CSV ({@link robDualAuditCsv}).
 * @throws AppError 404 REVIEW_NOT_FOUND / OUTCOME_NOT_FOUND.
 */
export async function exportRiskOfBias(
  app: Pick<AppServices, "db" | "bindings">,
  target: {
    userId: string;
    reviewId: string | undefined;
    outcomeId?: string;
    format: z.infer<typeof RobExportQuerySchema>["format"];
  },
): Promise<{ body: string; contentType: string; fileName: string }> {
  const review = await requireReview(app, target, "read");
  const outcome = await requireOutcomeOf(app, review.id, target.outcomeId);
  if (target.format === "audit") {
    const audit = await robDualAudit(app, review, outcome.id);
    return {
      body: robDualAuditCsv(audit),
      contentType: "text/csv; charset=utf-8",
      fileName: `risk-of-bias-${outcome.name.replace(/[^\w-]+/g, "-").slice(0, 40)}-dual-audit.csv`,
    };
  }
  const overview = await getRiskOfBias(app, target);
  const labels = new Map(overview.studies.map((s) => [s.recordId, s.label]));
  const rows = overview.assessments
    .filter((a) => a.outcomeId === outcome.id && labels.has(a.recordId))
    .map((a) => ({ study: labels.get(a.recordId)!, judgements: a.final, weight: 1 }));
  const base = `risk-of-bias-${outcome.name.replace(/[^\w-]+/g, "-").slice(0, 40)}`;
  const title = `Risk of bias (RoB 2): ${outcome.name}`;
  if (target.format === "traffic-light")
    return {
      body: trafficLightSvg(rows, title),
      contentType: "image/svg+xml; charset=utf-8",
      fileName: `${base}-traffic-light.svg`,
    };
  if (target.format === "summary")
    return {
      body: summarySvg(rows, { title: `${title}, summary` }),
      contentType: "image/svg+xml; charset=utf-8",
      fileName: `${base}-summary.svg`,
    };
  return { body: robvisCsv(rows), contentType: "text/csv; charset=utf-8", fileName: `${base}.csv` };
}
