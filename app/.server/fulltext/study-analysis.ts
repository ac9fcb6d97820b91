/**
 * Full-text analysis of a stored study (SPEC §7 POST /api/studies/{id}/analyze-fulltext, §8
 * 'Analysis failed'): fetch the open-access PDF or page, then stream a sectioned, grounded
 * analysis and store it as the study's fullTextAnalysis. Professional only (SPEC §1, §6).
 *
 * Provenance (issue 11 item 3): every analysis records the URL it was made from. Only an analysis
 * of the study's own open-access location — the URL the search databases gave for it, or the
 * one Unpaywall / Europe PMC resolve (openaccess/service lookupStudy) — is public; an analysis
 * of any other URL a user supplied belongs to that user alone.
 */
import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import { aiSummaries, type UserRow } from "../../../db/schema";
import type { Citation } from "../ai/grounding";
import { getLanguageModel, modelConfigFromEnv, type ResolvedModel } from "../ai/registry";
import { reserveAiUse, type MeteredAction } from "../billing/metering";
import { reservationHeaders, withSettledBody } from "../billing/metered-response";
import type { AppServices } from "../context";
import { streamFullTextAnalysis } from "./analyze";
import { createOfflineFullTextModel } from "./offline-fulltext-model";
import { fetchFullText, FullTextError, type FetchFullTextOptions, type FullText } from "./fetch";
import { AppError, parseInput } from "../http/errors";
import { lookupStudy } from "../openaccess/service";
import { getStudyForAction } from "../studies/ensure";
import { FULLTEXT_FEATURE, PUBLIC_OWNER, saveSummary, visibleTo, type ApiStudy } from "../studies/queries";

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
  return (value ?? "")
    .split(/[\s,]+/)
    .map((h) => h.trim())
    .filter(Boolean);
}

/**
 * Who may see a full-text analysis: `public` (made from the study's own open-access location)
 * or `private` (made from a URL the user supplied; only that user sees it).
 */
export type FullTextVisibility = "public" | "private";

/** A stored full-text analysis (GET /api/studies/{id}/fulltext-analysis). */
export interface StoredFullTextAnalysis {
  fullTextAnalysis: string;
  model: string;
  citations: Citation[];
  updatedAt: number;
  /** The URL the analysed text was fetched from (null for analyses stored before it was recorded). */
  sourceUrl: string | null;
  visibility: FullTextVisibility;
}

/**
 * The newest stored full-text analysis of a study (any model) that `viewerId` may see: a public
 * one, or that viewer's own private one (guests: public only); null when there is none.
 */
export async function getStoredFullTextAnalysis(
  { db }: Pick<AppServices, "db">,
  { studyId, viewerId = null }: { studyId: number; viewerId?: string | null },
): Promise<StoredFullTextAnalysis | null> {
  const [row] = await db
    .select({
      content: aiSummaries.content,
      model: aiSummaries.model,
      citations: aiSummaries.citations,
      updatedAt: aiSummaries.updatedAt,
      sourceUrl: aiSummaries.sourceUrl,
      ownerId: aiSummaries.ownerId,
    })
    .from(aiSummaries)
    .where(and(eq(aiSummaries.studyId, studyId), eq(aiSummaries.feature, FULLTEXT_FEATURE), visibleTo(viewerId)))
    .orderBy(desc(aiSummaries.updatedAt), desc(aiSummaries.id))
    .limit(1);
  if (!row) return null;
  return {
    fullTextAnalysis: row.content,
    model: row.model,
    citations: row.citations ?? [],
    updatedAt: row.updatedAt,
    sourceUrl: row.sourceUrl,
    visibility: row.ownerId === PUBLIC_OWNER ? "public" : "private",
  };
}

/** A URL for comparison: parsed (host lower-cased, default port dropped) without its fragment. */
function comparableUrl(value: string): string | null {
  try {
    const url = new URL(value.trim());
    url.hash = "";
    return url.href;
  } catch {
    return null;
  }
}

/** Which URL to analyse and whether the analysis may be shown to everyone. */
export interface FullTextSource {
  url: string;
  visibility: FullTextVisibility;
}

/**
 * Chooses the URL of a full-text analysis and its visibility.
 *
 * The study's own open-access locations are the URL stored with it from the search databases and
 * the one Unpaywall (by DOI) or Europe PMC (by DOI or PMID) resolve through lookupStudy (cached
 * in KV for a week; looked up only when needed). Without `requested`, the study's own location
 * is analysed (public). With `requested`, the analysis is public only when it is one of the own
 * locations (compared as parsed URLs without fragment); otherwise it is private.
 *
 * @returns null when no URL was requested and the study has no open-access location.
 */
