/**
 * Study summaries with the ai SDK: streamed as plain text to the browser, or generated whole.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { createTextStreamResponse, generateText, streamText, type TextStreamPart, type ToolSet } from "ai";
import { buildStudySummaryPrompt, type StudyForSummary } from "./prompts";

export interface StudySummaryDeps {
  model: LanguageModelV4;
  /** Author line stored with the summary and sent in the X-Model-Name header. */
  modelName: string;
  /** Usually `request.signal`: aborting stops the model call and suppresses onFinish. */
  abortSignal?: AbortSignal;
  /**
   * Called once, after the last chunk and before the response body closes, when the model
   * finished normally ("stop"/"other") with non-empty text. Never on error, abort, or a
   * truncated ("length") answer. Errors it throws go to `onError`.
   */
  onFinish: (result: { text: string; modelName: string }) => Promise<void> | void;
  /** Model/stream errors and errors thrown by `onFinish`. */
  onError?: (error: unknown) => void;
}

/** The model returned no text for a summary request. */
export class EmptySummaryError extends Error {
  constructor(message = "The model returned an empty summary") {
    super(message);
    this.name = "EmptySummaryError";
  }
}

const COMPLETE_FINISH_REASONS = new Set(["stop", "other"]);

/**
 * Text deltas as strings. Unlike `toTextStream` from `ai`, which drops error and abort parts and
 * so ends a failed stream as if it had completed, this errors the stream on either, so the HTTP
 * body is cut off (the browser's reader rejects) instead of looking like a finished summary.
 */
function textDeltasOrError(): TransformStream<TextStreamPart<ToolSet>, string> {
  return new TransformStream({
    transform(part, controller) {
      if (part.type === "text-delta") controller.enqueue(part.text);
      else if (part.type === "error") controller.error(part.error);
      else if (part.type === "abort") controller.error(new DOMException(part.reason ?? "The summary was aborted.", "AbortError"));
    },
  });
}

/**
 * Streams a plain-language summary of `study` (see `buildStudySummaryPrompt`) as a
 * `text/plain; charset=utf-8` Response whose body is the model's text deltas in order, with
 * headers `X-Model-Name: encodeURIComponent(modelName)`, `Cache-Control: no-store` and
 * `Content-Encoding: identity` (no buffering compression on the way to the browser).
 * Equivalent to `streamText(...).toTextStreamResponse(...)` (deprecated in ai v7), except that
 * a model error mid-stream errors the body rather than closing it cleanly.
 *
 * The status is always 200: the model is called after the Response exists, so a failing model
 * shows up as an erroring body and a call to `deps.onError`. `deps.onFinish` runs only after a
 * normal finish with non-empty text (trimmed), and the body closes after it resolves, which
 * keeps a Worker alive for the write.
 *
 * @throws NoAbstractError (synchronously) when the study has no usable abstract.
 */
export function streamStudySummary(deps: StudySummaryDeps, study: StudyForSummary): Response {
  const { system, prompt } = buildStudySummaryPrompt(study);
  let failed = false;

  const result = streamText({
    model: deps.model,
    instructions: system,
    prompt,
    abortSignal: deps.abortSignal,
    onError: ({ error }) => {
      failed = true;
      deps.onError?.(error);
    },
    onEnd: async ({ text, finishReason }) => {
      const summary = text.trim();
      if (failed || deps.abortSignal?.aborted || !summary || !COMPLETE_FINISH_REASONS.has(finishReason)) return;
      try {
        await deps.onFinish({ text: summary, modelName: deps.modelName });
      } catch (error) {
        deps.onError?.(error);
      }
    },
  });

  return createTextStreamResponse({
    stream: result.stream.pipeThrough(textDeltasOrError()),
    headers: {
      "X-Model-Name": encodeURIComponent(deps.modelName),
      "Cache-Control": "no-store",
      // Workers gzip text responses for clients that accept it, which buffers the whole stream;
      // an explicit identity encoding keeps every chunk flowing to the browser as it is written.
      "Content-Encoding": "identity",
    },
  });
}

/**
 * Generates the whole summary of `study` at once (`generateText`) and returns it trimmed.
 *
 * @throws NoAbstractError when the study has no usable abstract.
 * @throws EmptySummaryError when the model returns only whitespace.
 * @throws the model's error (e.g. `APICallError` from `ai`) or the abort reason, as generateText does.
 */
export async function generateStudySummary(
  deps: Pick<StudySummaryDeps, "model" | "abortSignal">,
  study: StudyForSummary,
): Promise<string> {
  const { system, prompt } = buildStudySummaryPrompt(study);
  const { text } = await generateText({
    model: deps.model,
    instructions: system,
    prompt,
    abortSignal: deps.abortSignal,
  });
  const summary = text.trim();
  if (!summary) throw new EmptySummaryError();
  return summary;
}
