/**
 * POST /api/studies/batch-summarize (SPEC §7): the combined research summary of the studies the
 * client sends, as one JSON answer or, with `Accept: application/x-ndjson`, as a stream of
 * partial objects (see `streamCombinedSummary`). Metered as an AI summary (issue 4: Free users
 * count against AI_SUMMARIES_PER_MONTH, guests against aiSummaries), counted once and only after
 * success.
 */
import { z } from "zod";
import type { UserRow } from "../../../db/schema";
import {
  COMBINED_FAILED_MESSAGE,
  generateCombinedSummary,
  streamCombinedSummary,
  type CombinedResult,
} from "../ai/combined";
import { NoStudyContentError, studySources, type CombinedStudyInput } from "../ai/combined-sources";
import { getLanguageModel, modelConfigFromEnv, type ResolvedModel } from "../ai/registry";
import { reserveAiUse, type Reservation } from "../billing/metering";
import type { AppServices } from "../context";
import { AppError, describeZodError } from "../http/errors";

/** Most studies per combined summary. */
export const MAX_COMBINED_STUDIES = 50;
/** Longest abstract accepted per study, in characters (models see at most MAX_STUDY_CHARS of it). */
const MAX_ABSTRACT_INPUT = 50_000;

const StudySchema = z.looseObject({
  id: z.union([z.number(), z.string()], { error: "id must be a number or a string" }).nullish(),
  title: z
    .string({ error: "title must be a string" })
    .trim()
    .min(1, "Every study needs a title")
    .max(1000, "A title may have at most 1000 characters"),
  abstract: z
    .string({ error: "abstract must be a string or null" })
    .max(MAX_ABSTRACT_INPUT, `An abstract may have at most ${MAX_ABSTRACT_INPUT} characters`)
    .nullish(),
  journal: z.string({ error: "journal must be a string or null" }).max(500).nullish(),
  publicationDate: z.string({ error: "publicationDate must be a string or null" }).max(100).nullish(),
});

const BodySchema = z.object(
  {
    studies: z
      .array(StudySchema, { error: "studies must be an array of studies" })
      .max(MAX_COMBINED_STUDIES, `At most ${MAX_COMBINED_STUDIES} studies can be summarized at once`)
      .optional(),
    regenerate: z.boolean({ error: "regenerate must be true or false" }).optional(),
  },
  { error: "The body must be a JSON object" },
);

/**
 * Validates the request body `{studies: [{id?, title, abstract?, journal?, publicationDate?, …}]}`.
 *
 * @throws AppError 400 NO_STUDIES 'No studies selected' when `studies` is missing or empty (SPEC
 *   §5: "the combined analysis needs at least 1"); 400 INVALID_INPUT for any other invalid shape
 *   (more than 50 studies, a study without a title, a non-string abstract…).
 */
export function parseBatchSummarizeBody(body: unknown): { studies: CombinedStudyInput[]; regenerate: boolean } {
  const result = BodySchema.safeParse(body);
  if (!result.success) throw new AppError("INVALID_INPUT", describeZodError(result.error), 400);
  const studies = result.data.studies ?? [];
  if (studies.length === 0) throw new AppError("NO_STUDIES", "No studies selected", 400);
  return { studies, regenerate: result.data.regenerate === true };
}

/** How long a finished combined summary is kept in KV (seconds): 30 days. */
export const COMBINED_CACHE_TTL_S = 30 * 24 * 3600;

/**
 * KV key of the combined summary of `studies` by `modelName`: "combined:v1:" + SHA-256 (hex) of
 * the model name and each study's title, abstract, journal and date, in the request's order (the
 * order numbers the citations). Ids are left out: the same texts give the same summary.
 */
