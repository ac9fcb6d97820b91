/**
 * AI on uploaded studies (SPEC §7 Uploads; §6 gating): a streamed summary and a streamed
 * full-text analysis per study, stored on the row; a combined summary and a combined analysis of
 * several. All reuse the search-side services (ai/summarize.ts, fulltext/analyze.ts, ai/combined.ts)
 * and are metered as AI summaries (SPEC §6: keyed ai_summaries; Free users count against
 * AI_SUMMARIES_PER_MONTH, Professional is unlimited): one use reserved after validation,
 * committed once the result exists, given back on failure or when the client goes away.
 */
import { and, eq, inArray } from "drizzle-orm";
import { uploadedStudies, type UploadedStudyRow, type UserRow } from "../../../db/schema";
import { generateCombinedSummary, type CombinedResult } from "../ai/combined";
import { getLanguageModel, OFFLINE_MODEL_NAME, type ResolvedModel } from "../ai/registry";
import { streamStudySummary } from "../ai/summarize";
import { reserveAiUse, type MeteredAction, type Reservation } from "../billing/metering";
import { reservationHeaders, withSettledBody } from "../billing/metered-response";
import type { AppServices } from "../context";
import { streamFullTextAnalysis } from "../fulltext/analyze";
import { createOfflineFullTextModel } from "../fulltext/offline-fulltext-model";
import { prepareFullText } from "../fulltext/prepare-text";
import { AppError } from "../http/errors";
import { groundStudySummary } from "../studies/summaries";
import { extractStudies, resolveMetaModel } from "../extraction/service";
import { buildTemplateNarrative, formatPooled } from "../meta-analysis/narrative";
import { runMetaAnalysis } from "../meta-analysis/run";
import type { MetaAnalysisJobResult } from "~/lib/meta-analysis/types";
import { getUploadedStudy } from "./service";

/** SPEC §6: summaries and analyses of uploads are keyed ai_summaries. */
export const UPLOAD_AI_ACTION: MeteredAction = { planFeature: "ai_summaries", guestFeature: "aiSummaries" };
/** Most studies per bulk summary or analysis. */
export const MAX_BULK_STUDIES = 20;
/** Characters of text used as the "abstract" of a paper whose abstract was not found. */
const FALLBACK_ABSTRACT_CHARS = 3000;

type AiApp = Pick<AppServices, "db" | "env" | "bindings" | "fetch" | "waitUntil">;
type ModelOverride = Pick<ResolvedModel, "model" | "name" | "provider">;

function resolveModel(app: AiApp, override?: ModelOverride): ModelOverride {
  return (
    override ??
    getLanguageModel({
      OPENAI_API_KEY: app.env.OPENAI_API_KEY,
      OPENAI_BASE_URL: app.env.OPENAI_BASE_URL,
      AI_MODEL: app.env.AI_MODEL,
      OFFLINE_MODEL_DELAY_MS: app.env.OFFLINE_MODEL_DELAY_MS,
      fetch: app.fetch,
    })
  );
}

/** The text an uploaded study is summarised from: its abstract, else the start of its full text. */
export function summarySource(row: Pick<UploadedStudyRow, "abstract" | "fullTextContent">): string | null {
  if (row.abstract && row.abstract.trim().length >= 10) return row.abstract;
  const text = row.fullTextContent ? prepareFullText(row.fullTextContent).slice(0, FALLBACK_ABSTRACT_CHARS) : "";
  if (!text.trim()) return null;
  const end = text.lastIndexOf(". ");
  return end > 500 ? text.slice(0, end + 1) : text;
}

/** @throws AppError 409 NOT_READY unless the study's text has been extracted. */
function requireReady(row: UploadedStudyRow): void {
  if (row.status === "ready") return;
  const message =
    row.status === "failed"
      ? `This PDF could not be processed: ${row.failureReason ?? "unknown reason"}`
      : "This PDF is still being processed. Try again in a moment.";
  throw new AppError("NOT_READY", message, 409, { status: row.status });
}

interface MeterInput {
  user: UserRow;
  request: Request;
}

/** Release-once helper around a reservation. */
function releaser(app: Pick<AppServices, "waitUntil">, reservation: Reservation) {
  return () =>
    app.waitUntil(reservation.release().catch((error: unknown) => console.error("could not release an AI use", error)));
}

/**
 * POST /api/uploaded-studies/{id}/summary: streams a 2–4 sentence summary (text/plain; headers
 * X-Model-Name, X-AI-Uses-Remaining unless unlimited) and stores it as the study's aiSummary
 * (grounded in the source text) before the body closes.
 *
 * @throws AppError 404 UPLOAD_NOT_FOUND (also another user's id), 409 NOT_READY, 400 NO_CONTENT
 *   (no text), 403 LIMIT_REACHED/PRO_REQUIRED.
 */
