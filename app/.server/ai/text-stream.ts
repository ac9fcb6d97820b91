/**
 * The one path by which AI texts stream to the browser as plain text (study summaries, specialized
 * analyses, full-text analyses): `streamText` from `ai`, forwarded delta by delta.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { createTextStreamResponse, streamText, type TextStreamPart, type ToolSet } from "ai";

/** Finish reasons of a complete answer ("length" means cut off). */
export const COMPLETE_FINISH_REASONS = new Set(["stop", "other"]);

/**
 * Text deltas as strings. Unlike `toTextStream` from `ai`, which drops error and abort parts and
 * so ends a failed stream as if it had completed, this errors the stream on either, so the HTTP
 * body is cut off (the browser's reader rejects) instead of looking like a finished text.
 */
function textDeltasOrError(): TransformStream<TextStreamPart<ToolSet>, string> {
  return new TransformStream({
    transform(part, controller) {
      if (part.type === "text-delta") controller.enqueue(part.text);
      else if (part.type === "error") controller.error(part.error);
      else if (part.type === "abort")
        controller.error(new DOMException(part.reason ?? "The answer was aborted.", "AbortError"));
    },
  });
}

/**
 * Streams the model's answer to `prompt` as a `text/plain; charset=utf-8` Response whose body is
 * the text deltas in order, with headers `X-Model-Name: encodeURIComponent(modelName)`,
 * `Cache-Control: no-store`, `Content-Encoding: identity` (Workers gzip text responses for clients
 * that accept it, which would buffer the whole stream) and any `headers` given.
 *
 * The status is always 200: the model runs after the Response exists, so a failing model shows up
 * as an erroring body and a call to `onError`. `onComplete` gets the raw text once, before the body
 * closes (which keeps a Worker alive for a write), only after a complete answer ("stop"/"other")
 * with non-empty trimmed text and no error or abort; errors it throws go to `onError`.
 */
export function streamPlainText(options: {
  model: LanguageModelV4;
  modelName: string;
  instructions: string;
  prompt: string;
  abortSignal?: AbortSignal;
  headers?: Record<string, string>;
  onComplete: (text: string) => Promise<void> | void;
  onError?: (error: unknown) => void;
}): Response {
  let failed = false;
  const result = streamText({
    model: options.model,
    instructions: options.instructions,
    prompt: options.prompt,
    abortSignal: options.abortSignal,
    onError: ({ error }) => {
      failed = true;
      options.onError?.(error);
    },
    onEnd: async ({ text, finishReason }) => {
      if (failed || options.abortSignal?.aborted || !text.trim() || !COMPLETE_FINISH_REASONS.has(finishReason)) return;
      try {
        await options.onComplete(text);
      } catch (error) {
        options.onError?.(error);
      }
    },
  });
  return createTextStreamResponse({
    stream: result.stream.pipeThrough(textDeltasOrError()),
    headers: {
      "X-Model-Name": encodeURIComponent(options.modelName),
      "Cache-Control": "no-store",
      "Content-Encoding": "identity",
      ...options.headers,
    },
  });
}
