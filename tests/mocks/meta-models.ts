/**
 * Test doubles for the meta-analysis model calls: a MockLanguageModelV4 that streams a fixed text
 * (as structured output arrives), or fails. Used by node and Workers tests only.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 4, text: 4, reasoning: 0 },
};

/** The text of a call's prompt (all text parts of all messages). */
export function promptText(options: LanguageModelV4CallOptions): string {
  return options.prompt
    .flatMap((m) =>
      typeof m.content === "string"
        ? [m.content]
        : m.content.flatMap((p) => ("text" in p && typeof p.text === "string" ? [p.text] : [])),
    )
    .join("\n");
}

/**
 * A model that answers every call with `text` (e.g. JSON.stringify of an object), in pieces; a
 * function gets the prompt's text and may answer per call.
 */
export function textModel(text: string | ((prompt: string) => string), pieces = 6): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async (options) => {
      const body = typeof text === "function" ? text(promptText(options)) : text;
      const size = Math.max(1, Math.ceil(body.length / pieces));
      const deltas: string[] = [];
      for (let i = 0; i < body.length; i += size) deltas.push(body.slice(i, i + size));
      const parts: LanguageModelV4StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "t", delta })),
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
      ];
      return { stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: 0 }) };
    },
  });
}

/**
 * A model whose every call fails with `message`: thrown from doStream (`how: "throw"`, as a
 * provider's HTTP error is), or reported as an error part of the stream (`how: "stream"`; inside
 * workerd a thrown doStream error also surfaces as an unhandled rejection from the ai SDK's
 * telemetry wrapper, which the Workers test pool reports).
 */
export function failingModel(message: string, how: "throw" | "stream" = "throw"): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async () => {
      if (how === "throw") throw new Error(message);
      const parts: LanguageModelV4StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "error", error: new Error(message) },
      ];
      return { stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: 0 }) };
    },
  });
}
