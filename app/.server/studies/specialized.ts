import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import { aiSummaries, type UserRow } from "../../../db/schema";
import type { Citation } from "../ai/grounding";
import { getLanguageModel, modelConfigFromEnv, type ResolvedModel } from "../ai/registry";
import {
  FOCUS_VALUES,
  generateSpecializedSummary,
  isFocus,
  streamSpecializedSummary,
  type Focus,
  type SpecializedResult,
  type SpecializedSource,
} from "../ai/specialized";
import { MIN_ABSTRACT_LENGTH } from "../ai/prompts";
import { reserveAiUse, type MeteredAction } from "../billing/metering";
import { reservationHeaders, withSettledBody } from "../billing/metered-response";
import type { AppServices } from "../context";
import { AppError, parseInput } from "../http/errors";
import { getStudyForAction } from "./ensure";
import { saveSummary } from "./queries";

/** The metered action of a specialized analysis (SPEC §6: specialized_analysis / specializedAnalysis). */
export const SPECIALIZED_ACTION: MeteredAction = {
  planFeature: "specialized_analysis",
  guestFeature: "specializedAnalysis",
};

/** The `feature` of specialized analyses in ai_summaries. */
export const SPECIALIZED_FEATURE = "specialized";
/** Longest `text` accepted (characters). */
export const MAX_TEXT_LENGTH = 50_000;
/** SPEC §8. */
export const AI_FAILED_MESSAGE = "Failed to generate specialized summary. Please try again.";

const BodySchema = z.object({
  studyId: z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d{1,15}$/)
        .transform(Number),
    ])
    .pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER))
    .optional(),
  text: z
    .string()
    .max(MAX_TEXT_LENGTH, `text must be at most ${MAX_TEXT_LENGTH.toLocaleString("en-US")} characters`)
    .optional(),
  regenerate: z.boolean().optional(),
});

/** A validated specialized-analysis request. */
export type SpecializedRequest =
  | { kind: "study"; studyId: number; focus: Focus; regenerate: boolean }
  | { kind: "text"; text: string; focus: Focus; regenerate: boolean };

/**
 * Validates a POST body (SPEC §7): `{studyId, focus}` or `{focus, text}`, optional `regenerate`.
 * A studyId wins when both are given.
 *
 * @throws AppError 400 INVALID_FOCUS (focus not one of the seven), 400 INVALID_INPUT (studyId not a
 *   positive integer, text over 50,000 characters, a non-object body), 400 NO_CONTENT ('No Content
 *   Available': no studyId and a text under 10 trimmed characters or none).
 */
export function parseSpecializedRequest(body: unknown): SpecializedRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new AppError("INVALID_INPUT", "The body must be a JSON object", 400);
  }
  const focus = (body as { focus?: unknown }).focus;
  if (!isFocus(focus)) {
    throw new AppError("INVALID_FOCUS", `focus must be one of: ${FOCUS_VALUES.join(", ")}`, 400);
  }
  const input = parseInput(BodySchema, body);
  const regenerate = input.regenerate === true;
  if (input.studyId !== undefined) return { kind: "study", studyId: input.studyId, focus, regenerate };
  const text = input.text ?? "";
  if (text.trim().length < MIN_ABSTRACT_LENGTH) {
    throw new AppError("NO_CONTENT", "No Content Available", 400);
  }
  return { kind: "text", text, focus, regenerate };
}

/** A stored specialized analysis. */
export interface StoredSpecialized {
  summary: string;
  focus: Focus;
  model: string;
  citations: Citation[];
  updatedAt: number;
}

/**
 * The stored analysis of a study for a focus: the one by `model` when given, else the newest by
 * any model; null when there is none.
 */
export async function getStoredSpecialized(
  { db }: Pick<AppServices, "db">,
  { studyId, focus, model }: { studyId: number; focus: Focus; model?: string },
): Promise<StoredSpecialized | null> {
  const conditions = [
    eq(aiSummaries.studyId, studyId),
    eq(aiSummaries.feature, SPECIALIZED_FEATURE),
    eq(aiSummaries.focus, focus),
  ];
  if (model !== undefined) conditions.push(eq(aiSummaries.model, model));
  const [row] = await db
    .select({
      content: aiSummaries.content,
      model: aiSummaries.model,
      citations: aiSummaries.citations,
      updatedAt: aiSummaries.updatedAt,
    })
    .from(aiSummaries)
    .where(and(...conditions))
    .orderBy(desc(aiSummaries.updatedAt), desc(aiSummaries.id))
    .limit(1);
  if (!row) return null;
  return { summary: row.content, focus, model: row.model, citations: row.citations ?? [], updatedAt: row.updatedAt };
}

type SpecializedApp = Pick<AppServices, "db" | "env" | "bindings" | "fetch" | "waitUntil">;

/** Options of {@link specializedSummarize}. */
export interface SpecializedOptions {
  /** The parsed JSON body (validated here). */
  body: unknown;
  /** "json": generate whole, answer `{summary, focus, model, citations, cached}`; "stream": text/plain. */
  mode: "json" | "stream";
  signal?: AbortSignal;
  /** Overrides the registry's model (tests). */
  model?: Pick<ResolvedModel, "model" | "name">;
  /** Who is asking (null user = guest), or null to run unmetered. */
  meter: { user: UserRow | null; request: Request; now?: Date } | null;
}

