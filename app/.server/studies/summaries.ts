import type { AppServices } from "../context";
import { NoAbstractError } from "../ai/prompts";
import { getLanguageModel, type ResolvedModel } from "../ai/registry";
import { streamStudySummary } from "../ai/summarize";
import { AppError } from "../http/errors";
import { recordAiUsage } from "../billing/usage";
import { getStudy, saveSummary } from "./queries";

/**
 * Streams a fresh AI summary of a stored study as plain-text chunks and stores it, with the
 * model's name, once the model has finished (nothing is stored when the stream fails or the
 * client goes away). The model's name is sent in the X-Model-Name header. `model` defaults to the
 * registry's choice for this environment (OpenAI, OpenAI-compatible or the offline model).
 *
 * @throws AppError 404 STUDY_NOT_FOUND; 400 NO_ABSTRACT ('No Abstract Available').
 */
export async function regenerateStudySummary(
  app: Pick<AppServices, "db" | "env" | "fetch" | "waitUntil">,
  {
    studyId,
    signal,
    model: resolved,
    userId,
  }: {
    studyId: number;
    signal?: AbortSignal;
    model?: Pick<ResolvedModel, "model" | "name">;
    /** The signed-in user, whose monthly AI usage counts this summary once it is stored. */
    userId?: string | null;
  },
): Promise<Response> {
  const study = await getStudy(app, { id: studyId });
  if (!study) throw new AppError("STUDY_NOT_FOUND", "Study not found", 404);
  const { model, name } =
    resolved ??
    getLanguageModel({
    OPENAI_API_KEY: app.env.OPENAI_API_KEY,
    OPENAI_BASE_URL: app.env.OPENAI_BASE_URL,
    AI_MODEL: app.env.AI_MODEL,
    OFFLINE_MODEL_DELAY_MS: app.env.OFFLINE_MODEL_DELAY_MS,
    fetch: app.fetch,
  });
  try {
    return streamStudySummary(
      {
        model,
        modelName: name,
        abortSignal: signal,
        onFinish: async ({ text, modelName }) => {
          const stored = saveSummary(app, { studyId, model: modelName, content: text }).then(() =>
            userId ? recordAiUsage(app, { userId, now: new Date() }) : undefined,
          );
          app.waitUntil(stored);
          await stored;
        },
        onError: (error) => console.error("summary generation failed", error),
      },
      study,
    );
  } catch (error) {
    if (error instanceof NoAbstractError) {
      throw new AppError("NO_ABSTRACT", "No Abstract Available", 400);
    }
    throw error;
  }
}
