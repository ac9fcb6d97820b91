/**
 * POST /api/health-answer (issue 14): search, pick the relevant studies, stream a grounded
 * plain-language answer as NDJSON events, metered like the other AI features.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { streamText } from "ai";
import { z } from "zod";
import type { UserRow } from "../../../db/schema";
import { MAX_QUESTION_CHARS, type AnswerStudy, type HealthAnswerEvent } from "~/lib/sharing";

export type { HealthAnswerEvent };
import { sleep, wrapSource } from "../ai/offline-model";
import { getLanguageModel, modelConfigFromEnv, type ResolvedModel } from "../ai/registry";
import { COMPLETE_FINISH_REASONS } from "../ai/text-stream";
import { reserveAiUse, type MeteredAction } from "../billing/metering";
import { reservationHeaders } from "../billing/metered-response";
import type { AppServices } from "../context";
import { AppError, parseInput } from "../http/errors";
import { NO_FILTERS } from "../search/filters";
import { searchStudies } from "../search/service";
import { PROVIDER_IDS, type ProviderId } from "../search/types";
import { getUserSettings } from "../settings/queries";
import {
  answerStudies,
  composeExtractiveAnswer,
  groundModelAnswer,
  HEALTH_ANSWER_INSTRUCTIONS,
  numberStudies,
  pickRelevantStudies,
  questionToQuery,
  type CandidateStudy,
} from "./compose";

/** Health answers count as AI summaries (SPEC §6: ai_summaries / guest aiSummaries). */
export const HEALTH_ANSWER_ACTION: MeteredAction = { planFeature: "ai_summaries", guestFeature: "aiSummaries" };
/** Records searched for candidate studies. */
export const HEALTH_SEARCH_LIMIT = 25;

const BodySchema = z.object({
  question: z.string().trim().min(3, "Ask a question of at least 3 characters"),
  id: z.string().trim().max(64).optional(),
});

/**
 * Validates a health question.
 * @throws AppError 400 QUESTION_TOO_LONG (over 500 characters), 400 INVALID_INPUT.
 */
export function parseHealthQuestion(body: unknown): { question: string; id: string } {
  const question = (body as { question?: unknown } | null)?.question;
  if (typeof question === "string" && question.trim().length > MAX_QUESTION_CHARS) {
    throw new AppError("QUESTION_TOO_LONG", `The question must be at most ${MAX_QUESTION_CHARS} characters`, 400, {
      limit: MAX_QUESTION_CHARS,
    });
  }
  const input = parseInput(BodySchema, body);
  return { question: input.question, id: input.id ?? String(Date.now()).slice(-6) };
}

/** The databases searched: PubMed for guests and Free; for Professional the default database of their settings (all six for 'multi'). */
async function databasesFor(app: Pick<AppServices, "db">, user: UserRow | null): Promise<ProviderId[]> {
  if (!user || user.plan !== "pro") return ["pubmed"];
  const settings = await getUserSettings(app, { userId: user.id });
  if (settings.defaultSearchProvider === "multi") return [...PROVIDER_IDS];
  return (PROVIDER_IDS as readonly string[]).includes(settings.defaultSearchProvider)
    ? [settings.defaultSearchProvider as ProviderId]
    : ["pubmed"];
}

type HealthApp = Pick<AppServices, "db" | "env" | "bindings" | "fetch" | "waitUntil">;

export interface HealthAnswerOptions {
  body: unknown;
  user: UserRow | null;
  request: Request;
  signal?: AbortSignal;
  /** Overrides the registry's model (tests). */
  model?: Pick<ResolvedModel, "model" | "name" | "provider">;
  /** Overrides the search (tests): the candidate studies for a query. */
  search?: (query: string) => Promise<CandidateStudy[]>;
}

const encoder = new TextEncoder();
const line = (event: HealthAnswerEvent) => encoder.encode(`${JSON.stringify(event)}\n`);

/**
 * Answers a health question: validates it, searches (PubMed for guests and Free users, the
 * user's databases for Professional), keeps the 5 most relevant studies with abstracts, reserves
 * one AI use, then streams `application/x-ndjson` events (see {@link HealthAnswerEvent}) with the
 * X-Model-Name and X-Study-Count headers. The offline model composes the answer extractively from
 * the studies' conclusions (streamed word by word at OFFLINE_MODEL_DELAY_MS); a remote model writes
 * it with [Sx] citations, grounded afterwards. The use is committed once `done` is sent and
 * released on failure or abort.
 *
 * @throws AppError 400 QUESTION_TOO_LONG / INVALID_INPUT; 404 NO_STUDIES (nothing relevant found;
 *   nothing metered); 403 LIMIT_REACHED / PRO_REQUIRED; 503 ALL_PROVIDERS_FAILED.
 */