/**
 * POST /api/studies/specialized-summarize (SPEC §7): a specialized analysis of a stored study's
 * abstract (`{studyId, focus}`) or of a given text (`{focus, text}`, e.g. title plus abstract or a
 * combined text), grounded in the source's sentences.
 *
 * Cache: study analyses are stored per (study, 'specialized', focus, model) in ai_summaries with
 * their citations; a repeated request answers from the store (no model call, nothing metered)
 * unless `regenerate: true`. Text analyses are never stored.
 *
 * Modes: "json" generates the whole analysis and answers `{summary, focus, model, citations,
 * cached}`; "stream" answers text/plain chunks as the model writes them (headers X-Model-Name,
 * X-Focus, X-Cache HIT|MISS) and stores the grounded result before the body closes, so a client
 * reads the stored `{summary, citations}` from GET /api/studies/{id}/specialized?focus= afterwards.
 *
 * Metering: after validation, the 404 and the No-Abstract checks and the cache lookup, one use of
 * specialized_analysis / specializedAnalysis is reserved; it is committed once the result is
 * stored (or, for a text analysis, complete) and released on failure or abort. The reservation's
 * Set-Cookie headers and `X-AI-Uses-Remaining` (absent when unlimited) go on the response.
 *
 * @throws AppError 400 INVALID_FOCUS / INVALID_INPUT / NO_CONTENT ('No Content Available') /
 *   NO_ABSTRACT ('No Abstract Available'); 404 STUDY_NOT_FOUND; 403 LIMIT_REACHED / PRO_REQUIRED;
 *   502 AI_FAILED ('Failed to generate specialized summary. Please try again.') in JSON mode when the
 *   model fails (nothing is stored or counted then).
 */
export async function specializedSummarize(app: SpecializedApp, options: SpecializedOptions): Promise<Response> {
  const request = parseSpecializedRequest(options.body);
  const { focus } = request;
  let source: SpecializedSource;
  let studyId: number | null = null;
  if (request.kind === "study") {
    const study = await getStudyForAction(app, { id: request.studyId });
    if (!study) throw new AppError("STUDY_NOT_FOUND", "Study not found", 404);
    const abstract = study.abstract ?? "";
    if (abstract.trim().length < MIN_ABSTRACT_LENGTH) {
      throw new AppError("NO_ABSTRACT", "No Abstract Available", 400);
    }
    source = { title: study.title, text: abstract };
    studyId = study.id;
  } else {
    source = { title: "", text: request.text };
  }

  const { model, name } = options.model ?? getLanguageModel(modelConfigFromEnv(app.env, app.fetch));

  if (studyId !== null && !request.regenerate) {
    const cached = await getStoredSpecialized(app, { studyId, focus, model: name });
    if (cached) return cachedResponse(cached, options.mode);
  }

  const reservation = options.meter ? await reserveAiUse(app, options.meter, SPECIALIZED_ACTION) : null;
  const release = () => {
    if (!reservation) return;
    app.waitUntil(reservation.release().catch((error: unknown) => console.error("could not release an AI use", error)));
  };
  const store = async (result: SpecializedResult) => {
    if (studyId !== null) {
      await saveSummary(app, {
        studyId,
        model: result.modelName,
        content: result.text,
        feature: SPECIALIZED_FEATURE,
        focus,
        citations: result.citations,
      });
    }
    await reservation?.commit();
  };

  if (options.mode === "json") {
    let result: SpecializedResult;
    try {
      result = await generateSpecializedSummary(
        { model, modelName: name, abortSignal: options.signal },
        { ...source, focus },
      );
      await store(result);
    } catch (error) {
      release();
      console.error("specialized analysis failed", error);
      throw new AppError("AI_FAILED", AI_FAILED_MESSAGE, 502);
    }
    const headers = reservationHeaders(reservation, {
      "Cache-Control": "no-store",
      "X-Model-Name": encodeURIComponent(name),
    });
    return Response.json(
      { summary: result.text, focus, model: name, citations: result.citations, cached: false },
      { headers },
    );
  }

  const signal = options.signal;
  const onAbort = () => release();
  signal?.addEventListener("abort", onAbort, { once: true });
  let response: Response;
  try {
    response = streamSpecializedSummary(
      {
        model,
        modelName: name,
        abortSignal: signal,
        onFinish: async (result) => {
          const stored = store(result);
          app.waitUntil(stored);
          await stored;
        },
        onError: (error) => {
          release();
          console.error("specialized analysis failed", error);
        },
      },
      { ...source, focus },
    );
  } catch (error) {
    signal?.removeEventListener("abort", onAbort);
    release();
    throw error;
  }
  const headers = reservationHeaders(reservation, response.headers);
  headers.set("X-Cache", "MISS");
  return withSettledBody(response, headers, () => {
    signal?.removeEventListener("abort", onAbort);
    release();
  });
}

/** A cached analysis in the requested mode (X-Cache: HIT). */
function cachedResponse(cached: StoredSpecialized, mode: "json" | "stream"): Response {
  const headers = {
    "Cache-Control": "no-store",
    "X-Model-Name": encodeURIComponent(cached.model),
    "X-Focus": cached.focus,
    "X-Cache": "HIT",
  };
  if (mode === "json") {
    return Response.json(
      { summary: cached.summary, focus: cached.focus, model: cached.model, citations: cached.citations, cached: true },
      { headers },
    );
  }
  return new Response(cached.summary, {
    headers: { ...headers, "Content-Type": "text/plain; charset=utf-8", "Content-Encoding": "identity" },
  });
}
