/**
 * Full-text analysis of a stored study (SPEC §7 POST /api/studies/{id}/analyze-fulltext, §8
 * 'Analysis failed'): fetch the open-access PDF or page, then stream a sectioned, grounded
 * analysis and store it as the study's fullTextAnalysis. Professional only (SPEC §1, §6).
 */
import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import { aiSummaries, type UserRow } from "../../../db/schema";
import type { Citation } from "../ai/grounding";
import { getLanguageModel, modelConfigFromEnv, type ResolvedModel } from "../ai/registry";
import { reserveAiUse, type MeteredAction } from "../billing/metering";
import { reservationHeaders, withSettledBody } from "../billing/metered-response";
import type { AppServices } from "../context";
import { createOfflineFullTextModel, streamFullTextAnalysis } from "../fulltext/analyze";
import { fetchFullText, FullTextError, type FetchFullTextOptions, type FullText } from "../fulltext/fetch";
import { AppError, parseInput } from "../http/errors";
import { FULLTEXT_FEATURE, getStudy, saveSummary } from "./queries";

/** The metered action (SPEC §6: full_text_analysis / fullTextAnalysis, Professional only). */
export const FULLTEXT_ACTION: MeteredAction = {
  planFeature: "full_text_analysis",
  guestFeature: "fullTextAnalysis",
  proOnly: true,
};

/** SPEC §8, shown under the title 'Analysis failed'. */
export const ANALYSIS_FAILED_MESSAGE =
  "Some publishers restrict automated access. Try a different open access paper or this paper may require institutional access.";
export const ANALYSIS_FAILED_TITLE = "Analysis failed";

const BodySchema = z.object({
  openAccessUrl: z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : v === null ? undefined : v),
    z.string().trim().url("openAccessUrl must be a URL").max(2048).optional(),
  ),
});

/**
 * Parses the POST body `{openAccessUrl?}` (blank or null means "use the study's own").
 * @throws AppError 400 INVALID_INPUT for a non-object body or a malformed URL.
 */
export function parseAnalyzeBody(body: unknown): { openAccessUrl?: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new AppError("INVALID_INPUT", "The body must be a JSON object", 400);
  }
  return parseInput(BodySchema, body);
}

/** Host names FULLTEXT_ALLOW_HOSTS lets through the private-address guard. */
export function allowedHosts(value: string | undefined): string[] {
  return (value ?? "").split(/[\s,]+/).map((h) => h.trim()).filter(Boolean);
}

/** A stored full-text analysis (GET /api/studies/{id}/fulltext-analysis). */
export interface StoredFullTextAnalysis {
  fullTextAnalysis: string;
  model: string;
  citations: Citation[];
  updatedAt: number;
}

/** The newest stored full-text analysis of a study (any model), or null. */
export async function getStoredFullTextAnalysis(
  { db }: Pick<AppServices, "db">,
  { studyId }: { studyId: number },
): Promise<StoredFullTextAnalysis | null> {
  const [row] = await db
    .select({
      content: aiSummaries.content,
      model: aiSummaries.model,
      citations: aiSummaries.citations,
      updatedAt: aiSummaries.updatedAt,
    })
    .from(aiSummaries)
    .where(and(eq(aiSummaries.studyId, studyId), eq(aiSummaries.feature, FULLTEXT_FEATURE)))
    .orderBy(desc(aiSummaries.updatedAt), desc(aiSummaries.id))
    .limit(1);
  if (!row) return null;
  return { fullTextAnalysis: row.content, model: row.model, citations: row.citations ?? [], updatedAt: row.updatedAt };
}

type FullTextApp = Pick<AppServices, "db" | "env" | "bindings" | "fetch" | "waitUntil">;

export interface AnalyzeFullTextOptions {
  studyId: number;
  /** The parsed JSON body (validated here). */
  body: unknown;
  /** Usually `request.signal`: stops the download and the model when the client goes away. */
  signal?: AbortSignal;
  /** Overrides the registry's model (tests). */
  model?: Pick<ResolvedModel, "model" | "name">;
  /** Who is asking (null user = guest), or null to run unmetered. */
  meter: { user: UserRow | null; request: Request; now?: Date } | null;
  /** Overrides of the download limits (tests); allowHosts defaults to FULLTEXT_ALLOW_HOSTS. */
  fetchOptions?: FetchFullTextOptions;
}