export async function streamUploadSummary(
  app: AiApp,
  { id, meter, model: override }: { id: number; meter: MeterInput; model?: ModelOverride },
): Promise<Response> {
  const row = await getUploadedStudy(app, { userId: meter.user.id, id });
  requireReady(row);
  const abstract = summarySource(row);
  if (!abstract) throw new AppError("NO_CONTENT", "No Content Available", 400);
  const study = { title: row.title, abstract, journal: row.journal, publicationDate: row.publicationDate };
  const reservation = await reserveAiUse(app, meter, UPLOAD_AI_ACTION);
  const release = releaser(app, reservation);
  const resolved = resolveModel(app, override);
  const signal = meter.request.signal;
  const response = streamStudySummary(
    {
      model: resolved.model,
      modelName: resolved.name,
      abortSignal: signal,
      onFinish: async ({ text, modelName }) => {
        const extractive = resolved.provider === "offline" || modelName === OFFLINE_MODEL_NAME;
        const grounded = groundStudySummary(text, study, { extractive });
        const stored = app.db
          .update(uploadedStudies)
          .set({ aiSummary: grounded.text, aiSummaryModel: modelName, updatedAt: Date.now() })
          .where(and(eq(uploadedStudies.id, id), eq(uploadedStudies.userId, meter.user.id)))
          .then(() => reservation.commit());
        app.waitUntil(stored);
        await stored;
      },
      onError: (error) => {
        release();
        console.error("upload summary failed", error);
      },
    },
    study,
  );
  return withSettledBody(response, reservationHeaders(reservation, response.headers), release);
}

/**
 * POST /api/uploaded-studies/{id}/full-analysis: streams the seven-section full-text analysis
 * (fulltext/analyze.ts; the offline model gives the extractive analysis) of the extracted text and
 * stores it as the study's fullTextAnalysis before the body closes.
 *
 * @throws AppError 404 UPLOAD_NOT_FOUND, 409 NOT_READY, 400 NO_CONTENT, 403 LIMIT_REACHED/PRO_REQUIRED.
 */
export async function streamUploadAnalysis(
  app: AiApp,
  { id, meter, model: override }: { id: number; meter: MeterInput; model?: ModelOverride },
): Promise<Response> {
  const row = await getUploadedStudy(app, { userId: meter.user.id, id });
  requireReady(row);
  if (!row.fullTextContent?.trim()) throw new AppError("NO_CONTENT", "No Content Available", 400);
  const reservation = await reserveAiUse(app, meter, UPLOAD_AI_ACTION);
  const release = releaser(app, reservation);
  const resolved = resolveModel(app, override);
  const model =
    resolved.provider === "offline"
      ? createOfflineFullTextModel({ delayMs: app.env.OFFLINE_MODEL_DELAY_MS })
      : resolved.model;
  let response: Response;
  try {
    response = streamFullTextAnalysis(
      {
        model,
        modelName: resolved.name,
        abortSignal: meter.request.signal,
        onFinish: async (result) => {
          const stored = app.db
            .update(uploadedStudies)
            .set({ fullTextAnalysis: result.text, fullTextAnalysisModel: result.modelName, updatedAt: Date.now() })
            .where(and(eq(uploadedStudies.id, id), eq(uploadedStudies.userId, meter.user.id)))
            .then(() => reservation.commit());
          app.waitUntil(stored);
          await stored;
        },
        onError: (error) => {
          release();
          console.error("upload analysis failed", error);
        },
      },
      { title: row.title, text: row.fullTextContent },
    );
  } catch (error) {
    release();
    if (error instanceof RangeError) throw new AppError("NO_CONTENT", "No Content Available", 400);
    throw error;
  }
  return withSettledBody(response, reservationHeaders(reservation, response.headers), release);
}

/** A study as bulk responses list it (SPEC §3: id, title, authors, fileName). */
export interface BulkStudy {
  id: number;
  title: string;
  authors: string[];
  fileName: string;
}

