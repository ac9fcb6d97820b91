/**
 * Study summaries with the ai SDK, streamed as plain text to the browser.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { buildStudySummaryPrompt, type StudyForSummary } from "./prompts";
import { streamPlainText } from "./text-stream";

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
  return streamPlainText({
    model: deps.model,
    modelName: deps.modelName,
    instructions: system,
    prompt,
    abortSignal: deps.abortSignal,
    onComplete: (text) => deps.onFinish({ text: text.trim(), modelName: deps.modelName }),
    onError: deps.onError,
  });
}
