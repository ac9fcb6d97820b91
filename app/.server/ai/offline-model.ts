/**
 * "MetaMind Offline Extractive v1": a LanguageModelV4 that needs no network and no key. It answers
 * every prompt with an extractive summary of the source text in the prompt, so its output only
 * ever contains sentences copied verbatim from that source.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
  SharedV4Warning,
} from "@ai-sdk/provider";
import { summarizeExtractive } from "./extractive";
import { focusedSummaryText, readFocusDirective, summarizeForFocus } from "./focus-extractive";

/** Marks the start of the text a model is asked to work on. */
export const SOURCE_OPEN_TAG = "<source>";
/** Marks the end of the text a model is asked to work on. */
export const SOURCE_CLOSE_TAG = "</source>";

export const OFFLINE_PROVIDER_ID = "metamind-offline";
export const OFFLINE_MODEL_ID = "extractive-v1";

/**
 * Wraps `text` in {@link SOURCE_OPEN_TAG}/{@link SOURCE_CLOSE_TAG} on their own lines. The text is
 * kept byte for byte, so the offline model can quote it exactly.
 */
export function wrapSource(text: string): string {
  return `${SOURCE_OPEN_TAG}\n${text}\n${SOURCE_CLOSE_TAG}`;
}

/**
 * The text between the first {@link SOURCE_OPEN_TAG} and the last {@link SOURCE_CLOSE_TAG} after
 * it, trimmed; the whole input, trimmed, when there is no complete source block.
 */
export function extractSource(promptText: string): string {
  const open = promptText.indexOf(SOURCE_OPEN_TAG);
  if (open === -1) return promptText.trim();
  const from = open + SOURCE_OPEN_TAG.length;
  const close = promptText.lastIndexOf(SOURCE_CLOSE_TAG);
  if (close < from) return promptText.trim();
  return promptText.slice(from, close).trim();
}

/** The text parts of the last user message of `prompt`, joined by newlines ("" when none). */
export function lastUserText(prompt: LanguageModelV4Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i]!;
    if (message.role !== "user") continue;
    return message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  }
  return "";
}

function promptWordCount(prompt: LanguageModelV4Prompt): number {
  let words = 0;
  for (const message of prompt) {
    if (typeof message.content === "string") {
      words += countWords(message.content);
      continue;
    }
    for (const part of message.content) {
      if ("text" in part && typeof part.text === "string") words += countWords(part.text);
    }
  }
  return words;
}

function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

/** Token usage reported by the offline models, counted in words. */
export function wordUsage(inputWords: number, outputWords: number): LanguageModelV4Usage {
  return {
    inputTokens: { total: inputWords, noCache: inputWords, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: outputWords, text: outputWords, reasoning: 0 },
  };
}

function warningsFor(options: LanguageModelV4CallOptions): SharedV4Warning[] {
  const warnings: SharedV4Warning[] = [];
  if (options.tools?.length) {
    warnings.push({ type: "unsupported", feature: "tools", details: "The offline model never calls tools." });
  }
  if (options.responseFormat?.type === "json") {
    warnings.push({
      type: "unsupported",
      feature: "responseFormat",
      details: "The offline model answers in plain text.",
    });
  }
  return warnings;
}

interface Answer {
  /** Word-sized pieces (each word with its trailing whitespace); they concatenate to the text. */
  pieces: string[];
  text: string;
  finishReason: LanguageModelV4FinishReason;
  usage: LanguageModelV4Usage;
}

function answer(options: LanguageModelV4CallOptions, maxSentences: number): Answer {
  const userText = lastUserText(options.prompt);
  const source = extractSource(userText);
  const focus = readFocusDirective(userText);
  const full = focus
    ? focusedSummaryText(summarizeForFocus(source, focus, { maxSentences }))
    : summarizeExtractive(source, { maxSentences })
        .sentences.map((s) => s.text)
        .join(" ");
  let pieces: string[] = full.match(/\S+\s*/g) ?? [];
  let finishReason: LanguageModelV4FinishReason = { unified: "stop", raw: "stop" };
  const limit = options.maxOutputTokens;
  if (limit !== undefined && limit >= 0 && pieces.length > limit) {
    pieces = pieces.slice(0, limit);
    finishReason = { unified: "length", raw: "length" };
  }
  const text = pieces.join("").trimEnd();
  if (pieces.length > 0) pieces[pieces.length - 1] = pieces[pieces.length - 1]!.trimEnd();
  return { pieces, text, finishReason, usage: wordUsage(promptWordCount(options.prompt), pieces.length) };
}