export async function answerHealthQuestion(app: HealthApp, options: HealthAnswerOptions): Promise<Response> {
  const { question, id } = parseHealthQuestion(options.body);
  const query = questionToQuery(question);
  const search =
    options.search ??
    (async (q: string) => {
      const providers = await databasesFor(app, options.user);
      const result = await searchStudies(app, options.user, {
        query: q,
        page: 1,
        limit: HEALTH_SEARCH_LIMIT,
        providers,
        filters: NO_FILTERS,
      });
      return result.studies;
    });
  const studies = pickRelevantStudies(question, await search(query));
  if (studies.length === 0) {
    throw new AppError("NO_STUDIES", "No studies found for this question. Try rephrasing it.", 404);
  }
  const resolved = options.model ?? getLanguageModel(modelConfigFromEnv(app.env, app.fetch));
  const reservation = await reserveAiUse(app, { user: options.user, request: options.request }, HEALTH_ANSWER_ACTION);
  const release = () =>
    app.waitUntil(reservation.release().catch((e: unknown) => console.error("could not release an AI use", e)));
  const meta: HealthAnswerEvent = {
    type: "meta",
    model: resolved.name,
    studyCount: studies.length,
    studies: answerStudies(studies),
  };
  const finish = (text: string, cited: AnswerStudy[]): HealthAnswerEvent => ({
    type: "done",
    answer: { id, question, answer: text, studyCount: studies.length, studies: cited, model: resolved.name },
  });
  const signal = options.signal;

  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        controller.enqueue(line(meta));
        let done: HealthAnswerEvent;
        if (resolved.provider === "offline") {
          const composed = composeExtractiveAnswer(studies);
          const pieces = composed.text.match(/\S+\s*/g) ?? [];
          for (const [i, piece] of pieces.entries()) {
            if (i > 0 && app.env.OFFLINE_MODEL_DELAY_MS > 0) await sleep(app.env.OFFLINE_MODEL_DELAY_MS, signal);
            controller.enqueue(line({ type: "delta", text: piece }));
          }
          done = finish(composed.text, composed.studies);
        } else {
          done = await streamModelAnswer(resolved.model, question, studies, signal, (text) =>
            controller.enqueue(line({ type: "delta", text })),
          );
        }
        await reservation.commit();
        controller.enqueue(line(done));
        controller.close();
      } catch (error) {
        release();
        if (signal?.aborted) return controller.error(error);
        console.error("health answer failed", error);
        controller.enqueue(line({ type: "error", message: "Failed to generate an answer. Please try again." }));
        controller.close();
      }
    },
    cancel() {
      release();
    },
  });
  const headers = reservationHeaders(reservation, {
    "Content-Type": "application/x-ndjson; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Encoding": "identity",
    "X-Model-Name": encodeURIComponent(resolved.name),
    "X-Study-Count": String(studies.length),
  });
  return new Response(body, { headers });

  async function streamModelAnswer(
    model: LanguageModelV4,
    q: string,
    picked: CandidateStudy[],
    abortSignal: AbortSignal | undefined,
    onDelta: (text: string) => void,
  ): Promise<HealthAnswerEvent> {
    const source = numberStudies(picked);
    const result = streamText({
      model,
      instructions: HEALTH_ANSWER_INSTRUCTIONS,
      prompt: `Question: ${q.replace(/\s+/g, " ")}\n\nAnswer from these ${picked.length} studies, citing sentence ids:\n\n${wrapSource(source.prompt)}`,
      abortSignal,
    });
    let raw = "";
    for await (const part of result.stream) {
      if (part.type === "text-delta") {
        raw += part.text;
        onDelta(part.text);
      } else if (part.type === "error") throw part.error;
      else if (part.type === "abort") throw new DOMException("The answer was aborted.", "AbortError");
    }
    const reason = await result.finishReason;
    if (!raw.trim() || !COMPLETE_FINISH_REASONS.has(reason))
      throw new Error(`The model returned no complete answer (${reason})`);
    const grounded = groundModelAnswer(raw, source, picked);
    if (!/\[\d+\]/.test(grounded.text)) throw new Error("The model's answer cites no study");
    return finish(grounded.text, grounded.studies);
  }
}
