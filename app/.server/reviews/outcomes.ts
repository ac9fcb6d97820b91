/**
 * A systematic review's data extraction (issue 19): the outcomes the user names for the review
 * (D1 review_outcomes), and, per outcome, the arm-level extraction of every study included at
 * full-text screening — read from the best text the study has (Europe PMC JATS via its PMCID, the
 * uploaded PDF's text, a full text attached at full-text screening, else title and abstract), run
 * through the offline rules of app/lib/arms, with the user's stored corrections (extraction_edits)
 * applied, each quote turned into its sentence or table cell, and the study's reported estimate with
 * CI for the outcome (the fallback where arm data are missing).
 *
 * Every function takes the owner's id: a review, outcome, record or uploaded study of another user
 * is a 404.
 */
import { and, asc, count, eq, inArray, isNull } from "drizzle-orm";
import { z } from "zod";
import {
  extractionEdits,
  reviewOutcomes,
  reviewRecords,
  reviewStudyData,
  studies,
  uploadedStudies,
  users,
  type ReviewOutcomeRow,
  type ReviewRecordRow,
  type ReviewStudyDataRow,
} from "../../../db/schema";
import type { ArmExtraction, ArmField, ArmKey } from "~/lib/arms";
import {
  applyStoredEdits,
  engineMeasure,
  type PoolMeasure,
  quoteContexts,
  type ReportedEstimate,
  type ReportSourceKind,
  type ReviewExtractionStudy,
  type ReviewOutcome,
  type ReviewOutcomeExtraction,
  reviewIdOfStudyKey,
  reviewStudyKey,
  type StoredEdit,
} from "~/lib/review-extraction";
import type { AppServices } from "../context";
import { MAX_REPORT_BYTES } from "../extraction/arms";
import { fetchEuropePmcJats } from "../extraction/europepmc";
import { documentOf, extractArmData, reportedEstimate } from "../extraction/service";
import { AppError } from "../http/errors";
import { enforceRateLimits, RATE_LIMITS } from "../security/rate-limit";
import { activityInsert } from "./activity";
import { dualStudies } from "./dual-extraction";
import { requireRecord, requireReview } from "./service";

type OutcomesApp = Pick<AppServices, "db" | "bindings" | "env" | "fetch"> & { waitUntil?: AppServices["waitUntil"] };

/** Outcomes one review may hold. */
export const MAX_OUTCOMES_PER_REVIEW = 30;
/** Included studies extracted per request (a review with more is answered for the first ones, in import order). */
export const MAX_EXTRACTED_STUDIES = 100;
/** Studies whose full text is fetched from Europe PMC at the same time. */
const FETCH_CONCURRENCY = 4;

const phrase = (what: string, max: number) =>
  z
    .string({ error: `${what} is required` })
    .trim()
    .min(1, `${what} is required`)
    .max(max, `${what} may have at most ${max} characters`);

/** POST /api/reviews/{id}/outcomes body; intervention and comparator default to the review's PICO. */
export const OutcomeInputSchema = z
  .object({
    name: phrase("name", 200),
    intervention: z.string().trim().max(500).optional(),
    comparator: z.string().trim().max(500).optional(),
  })
  .strict();