/**
 * POST /api/studies/{id}/analyze-fulltext: analyses the open-access full text of a stored study.
 *
 * Order: 404 for an unknown study; 400 for a bad body; the URL is `openAccessUrl` from the body
 * or else the study's own (none → 400 NO_OPEN_ACCESS 'This study has no open access full text');
 * then one use of full_text_analysis is reserved (403 PRO_REQUIRED unless Professional); then the
 * full text is downloaded with `app.fetch` (fetchFullText: 15 MB, 15 s, 60 pages; private hosts
 * only when FULLTEXT_ALLOW_HOSTS lists them) BEFORE anything is streamed, so a refusal or an
 * unreadable file is a JSON error: 422 `{error:'ANALYSIS_FAILED', title:'Analysis failed',
 * message: <SPEC §8 text>, reason: <what went wrong>, reasonCode: <FullTextErrorCode>}` and the
 * use is given back.
 *
 * Then the analysis streams as text/plain (headers X-Model-Name, X-Full-Text-Kind pdf|html|text,
 * X-Full-Text-Url, X-Full-Text-Pages for PDFs, Cache-Control no-store, Content-Encoding identity).
 * When the model finishes normally the grounded analysis is stored (ai_summaries feature
 * 'fulltext' with its citations) before the body closes and the use is committed; on a model
 * error, an abort or an incomplete answer nothing is stored and the use is released. With the
 * offline model, the analysis is the extractive one of analyze.ts.
 *
 * @throws AppError 404 STUDY_NOT_FOUND; 400 INVALID_INPUT / NO_OPEN_ACCESS; 403 PRO_REQUIRED /
 *   LIMIT_REACHED; 422 ANALYSIS_FAILED; 499 ABORTED when the client went away during the download.
 */
export async function analyzeStudyFullText(app: FullTextApp, options: AnalyzeFullTextOptions): Promise<Response> {
  const study = await getStudy(app, { id: options.studyId });
  if (!study) throw new AppError("STUDY_NOT_FOUND", "Study not found", 404);
  const body = parseAnalyzeBody(options.body);
  const url = body.openAccessUrl ?? study.openAccessUrl?.trim() ?? "";
  if (!url) throw new AppError("NO_OPEN_ACCESS", "This study has no open access full text", 400);

  const reservation = options.meter ? await reserveAiUse(app, options.meter, FULLTEXT_ACTION) : null;
  let settled = false;
  const release = () => {
    if (!reservation || settled) return;
    settled = true;
    app.waitUntil(
      reservation.release().catch((error: unknown) => console.error("could not release an AI use", error)),
    );
  };

  let fullText: FullText;
  try {
    fullText = await fetchFullText({ fetch: app.fetch, signal: options.signal }, url, {
      allowHosts: allowedHosts(app.env.FULLTEXT_ALLOW_HOSTS),
      ...options.fetchOptions,
    });
  } catch (error) {
    release();
    if (options.signal?.aborted) throw new AppError("ABORTED", "The request was aborted.", 499);
    if (error instanceof FullTextError) {
      console.warn(`full text of study ${study.id} unavailable: ${error.code} ${error.message}`);
      throw new AppError("ANALYSIS_FAILED", ANALYSIS_FAILED_MESSAGE, 422, {
        title: ANALYSIS_FAILED_TITLE,
        reason: error.message,
        reasonCode: error.code,
      });
    }
    throw error;
  }

  const resolved = options.model
    ? { ...options.model, provider: undefined }
    : getLanguageModel(modelConfigFromEnv(app.env, app.fetch));
  const model =
    resolved.provider === "offline" ? createOfflineFullTextModel({ delayMs: app.env.OFFLINE_MODEL_DELAY_MS }) : resolved.model;

  const signal = options.signal;
  const onAbort = () => release();
  signal?.addEventListener("abort", onAbort, { once: true });
  let response: Response;
  try {
    response = streamFullTextAnalysis(
      {
        model,
        modelName: resolved.name,
        abortSignal: signal,
        onFinish: async (result) => {
          const stored = saveSummary(app, {
            studyId: study.id,
            model: result.modelName,
            content: result.text,
            feature: FULLTEXT_FEATURE,
            citations: result.citations,
          }).then(async () => {
            settled = true;
            await reservation?.commit();
          });
          app.waitUntil(stored);
          await stored;
        },
        onError: (error) => {
          release();
          console.error("full-text analysis failed", error);
        },
      },
      { title: study.title, text: fullText.text },
    );
  } catch (error) {
    signal?.removeEventListener("abort", onAbort);
    release();
    if (error instanceof RangeError) {
      throw new AppError("ANALYSIS_FAILED", ANALYSIS_FAILED_MESSAGE, 422, {
        title: ANALYSIS_FAILED_TITLE,
        reason: "The full text has no sentences to analyse.",
        reasonCode: "TOO_SHORT",
      });
    }
    throw error;
  }

  const headers = reservationHeaders(reservation, response.headers);
  headers.set("X-Full-Text-Kind", fullText.kind);
  headers.set("X-Full-Text-Url", encodeURIComponent(fullText.finalUrl));
  if (fullText.pages !== undefined) headers.set("X-Full-Text-Pages", String(fullText.pages));
  return withSettledBody(response, headers, () => {
    signal?.removeEventListener("abort", onAbort);
    release();
  });
}