/** The user's ready studies among `ids`, in the order asked. @throws 404 for a missing/foreign id, 409 NOT_READY. */
async function readyStudies(app: Pick<AppServices, "db">, userId: string, ids: number[]): Promise<UploadedStudyRow[]> {
  if (ids.length > MAX_BULK_STUDIES) {
    throw new AppError("INVALID_INPUT", `At most ${MAX_BULK_STUDIES} studies can be combined at once.`, 400);
  }
  const rows = await app.db
    .select()
    .from(uploadedStudies)
    .where(and(eq(uploadedStudies.userId, userId), inArray(uploadedStudies.id, ids)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => {
    const row = byId.get(id);
    if (!row) throw new AppError("UPLOAD_NOT_FOUND", `Uploaded study ${id} not found`, 404);
    requireReady(row);
    return row;
  });
}

async function combine(
  app: AiApp,
  rows: UploadedStudyRow[],
  meter: MeterInput,
  override: ModelOverride | undefined,
  failedMessage: string,
): Promise<CombinedResult> {
  const studies = rows.map((row) => ({
    id: row.id,
    title: row.title,
    abstract: summarySource(row),
    journal: row.journal,
    publicationDate: row.publicationDate,
  }));
  if (!studies.some((s) => (s.abstract ?? "").trim().length >= 10))
    throw new AppError("NO_CONTENT", "No Content Available", 400);
  const reservation = await reserveAiUse(app, meter, UPLOAD_AI_ACTION);
  const resolved = resolveModel(app, override);
  try {
    return await generateCombinedSummary(
      {
        model: resolved.model,
        modelName: resolved.name,
        provider: resolved.provider,
        abortSignal: meter.request.signal,
        onFinish: () => reservation.commit(),
      },
      studies,
    );
  } catch (error) {
    await reservation.release().catch(() => undefined);
    console.error("combined upload analysis failed", error);
    throw new AppError("AI_FAILED", failedMessage, 502);
  }
}

const bulkStudy = (row: UploadedStudyRow): BulkStudy => ({
  id: row.id,
  title: row.title,
  authors: row.authors,
  fileName: row.fileName,
});

/**
 * POST /api/uploaded-studies/bulk-summary {studyIds}: one combined summary of the studies
 * (ai/combined.ts over each study's abstract, or the start of its text).
 *
 * @returns SPEC §3 Bulk summary response `{summary, studyCount, studies: [{id, title, authors,
 *   fileName}]}` plus `combinedSummary` (the structured object), `strengthOfEvidence` and `model`.
 * @throws AppError 400 NO_STUDIES/INVALID_INPUT, 404 UPLOAD_NOT_FOUND, 409 NOT_READY, 403
 *   LIMIT_REACHED, 502 AI_FAILED 'Failed to generate combined summary'.
 */
export async function bulkSummary(
  app: AiApp,
  { ids, meter, model }: { ids: number[]; meter: MeterInput; model?: ModelOverride },
) {
  const rows = await readyStudies(app, meter.user.id, ids);
  const result = await combine(app, rows, meter, model, "Failed to generate combined summary");
  return {
    summary: result.combinedText,
    studyCount: rows.length,
    studies: rows.map(bulkStudy),
    combinedSummary: result.combinedSummary,
    strengthOfEvidence: result.combinedSummary.strengthOfEvidence,
    citationSources: result.citationSources,
    model: result.model,
  };
}

/** SPEC §3 Bulk analysis response's analysis object. */
export interface BulkAnalysis {
  executiveSummary: string;
  quantitativeFindings: { pooledEffectSize: string; confidenceIntervals: string[]; primaryOutcomes: string[] };
  commonThemes: string[];
  clinicalRecommendations: string;
  conflictsAndHeterogeneity: string;
  gradeAssessment: string;
  clinicalImplications: string;
  strengthOfEvidence: "high" | "moderate" | "low";
}

/**
 * Pools the uploaded studies with the same engine as /meta-analysis (extraction/service.ts
 * then run.ts: effect data per study from its abstract and stored full-text analysis — by the
 * language model when one is configured, else the offline rules — grouped by outcome and measure,
 * REML with Hartung–Knapp, GRADE). Never throws for want of data: nothing poolable gives a result
 * with no analyses and the reasons in `excluded` and `unpooled`.
 */
export async function poolUploadedStudies(
  app: Pick<AppServices, "env" | "fetch">,
  rows: readonly UploadedStudyRow[],
  override?: ModelOverride,
): Promise<MetaAnalysisJobResult> {
  const model = override ? (override.provider === "offline" ? null : override) : resolveMetaModel(app.env, app.fetch);
  const studies = rows.map((row) => ({
    id: String(row.id),
    title: row.title,
    abstract: summarySource(row) ?? "",
    ...(row.fullTextAnalysis ? { fullTextAnalysis: row.fullTextAnalysis } : {}),
  }));
  let extraction;
  try {
    extraction = await extractStudies({ model }, studies);
  } catch (error) {
    console.warn("bulk analysis: the model could not extract effect data; the offline rules are used", error);
    extraction = await extractStudies({ model: null }, studies);
  }
  return runMetaAnalysis({
    studyCount: rows.length,
    extracted: extraction.extracted,
    excluded: extraction.excluded,
    model: extraction.model,
  });
}

/** Why nothing was pooled, naming the studies by title (from the engine's excluded and unpooled lists). */
function notPooledText(result: MetaAnalysisJobResult, titleOf: (id: string) => string): string {
  const reasons = [
    ...result.excluded.map((e) => `“${titleOf(e.studyId)}”: ${e.reason.replace(/\.$/, "")}`),
    ...(result.unpooled ?? []).map(
      (u) =>
        `${u.outcome} (${u.studyIds.length === 1 ? `only “${titleOf(u.studyIds[0]!)}”` : `${u.studyIds.length} studies`}): ${u.reason.split(". ")[0]!.replace(/\.$/, "")}`,
    ),
  ];
  return `Not pooled: no outcome was reported by at least 2 of these studies with usable numbers (an effect estimate with its confidence interval, or events and group sizes, or means, SDs and group sizes, for the same outcome and measure).${reasons.length ? ` ${reasons.join("; ")}.` : ""}`;
}

/**
 * POST /api/uploaded-studies/bulk-analysis {studyIds}: a meta-analytic synthesis of at least 2
 * studies (SPEC §5: 'Please select at least 2 studies for meta-analysis'). The numbers come from
 * the /meta-analysis engine ({@link poolUploadedStudies}); the narrative sections from the
 * combined summary of the studies.
 *
 * @returns `{studyCount, studies, analysis: BulkAnalysis, metaAnalysis, model}`: pooledEffectSize
 *   gives each pooled outcome (measure, estimate, 95% CI, k, model) or says why nothing pooled,
 *   naming the studies by title; confidenceIntervals the pooled estimates with their CIs (else the
 *   key outcomes that report an interval); primaryOutcomes the pooled and key outcomes;
 *   gradeAssessment, conflictsAndHeterogeneity and strengthOfEvidence come from the pooled
 *   analyses when there are any; clinicalRecommendations joins guidance, patient selection and
 *   implementation notes. `metaAnalysis` is the engine's whole result (forest plots, GRADE).
 * @throws AppError 400 NO_STUDIES/TOO_FEW_STUDIES/INVALID_INPUT, 404, 409 NOT_READY, 403, 502
 *   AI_FAILED 'Failed to generate combined analysis'.
 */
export async function bulkAnalysis(
  app: AiApp,
  { ids, meter, model }: { ids: number[]; meter: MeterInput; model?: ModelOverride },
) {
  if (ids.length < 2) throw new AppError("TOO_FEW_STUDIES", "Please select at least 2 studies for meta-analysis", 400);
  const rows = await readyStudies(app, meter.user.id, ids);
  const result = await combine(app, rows, meter, model, "Failed to generate combined analysis");
  const pooled = await poolUploadedStudies(app, rows, model);
  const titleOf = (id: string) => rows.find((r) => String(r.id) === id)?.title ?? id;
  const s = result.combinedSummary;
  const outcomes = s.quantitativeFindings.keyOutcomes;
  const narrative = buildTemplateNarrative(pooled);
  const hasPool = pooled.analyses.length > 0;
  const analysis: BulkAnalysis = {
    executiveSummary: hasPool ? `${narrative.executiveSummary}\n\n${s.executiveSummary}` : s.executiveSummary,
    quantitativeFindings: {
      pooledEffectSize: hasPool ? narrative.quantitativeFindings.pooledEffectSize : notPooledText(pooled, titleOf),
      confidenceIntervals: hasPool
        ? pooled.analyses.map((a) => `${a.outcome} (k = ${a.k}): ${formatPooled(a)}`)
        : outcomes.filter((o) => /\bCI\b|confidence interval/i.test(o)),
      primaryOutcomes: [...(hasPool ? narrative.quantitativeFindings.keyOutcomes : []), ...outcomes],
    },
    commonThemes: s.commonThemes,
    clinicalRecommendations: [
      s.clinicalRecommendations.evidenceBasedGuidance,
      s.clinicalRecommendations.patientSelection,
      s.clinicalRecommendations.implementationConsiderations,
    ]
      .filter((t) => t && t.trim())
      .join("\n\n"),
    conflictsAndHeterogeneity: hasPool
      ? `${narrative.quantitativeFindings.statisticalHeterogeneity}\n\n${s.conflictsAndHeterogeneity}`
      : s.conflictsAndHeterogeneity,
    gradeAssessment: hasPool ? narrative.gradeAssessment : s.gradeAssessment,
    clinicalImplications: s.clinicalImplications,
    strengthOfEvidence: hasPool ? narrative.strengthOfEvidence : s.strengthOfEvidence,
  };
  return { studyCount: rows.length, studies: rows.map(bulkStudy), analysis, metaAnalysis: pooled, model: result.model };
}