function toOutcome(row: ReviewOutcomeRow): ReviewOutcome {
  return {
    id: row.id,
    name: row.name,
    intervention: row.intervention,
    comparator: row.comparator,
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

/** The review's outcomes, oldest first. @throws AppError 404 REVIEW_NOT_FOUND. */
export async function listOutcomes(
  app: OutcomesApp,
  target: { userId: string; reviewId: string | undefined },
): Promise<ReviewOutcome[]> {
  const review = await requireReview(app, target, "read");
  const rows = await app.db
    .select()
    .from(reviewOutcomes)
    .where(eq(reviewOutcomes.reviewId, review.id))
    .orderBy(asc(reviewOutcomes.id));
  return rows.map(toOutcome);
}

/**
 * Adds an outcome. Intervention and comparator default to the review's PICO.
 * @throws AppError 404 REVIEW_NOT_FOUND; 400 ARMS_REQUIRED when neither the body nor the PICO names
 *   them; 409 OUTCOME_EXISTS (same name, case-insensitive) / TOO_MANY_OUTCOMES.
 */
export async function addOutcome(
  app: OutcomesApp,
  target: { userId: string; reviewId: string | undefined },
  input: z.infer<typeof OutcomeInputSchema>,
): Promise<ReviewOutcome> {
  const review = await requireReview(app, target, "write");
  const intervention = input.intervention || review.question.intervention?.trim() || "";
  const comparator = input.comparator || review.question.comparator?.trim() || "";
  if (!intervention || !comparator) {
    throw new AppError(
      "ARMS_REQUIRED",
      "Name the intervention and the comparator (the review's PICO does not give them).",
      400,
    );
  }
  const existing = await app.db
    .select({ name: reviewOutcomes.name })
    .from(reviewOutcomes)
    .where(eq(reviewOutcomes.reviewId, review.id));
  if (existing.some((o) => o.name.toLowerCase() === input.name.toLowerCase()))
    throw new AppError("OUTCOME_EXISTS", `The review already has the outcome "${input.name}".`, 409);
  if (existing.length >= MAX_OUTCOMES_PER_REVIEW)
    throw new AppError("TOO_MANY_OUTCOMES", `A review holds at most ${MAX_OUTCOMES_PER_REVIEW} outcomes.`, 409);
  try {
    const [row] = await app.db
      .insert(reviewOutcomes)
      .values({
        reviewId: review.id,
        userId: review.userId,
        name: input.name,
        intervention: intervention.slice(0, 500),
        comparator: comparator.slice(0, 500),
      })
      .returning();
    return toOutcome(row!);
  } catch (error) {
    if (/UNIQUE/i.test(String(error instanceof Error ? error.message : error)))
      throw new AppError("OUTCOME_EXISTS", `The review already has the outcome "${input.name}".`, 409);
    throw error;
  }
}

/** The outcome `outcomeId` of review `reviewId`. @throws AppError 404 OUTCOME_NOT_FOUND. */
export async function requireOutcome(
  app: Pick<AppServices, "db">,
  reviewId: string,
  outcomeId: string | undefined,
): Promise<ReviewOutcomeRow> {
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

/** Removes an outcome (its corrections stay in the audit trail). @throws AppError 404. */
export async function deleteOutcome(
  app: OutcomesApp,
  target: { userId: string; reviewId: string | undefined; outcomeId: string | undefined },
): Promise<void> {
  const review = await requireReview(app, target, "write");
  const outcome = await requireOutcome(app, review.id, target.outcomeId);
  await app.db
    .delete(reviewOutcomes)
    .where(and(eq(reviewOutcomes.id, outcome.id), eq(reviewOutcomes.reviewId, review.id)));
}

/** The text MetaMind reads for one record, and where it came from. */
export interface RecordReport {
  kind: ReportSourceKind;
  format: "jats" | "text";
  text: string;
  pmcid: string | null;
  /** Why a better source was not used, or what the text is ("PDF attached at full-text screening"). */
  note: string | null;
}

/**
 * The best text of a record: the JATS of its PMCID from Europe PMC (R2-cached), else the text of the
 * user's uploaded PDF the record came from, else the full text attached at full-text screening, else
 * title and abstract. Texts above 2 MB are cut there.
 */
export async function recordReport(app: OutcomesApp, userId: string, record: ReviewRecordRow): Promise<RecordReport> {
  const notes: string[] = [];
  let pmcid: string | null = null;
  if (record.studyId !== null) {
    const [study] = await app.db
      .select({ pmcid: studies.pmcid })
      .from(studies)
      .where(eq(studies.id, record.studyId))
      .limit(1);
    pmcid = study?.pmcid?.trim().toUpperCase() || null;
  }
  if (pmcid) {
    try {
      const { xml } = await fetchEuropePmcJats(
        { fetch: app.fetch, baseUrl: app.env.EUROPEPMC_BASE_URL, bucket: app.bindings.BUCKET },
        pmcid,
      );
      if (new TextEncoder().encode(xml).byteLength <= MAX_REPORT_BYTES)
        return { kind: "europepmc", format: "jats", text: xml, pmcid, note: null };
      notes.push(`the Europe PMC full text of ${pmcid} is over 2 MB`);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      notes.push(`Europe PMC full text of ${pmcid} unavailable (${error.message})`);
    }
  }
  const cut = (text: string) => text.slice(0, MAX_REPORT_BYTES / 2);
  if (record.uploadedStudyId !== null) {
    const [upload] = await app.db
      .select({ text: uploadedStudies.fullTextContent })
      .from(uploadedStudies)
      .where(and(eq(uploadedStudies.id, record.uploadedStudyId), eq(uploadedStudies.userId, userId)))
      .limit(1);
    if (upload?.text?.trim())
      return { kind: "upload", format: "text", text: cut(upload.text), pmcid, note: notes.join("; ") || null };
    notes.push("the uploaded PDF has no text");
  }
  if (record.fullText?.trim()) {
    const what = record.fullTextKey
      ? "PDF attached at full-text screening"
      : record.fullTextUrl
        ? `full text from ${record.fullTextUrl}`
        : "attached full text";
    return { kind: "fulltext", format: "text", text: cut(record.fullText), pmcid, note: [what, ...notes].join("; ") };
  }
  const text = [record.title, record.abstract].filter((s) => s?.trim()).join("\n\n");
  return { kind: "abstract", format: "text", text: cut(text), pmcid, note: notes.join("; ") || null };
}

/**
 * The text of one record as the extraction reads it (for /meta-analysis opened from the review).
 * @throws AppError 404 REVIEW_NOT_FOUND / RECORD_NOT_FOUND.
 */
export async function getRecordReport(
  app: OutcomesApp,
  target: { userId: string; reviewId: string | undefined; recordId: string | undefined },
): Promise<RecordReport & { recordId: number; studyKey: string }> {
  const review = await requireReview(app, target, "read");
  const record = await requireRecord(app, review, target.recordId);
  return {
    recordId: record.id,
    studyKey: reviewStudyKey(review.id, record.id),
    ...(await recordReport(app, review.userId, record)),
  };
}

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

/**
 * One outcome's extraction over the review's studies included at full-text screening (duplicates
 * left out; at most {@link MAX_EXTRACTED_STUDIES}), with the user's corrections applied.
 * Counted against the user's hourly limit (RATE_LIMITS.reviewExtractionPerAccount).
 * @throws AppError 404 REVIEW_NOT_FOUND / OUTCOME_NOT_FOUND; 429 RATE_LIMITED.
 */
export async function extractReviewOutcome(
  app: OutcomesApp,
  target: { userId: string; reviewId: string | undefined; outcomeId: string | undefined },
): Promise<ReviewOutcomeExtraction & { included: number }> {
  const review = await requireReview(app, target, "read");
  const outcome = await requireOutcome(app, review.id, target.outcomeId);
  await enforceRateLimits(app, [{ rule: RATE_LIMITS.reviewExtractionPerAccount, subject: target.userId }]);
  const included = and(
    eq(reviewRecords.reviewId, review.id),
    isNull(reviewRecords.duplicateOf),
    eq(reviewRecords.taDecision, "include"),
    eq(reviewRecords.ftDecision, "include"),
  );
  const [records, [total]] = await Promise.all([
    app.db.select().from(reviewRecords).where(included).orderBy(asc(reviewRecords.id)).limit(MAX_EXTRACTED_STUDIES),
    app.db.select({ n: count() }).from(reviewRecords).where(included),
  ]);
  const keys = records.map((r) => reviewStudyKey(review.id, r.id));
  const edits = keys.length
    ? await app.db
        .select()
        .from(extractionEdits)
        .where(
          and(
            eq(extractionEdits.userId, target.userId),
            eq(extractionEdits.outcome, outcome.name),
            inArray(extractionEdits.studyKey, keys),
          ),
        )
        .orderBy(asc(extractionEdits.id))
    : [];
  const imported = records.length
    ? await app.db
        .select({ row: reviewStudyData, by: users.email })
        .from(reviewStudyData)
        .leftJoin(users, eq(users.id, reviewStudyData.importedBy))
        .where(
          and(
            eq(reviewStudyData.outcomeId, outcome.id),
            inArray(
              reviewStudyData.recordId,
              records.map((r) => r.id),
            ),
          ),
        )
    : [];
  const who = await ownerEmail(app, target.userId);
  const question = { intervention: outcome.intervention, comparator: outcome.comparator, outcome: outcome.name };
  const studiesOut = await mapLimited(records, FETCH_CONCURRENCY, async (record): Promise<ReviewExtractionStudy> => {
    const studyKey = reviewStudyKey(review.id, record.id);
    const storedFor = (after: number) =>
      edits
        .filter((e) => e.studyKey === studyKey && e.createdAt > after)
        .map((e): StoredEdit => ({
          arm: e.arm as ArmKey,
          field: e.field as ArmField,
          oldValue: e.oldValue,
          newValue: e.newValue,
          who,
          when: new Date(e.createdAt).toISOString(),
        }));
    const fromFile = imported.find((i) => i.row.recordId === record.id);
    if (fromFile) {
      const { result, audit } = applyStoredEdits(importedExtraction(fromFile.row), storedFor(fromFile.row.createdAt));
      const note = `imported from ${fromFile.row.fileName || "a CSV file"}, line ${fromFile.row.line}${fromFile.by ? `, by ${fromFile.by}` : ""}, ${new Date(fromFile.row.createdAt).toISOString().slice(0, 10)}`;
      return {
        recordId: record.id,
        studyKey,
        title: record.title,
        year: record.year,
        source: { kind: "import", pmcid: null, note },
        result,
        audit,
        contexts: [],
        tables: {},
        reported: importedEstimate(fromFile.row, note),
      };
    }
    let source = await recordReport(app, review.userId, record);
    let document;
    try {
      document = documentOf({ kind: "report", format: source.format, text: source.text, title: record.title });
    } catch (error) {
      if (!(error instanceof AppError) || source.format !== "jats") throw error;
      // JATS that does not parse: read the abstract instead, and say so.
      const text = [record.title, record.abstract].filter((s) => s?.trim()).join("\n\n");
      source = {
        kind: "abstract",
        format: "text",
        text,
        pmcid: source.pmcid,
        note: `the Europe PMC full text could not be read (${error.message})`,
      };
      document = documentOf({ kind: "report", format: "text", text, title: record.title });
    }
    const { result, audit, rules } = await extractArmData({}, { document, question, edits: storedFor(-Infinity) });
    const { contexts, tables } = quoteContexts(
      document,
      rules.quotes,
      source.format === "text" ? source.text : undefined,
    );
    return {
      recordId: record.id,
      studyKey,
      title: record.title,
      year: record.year,
      source: { kind: source.kind, pmcid: source.pmcid, note: source.note },
      result,
      audit,
      contexts,
      tables,
      reported: reportedEstimate(document, outcome.name),
    };
  });
  if (review.extractionMode === "dual") {
    // Dual extraction: each study's submissions, differences and consensus as the caller may see them (blind).
    const dual = await dualStudies(
      app,
      outcome.id,
      target.userId,
      records.map((r) => r.id),
    );
    for (const study of studiesOut) study.dual = dual.get(study.recordId);
  }
  return {
    outcome: toOutcome(outcome),
    studies: studiesOut,
    included: total?.n ?? records.length,
    mode: review.extractionMode,
  };
}

/**
 * A study's imported data (review_study_data) as an arm-level extraction: events and N, or mean, SD
 * and N, per arm; an imported estimate leaves the arms empty (see {@link importedEstimate}).
 */
function importedExtraction(row: ReviewStudyDataRow): ArmExtraction {
  const arm = (events: number | null, n: number | null, mean: number | null, sd: number | null) => ({
    events,
    groupSize: n,
    mean,
    sd,
  });
  return {
    outcomeType: row.kind === "counts" ? "binary" : row.kind === "means" ? "continuous" : "unknown",
    intervention: arm(row.interventionEvents, row.interventionN, row.interventionMean, row.interventionSd),
    comparator: arm(row.comparatorEvents, row.comparatorN, row.comparatorMean, row.comparatorSd),
    derived: [],
    quotes: [],
    extractor: "import",
  };
}

/** An imported estimate with 95% CI as the study's reported estimate (pooled by generic inverse variance). */
function importedEstimate(row: ReviewStudyDataRow, note: string): ReportedEstimate | null {
  if (
    row.kind !== "estimate-ci" ||
    row.measure === null ||
    row.estimate === null ||
    row.ciLower === null ||
    row.ciUpper === null
  )
    return null;
  return {
    ...engineMeasure(row.measure as PoolMeasure),
    estimate: row.estimate,
    lower: row.ciLower,
    upper: row.ciUpper,
    quote: note,
  };
}

async function ownerEmail(app: OutcomesApp, userId: string): Promise<string> {
  const [row] = await app.db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
  return row?.email ?? "";
}

/**
 * Checks that the user may read (`need` 'read') or write (default; owner or reviewer) every review
 * a study key names ("review:{id}:{recordId}"), so corrections are only recorded against reviews
 * the user works on.
 * @throws AppError 404 REVIEW_NOT_FOUND; 403 FORBIDDEN_ROLE (a viewer).
 */
export async function assertOwnReviewKeys(
  app: Pick<AppServices, "db" | "bindings">,
  userId: string,
  studyKeys: readonly string[],
  need: "read" | "write" = "write",
): Promise<void> {
  const ids = [...new Set(studyKeys.map(reviewIdOfStudyKey).filter((id): id is string => id !== null))];
  for (const reviewId of ids) await requireReview(app, { userId, reviewId }, need);
}

/**
 * The activity-log entries of corrections to reviews' extraction cells: one per review, study and
 * outcome, with the number of cells (no values: in dual extraction they stay blind).
 */
export function extractionEditActivity(
  app: Pick<AppServices, "db">,
  userId: string,
  edits: readonly { studyKey: string; outcome: string }[],
) {
  const groups = new Map<string, { reviewId: string; recordId: number; outcome: string; cells: number }>();
  for (const e of edits) {
    const reviewId = reviewIdOfStudyKey(e.studyKey);
    if (!reviewId) continue;
    const key = `${e.studyKey}|${e.outcome}`;
    const g = groups.get(key) ?? {
      reviewId,
      recordId: Number(e.studyKey.split(":").at(-1)),
      outcome: e.outcome,
      cells: 0,
    };
    g.cells++;
    groups.set(key, g);
  }
  return [...groups.values()].map((g) =>
    activityInsert(app.db, {
      reviewId: g.reviewId,
      userId,
      action: "extraction.edit",
      recordId: g.recordId,
      detail: { outcome: g.outcome, cells: g.cells },
    }),
  );
}