export async function combinedCacheKey(studies: CombinedStudyInput[], modelName: string): Promise<string> {
  const canonical = JSON.stringify([
    modelName,
    studies.map((s) => [s.title, s.abstract ?? null, s.journal ?? null, s.publicationDate ?? null]),
  ]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `combined:v1:${hex}`;
}

/** The cached result as the client would have received it: JSON, or one NDJSON done line. */
function cachedResponse(result: CombinedResult, stream: boolean): Response {
  const headers = { "Cache-Control": "no-store", "X-Cache": "HIT", "X-Model-Name": encodeURIComponent(result.model) };
  if (!stream) return Response.json(result, { headers });
  return new Response(`${JSON.stringify({ type: "done", ...result })}\n`, {
    headers: { ...headers, "Content-Type": "application/x-ndjson; charset=utf-8" },
  });
}

/** Whether the client asked for the NDJSON stream (`Accept: application/x-ndjson`). */
export function wantsNdjson(request: Request): boolean {
  return /\bapplication\/x-ndjson\b/i.test(request.headers.get("Accept") ?? "");
}

function withHeaders(response: Response, extra: Headers): Response {
  for (const [name, value] of extra) response.headers.append(name, value);
  return response;
}

/**
 * Answers POST /api/studies/batch-summarize for validated studies.
 *
 * Order: content check (400 NO_CONTENT 'No Content Available' when no study has an abstract of
 * 10+ characters; studies without one are still analysed by title and listed in `notes`), then
 * the usage reservation (403 LIMIT_REACHED from `reserveAiUse`), then the model (the registry's
 * choice unless `model` is given).
 *
 * - JSON (default): 200 `{studiesAnalyzed, combinedSummary, combinedText, model, citationSources,
 *   notes}`; a model failure is 502 `{error:'AI_FAILED', message:'Failed to analyze studies. Please
 *   try again.'}` (SPEC §8) and gives the use back.
 * - NDJSON: the stream of `streamCombinedSummary`; the use is committed when the done line is
 *   about to be written, and given back before an error line is written or when the client goes
 *   away.
 *
 * Cache: a finished summary is kept in KV under {@link combinedCacheKey} (same texts, same
 * model) for 30 days; a later request for it is answered from there (header X-Cache: HIT) without
 * running the model or counting a use, unless `regenerate` is true. Nothing is stored on failure,
 * so a failure leaves nothing half-written. The reservation's headers (the guest device cookie) go
 * on every answer after the reservation.
 */
export async function combinedSummaryResponse(
  app: Pick<AppServices, "db" | "env" | "bindings" | "fetch">,
  input: {
    studies: CombinedStudyInput[];
    user: UserRow | null;
    request: Request;
    stream: boolean;
    regenerate?: boolean;
    model?: Pick<ResolvedModel, "model" | "name" | "provider">;
  },
): Promise<Response> {
  if (!studySources(input.studies).some((s) => s.hasAbstract)) {
    throw new AppError("NO_CONTENT", "No Content Available", 400);
  }
  const resolved = input.model ?? getLanguageModel(modelConfigFromEnv(app.env, app.fetch));
  const cacheKey = await combinedCacheKey(input.studies, resolved.name);
  if (!input.regenerate) {
    const cached = await app.bindings.KV.get<CombinedResult>(cacheKey, "json");
    if (cached) return cachedResponse(cached, input.stream);
  }
  const reservation: Reservation = await reserveAiUse(
    app,
    { user: input.user, request: input.request },
    { planFeature: "ai_summaries", guestFeature: "aiSummaries" },
  );
  const release = () =>
    reservation.release().catch((error: unknown) => console.error("could not give back an AI use", error));
  const deps = {
    model: resolved.model,
    modelName: resolved.name,
    provider: resolved.provider,
    abortSignal: input.request.signal,
    onFinish: async (result: CombinedResult) => {
      await reservation.commit();
      await app.bindings.KV.put(cacheKey, JSON.stringify(result), { expirationTtl: COMBINED_CACHE_TTL_S }).catch(
        (error: unknown) => console.warn("could not cache the combined summary", error),
      );
    },
    // Four word-pauses of the offline model per section: about the pace of a remote model.
    offlineDelayMs: Math.min(1000, 4 * (app.env.OFFLINE_MODEL_DELAY_MS ?? 0)),
  };

  if (input.stream) {
    try {
      const response = streamCombinedSummary(
        {
          ...deps,
          onError: async (error) => {
            if (input.request.signal.aborted) console.warn("combined summary abandoned by the client", error);
            else console.error("combined summary failed", error);
            await release();
          },
        },
        input.studies,
      );
      return withHeaders(response, reservation.headers);
    } catch (error) {
      await release();
      if (error instanceof NoStudyContentError) throw new AppError("NO_CONTENT", "No Content Available", 400);
      throw error;
    }
  }

  try {
    const result = await generateCombinedSummary(deps, input.studies);
    return withHeaders(Response.json(result, { headers: { "Cache-Control": "no-store" } }), reservation.headers);
  } catch (error) {
    await release();
    if (error instanceof NoStudyContentError) throw new AppError("NO_CONTENT", "No Content Available", 400);
    console.error("combined summary failed", error);
    return withHeaders(
      Response.json({ error: "AI_FAILED", message: COMBINED_FAILED_MESSAGE }, { status: 502 }),
      reservation.headers,
    );
  }
}
