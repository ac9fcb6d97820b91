/**
 * The offline model of full-text analyses: a LanguageModelV4 that answers a full-text analysis
 * prompt with the extractive analysis of its numbered paper.
 */
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { abortReason, lastUserText, OFFLINE_PROVIDER_ID, pacedPartStream, wordUsage } from "../ai/offline-model";
import { parseFullTextSource } from "./analysis-prompt";
import { extractiveAnalysis, formatExtractiveAnalysis } from "./extractive-analysis";

/** The offline model id of the full-text analysis. */
export const OFFLINE_FULLTEXT_MODEL_ID = "extractive-fulltext-v1";

function offlineAnswer(call: LanguageModelV4CallOptions): { pieces: string[]; text: string } {
  const text = formatExtractiveAnalysis(extractiveAnalysis(parseFullTextSource(lastUserText(call.prompt))));
  return { pieces: text.match(/\S+\s*/g) ?? [], text };
}

/**
 * The offline model for full-text analyses: a LanguageModelV4 (provider "metamind-offline", like
 * the registry's offline model, whose name it shares) that reads the numbered paper of a
 * `buildFullTextPrompt` (analysis-prompt.ts) prompt and answers with {@link formatExtractiveAnalysis} of
 * {@link extractiveAnalysis}: verbatim sentences only, apart from the first-line note and the
 * "nothing found" line.
 *
 * Streams like the registry's offline model: one text-delta per word (with its trailing
 * whitespace), the first at once and each next one `delayMs` later; usage counted in words;
 * aborting errors the stream with the signal's reason.
 */
export function createOfflineFullTextModel(options: { delayMs?: number } = {}): LanguageModelV4 {
  const delayMs = Number.isFinite(options.delayMs) && options.delayMs! > 0 ? options.delayMs! : 0;
  const inputWords = (call: LanguageModelV4CallOptions) => lastUserText(call.prompt).match(/\S+/g)?.length ?? 0;
  return {
    specificationVersion: "v4",
    provider: OFFLINE_PROVIDER_ID,
    modelId: OFFLINE_FULLTEXT_MODEL_ID,
    supportedUrls: {},
    async doGenerate(call) {
      if (call.abortSignal?.aborted) throw abortReason(call.abortSignal);
      const { pieces, text } = offlineAnswer(call);
      return {
        content: [{ type: "text", text }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: wordUsage(inputWords(call), pieces.length),
        warnings: [],
        response: { modelId: OFFLINE_FULLTEXT_MODEL_ID, timestamp: new Date() },
      };
    },
    async doStream(call) {
      const signal = call.abortSignal;
      if (signal?.aborted) throw abortReason(signal);
      const { pieces } = offlineAnswer(call);
      const parts: LanguageModelV4StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "response-metadata", modelId: OFFLINE_FULLTEXT_MODEL_ID, timestamp: new Date() },
        { type: "text-start", id: "t" },
        ...pieces.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "t", delta })),
        { type: "text-end", id: "t" },
        {
          type: "finish",
          finishReason: { unified: "stop", raw: "stop" },
          usage: wordUsage(inputWords(call), pieces.length),
        },
      ];
      return { stream: pacedPartStream(parts, delayMs, signal) };
    },
  };
}