export async function chooseFullTextSource(
  app: Pick<AppServices, "db" | "env" | "fetch" | "bindings">,
  study: Pick<ApiStudy, "id" | "doi" | "pmid" | "isOpenAccess" | "openAccessUrl">,
  requested: string | undefined,
): Promise<FullTextSource | null> {
  const stored = study.openAccessUrl?.trim() || null;
  const wanted = requested ? comparableUrl(requested) : null;
  if (!requested && stored) return { url: stored, visibility: "public" };
  if (requested && stored && wanted === comparableUrl(stored)) return { url: requested, visibility: "public" };
  const resolved =
    study.doi || study.pmid
      ? (await lookupStudy({ db: app.db, fetch: app.fetch, kv: app.bindings.KV, env: app.env }, study)).url
      : null;
  if (!requested) return resolved ? { url: resolved, visibility: "public" } : null;
  const own = resolved !== null && wanted !== null && wanted === comparableUrl(resolved);
  return { url: requested, visibility: own ? "public" : "private" };
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
 * its visibility follows {@link chooseFullTextSource}: public for the study's own open-access
 * location, otherwise private to the requesting user (a private analysis without a signed-in
 * user is streamed but not stored);
 * then one use of full_text_analysis is reserved (403 PRO_REQUIRED unless Professional); then the
 * full text is downloaded with `app.fetch` (fetchFullText: 15 MB, 15 s, 60 pages; private hosts
 * only when FULLTEXT_ALLOW_HOSTS lists them) BEFORE anything is streamed, so a refusal or an
 * unreadable file is a JSON error: 422 `{error:'ANALYSIS_FAILED', title:'Analysis failed',
 * message: <SPEC §8 text>, reason: <what went wrong>, reasonCode: <FullTextErrorCode>}` and the
 * use is given back.
 *
 * Then the analysis streams as text/plain (headers X-Model-Name, X-Full-Text-Kind pdf|html|text,
 * X-Full-Text-Url, X-Full-Text-Pages for PDFs, Cache-Control no-store, Content-Encoding identity).
 * X-Full-Text-Visibility public|private.
 * When the model finishes normally the grounded analysis is stored (ai_summaries feature
 * 'fulltext' with its citations, its source_url and owner_id '' or the user's id) before the body
 * closes and the use is committed; on a model
 * error, an abort or an incomplete answer nothing is stored and the use is released. With the
 * offline model, the analysis is the extractive one of analyze.ts.
 *
 * @throws AppError 404 STUDY_NOT_FOUND; 400 INVALID_INPUT / NO_OPEN_ACCESS; 403 PRO_REQUIRED /
 *   LIMIT_REACHED; 422 ANALYSIS_FAILED; 499 ABORTED when the client went away during the download.
 */
export async function analyzeStudyFullText(app: FullTextApp, options: AnalyzeFullTextOptions): Promise<Response> {
  const study = await getStudyForAction(app, { id: options.studyId });
  if (!study) throw new AppError("STUDY_NOT_FOUND", "Study not found", 404);
  const body = parseAnalyzeBody(options.body);
  const source = await chooseFullTextSource(app, study, body.openAccessUrl);
  if (!source) throw new AppError("NO_OPEN_ACCESS", "This study has no open access full text", 400);
  const url = source.url;
  const ownerId = source.visibility === "public" ? PUBLIC_OWNER : (options.meter?.user?.id ?? null);

  const reservation = options.meter ? await reserveAiUse(app, options.meter, FULLTEXT_ACTION) : null;
  let settled = false;
  const release = () => {
    if (!reservation || settled) return;
    settled = true;
    app.waitUntil(reservation.release().catch((error: unknown) => console.error("could not release an AI use", error)));
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
    resolved.provider === "offline"
      ? createOfflineFullTextModel({ delayMs: app.env.OFFLINE_MODEL_DELAY_MS })
      : resolved.model;

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
          const saved =
            ownerId === null
              ? Promise.resolve()
              : saveSummary(app, {
                  studyId: study.id,
                  model: result.modelName,
                  content: result.text,
                  feature: FULLTEXT_FEATURE,
                  citations: result.citations,
                  ownerId,
                  sourceUrl: url,
                });
          const stored = saved.then(async () => {
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
  headers.set("X-Full-Text-Visibility", source.visibility);
  if (fullText.pages !== undefined) headers.set("X-Full-Text-Pages", String(fullText.pages));
  return withSettledBody(response, headers, () => {
    signal?.removeEventListener("abort", onAbort);
    release();
  });
}