/** The reason an aborted signal carries, or a standard AbortError when it has none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

/** Resolves after `ms`; rejects with the abort reason as soon as `signal` aborts. */
/** Waits `ms` milliseconds; rejects with the abort reason as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Creates the offline extractive model (provider "metamind-offline", model "extractive-v1"),
 * a LanguageModelV4 (specification "v4" of @ai-sdk/provider) usable with `streamText` and
 * `generateText` from `ai`.
 *
 * Input: the text content of the LAST user message; if it contains a {@link wrapSource} block,
 * only the text inside is used. Output: the {@link summarizeExtractive} sentences (default 3,
 * LexRank, Erkan & Radev 2004) joined by single spaces. With a focus directive before the source
 * block (`<focus label="…" terms="…">`, see focus-extractive.ts) the answer is the focused
 * extractive summary instead (`summarizeForFocus`: centrality re-weighted by the focus terms; a
 * source with numbered "[Sn] " lines is read line by line), preceded by the plain lead-in "The
 * source does not discuss {label} directly; its central findings are:" when no sentence mentions
 * the focus. System messages and sampling settings
 * are ignored; `maxOutputTokens` truncates at that many words (finish reason "length").
 *
 * Streaming: stream-start, response-metadata, text-start, one text-delta per word (the word and
 * its trailing whitespace, so deltas concatenate to the full text), text-end, then finish with
 * usage in words (input = all prompt text, output = emitted words) and finish reason "stop".
 * `delayMs` (ms, default 0) is waited between consecutive deltas. When `abortSignal` aborts, no
 * further part is emitted and the stream errors with the signal's reason; an already-aborted
 * signal makes doStream/doGenerate reject with it.
 */
export function createOfflineModel(options: { delayMs?: number; maxSentences?: number } = {}): LanguageModelV4 {
  const delayMs = Number.isFinite(options.delayMs) && options.delayMs! > 0 ? options.delayMs! : 0;
  const maxSentences = options.maxSentences ?? 3;

  return {
    specificationVersion: "v4",
    provider: OFFLINE_PROVIDER_ID,
    modelId: OFFLINE_MODEL_ID,
    supportedUrls: {},

    async doGenerate(call: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
      if (call.abortSignal?.aborted) throw abortReason(call.abortSignal);
      const result = answer(call, maxSentences);
      const content: LanguageModelV4Content[] = result.text ? [{ type: "text", text: result.text }] : [];
      return {
        content,
        finishReason: result.finishReason,
        usage: result.usage,
        warnings: warningsFor(call),
        response: { modelId: OFFLINE_MODEL_ID, timestamp: new Date() },
      };
    },

    async doStream(call: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
      const signal = call.abortSignal;
      if (signal?.aborted) throw abortReason(signal);
      const result = answer(call, maxSentences);
      const id = "text-0";
      const parts: LanguageModelV4StreamPart[] = [
        { type: "stream-start", warnings: warningsFor(call) },
        { type: "response-metadata", modelId: OFFLINE_MODEL_ID, timestamp: new Date() },
      ];
      if (result.pieces.length > 0) {
        parts.push({ type: "text-start", id });
        for (const delta of result.pieces) parts.push({ type: "text-delta", id, delta });
        parts.push({ type: "text-end", id });
      }
      parts.push({ type: "finish", finishReason: result.finishReason, usage: result.usage });

      return { stream: pacedPartStream(parts, delayMs, signal) };
    },
  };
}

/**
 * A stream of pre-computed model parts, as the offline models emit them: the first text-delta at
 * once and each further one `delayMs` (ms) later; every other part without pause. When `signal`
 * aborts, no further part is emitted and the stream errors with the signal's reason.
 */
export function pacedPartStream(
  parts: LanguageModelV4StreamPart[],
  delayMs: number,
  signal: AbortSignal | undefined,
): ReadableStream<LanguageModelV4StreamPart> {
  let next = 0;
  let deltasSent = 0;
  let settled = false;
  let onAbort: (() => void) | undefined;
  return new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      if (!signal) return;
      onAbort = () => {
        if (settled) return;
        settled = true;
        controller.error(abortReason(signal));
      };
      signal.addEventListener("abort", onAbort, { once: true });
    },
    async pull(controller) {
      if (settled) return;
      const part = parts[next]!;
      if (part.type === "text-delta" && deltasSent > 0 && delayMs > 0) {
        try {
          await sleep(delayMs, signal);
        } catch {
          return; // onAbort has already errored the stream
        }
      }
      if (settled) return;
      controller.enqueue(part);
      next++;
      if (part.type === "text-delta") deltasSent++;
      if (next === parts.length) {
        settled = true;
        if (onAbort) signal?.removeEventListener("abort", onAbort);
        controller.close();
      }
    },
    cancel() {
      settled = true;
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    },
  });
}
