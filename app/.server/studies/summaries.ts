import type { UserRow } from "../../../db/schema";
import type { AppServices } from "../context";
import { citeExtractive, groundText, numberSourceSentences, type Citation } from "../ai/grounding";
import { buildStudySummaryPrompt, NoAbstractError } from "../ai/prompts";
import { getLanguageModel, modelConfigFromEnv, OFFLINE_MODEL_NAME, type ResolvedModel } from "../ai/registry";
import { streamStudySummary } from "../ai/summarize";
import { AppError } from "../http/errors";
import { reserveAiUse, type MeteredAction } from "../billing/metering";
import { reservationHeaders, withSettledBody } from "../billing/metered-response";
import { eq } from "drizzle-orm";
import { studies } from "../../../db/schema";
import { saveSummary } from "./queries";
import { ensureStudy } from "./ensure";

/** The metered action of a single study summary (SPEC §6: keyed ai_summaries / aiSummaries). */
export const SUMMARY_ACTION: MeteredAction = { planFeature: "ai_summaries", guestFeature: "aiSummaries" };

/**
 * Grounds a finished plain summary in the study's abstract (issue 4 "Grounding"). An extractive
 * summary (the offline model copies abstract sentences) is kept as written and each copied
 * sentence is cited ({@link citeExtractive}). A model's summary goes through {@link groundText}:
 * numbers found in neither the title nor the abstract are wrapped as `⟦unverified: …⟧`, [Sx]
 * markers (if any) become citations, and verbatim copies are cited otherwise.
 *
 * @returns the text to store and its citations (quotes of the abstract with offsets into
 *   `study.abstract`, anchors into the returned text).
 */
export function groundStudySummary(
  text: string,
  study: { title: string; abstract: string | null },
  { extractive }: { extractive: boolean },
): { text: string; citations: Citation[] } {
  const abstract = study.abstract ?? "";
  const sentences = numberSourceSentences(abstract);
  if (extractive) return { text, citations: citeExtractive(text, sentences) };
  const grounded = groundText(text, sentences, `${study.title}\n${abstract}`);
  return { text: grounded.text, citations: grounded.citations };
}

/**
 * Streams a fresh AI summary of a stored study as plain-text chunks and stores it, grounded in the
 * abstract ({@link groundStudySummary}) with its citations and the model's name, once the model
 * has finished (nothing is stored when the stream fails or the client goes away). The model's name is sent in the X-Model-Name header. `model` defaults to the
 * registry's choice for this environment (OpenAI, OpenAI-compatible or the offline model).
 *
 * Metering (`meter`): after the 404/400 checks one use is reserved (see reserveAiUse); it is
 * committed once the summary is stored and released when the model fails, the stream ends without
 * a stored summary, or the client aborts. The reservation's Set-Cookie headers (guest device
 * cookie) are added to the response, and `X-AI-Uses-Remaining` carries the uses left in the
 * window (absent when unlimited). `meter: null` runs unmetered (internal callers and tests).
 *
 * @throws AppError 404 STUDY_NOT_FOUND; 400 NO_ABSTRACT ('No Abstract Available'); 403
 *   LIMIT_REACHED / PRO_REQUIRED from reserveAiUse (nothing is streamed then).
 */
export async function regenerateStudySummary(
  app: Pick<AppServices, "db" | "env" | "bindings" | "fetch" | "waitUntil">,
  {
    studyId: requestedId,
    signal,
    model: resolved,
    meter,
  }: {
    studyId: number;
    signal?: AbortSignal;
    /** Overrides the registry's model; `provider: "offline"` (or the offline name) means extractive. */
    model?: Pick<ResolvedModel, "model" | "name"> & Partial<Pick<ResolvedModel, "provider">>;
    /**
     * Who is asking (null user = guest; a promise lets the session lookup run alongside the
     * study lookup), or null to run unmetered.
     */
    meter: { user: UserRow | null | Promise<UserRow | null>; request: Request; now?: Date } | null;
  },
): Promise<Response> {
  // The row, alongside the session lookup: one read when it is stored; stored first when only a search had shown it
  // (issue 17).
  const rowOf = async (id: number) => (await app.db.select().from(studies).where(eq(studies.id, id)).limit(1))[0];
  const [study, user] = await Promise.all([
    rowOf(requestedId).then(
      async (row) => row ?? ensureStudy(app, requestedId).then((id) => (id === null ? undefined : rowOf(id))),
    ),
    meter?.user ?? null,
  ]);
  if (!study) throw new AppError("STUDY_NOT_FOUND", "Study not found", 404);
  const studyId = study.id;
  try {
    buildStudySummaryPrompt(study); // validates the abstract before a use is reserved
  } catch (error) {
    if (error instanceof NoAbstractError) {
      throw new AppError("NO_ABSTRACT", "No Abstract Available", 400);
    }
    throw error;
  }
  const { model, name, provider } = resolved ?? getLanguageModel(modelConfigFromEnv(app.env, app.fetch));
  const reservation = meter ? await reserveAiUse(app, { ...meter, user }, SUMMARY_ACTION) : null;
  const release = () => {
    if (!reservation) return;
    const done = reservation.release().catch((error: unknown) => {
      console.error("could not release an AI use", error);
    });
    app.waitUntil(done);
  };
  const onAbort = () => release();
  signal?.addEventListener("abort", onAbort, { once: true });

  let response: Response;
  try {
    response = streamStudySummary(
      {
        model,
        modelName: name,
        abortSignal: signal,
        onFinish: async ({ text, modelName }) => {
          const extractive = provider === "offline" || modelName === OFFLINE_MODEL_NAME;
          const grounded = groundStudySummary(text, study, { extractive });
          const stored = saveSummary(app, {
            studyId,
            model: modelName,
            content: grounded.text,
            citations: grounded.citations,
          }).then(() => reservation?.commit());
          app.waitUntil(stored);
          await stored;
        },
        onError: (error) => {
          release();
          console.error("summary generation failed", error);
        },
      },
      study,
    );
  } catch (error) {
    signal?.removeEventListener("abort", onAbort);
    release();
    throw error;
  }
  if (!reservation) return response;
  return withSettledBody(response, reservationHeaders(reservation, response.headers), () => {
    signal?.removeEventListener("abort", onAbort);
    release();
  });
}
