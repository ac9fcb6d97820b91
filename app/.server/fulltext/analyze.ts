/**
 * Full-text analysis of a paper (SPEC §3 Study.fullTextAnalysis, §7 analyze-fulltext): the text
 * fetched by fetch.ts is cleaned up (PDF line wrapping, running heads, references), cut to a
 * budget keeping the abstract, results and discussion first, split into numbered sentences
 * ([S1] …) and analysed in seven fixed sections, every claim citing its sentences.
 *
 * Remote models get a prompt; the offline model path (`createOfflineFullTextModel`) builds
 * the same sectioned text extractively: for each section, the most central sentences that carry
 * that section's cue words, copied verbatim. Either way the finished text is grounded
 * (grounding.ts): [Sx] markers become citations, verbatim copies are cited, numbers missing from
 * the source are flagged.
 *
 * This module streams the analysis; each step has its own module: prepare-text.ts (clean-up and
 * the paper's sections), text-budget.ts, analysis-prompt.ts, extractive-analysis.ts,
 * offline-fulltext-model.ts and analysis-grounding.ts.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { streamPlainText } from "../ai/text-stream";
import { buildFullTextPrompt } from "./analysis-prompt";
import { groundFullTextAnalysis, type FullTextAnalysisResult } from "./analysis-grounding";

export interface FullTextAnalysisDeps {
  model: LanguageModelV4;
  /** Author line stored with the analysis and sent in the X-Model-Name header. */
  modelName: string;
  /** Usually `request.signal`: aborting stops the model and suppresses onFinish. */
  abortSignal?: AbortSignal;
  /**
   * Called once, after the last chunk and before the body closes, when the model finished
   * normally ("stop"/"other") with non-empty text, with the grounded result. Never on error,
   * abort or a truncated ("length") answer. Errors it throws go to `onError`.
   */
  onFinish: (result: FullTextAnalysisResult) => Promise<void> | void;
  /** Model/stream errors and errors thrown by `onFinish`. */
  onError?: (error: unknown) => void;
  /** Character budget of the analysed text (default `DEFAULT_TEXT_BUDGET`, text-budget.ts). */
  maxChars?: number;
}

/**
 * Streams the full-text analysis of a paper as a `text/plain; charset=utf-8` Response: the
 * model's raw text deltas in order ([Sx] markers of a remote model included), with headers
 * `X-Model-Name: encodeURIComponent(modelName)`, `Cache-Control: no-store` and
 * `Content-Encoding: identity` (Workers would otherwise buffer the stream to compress it).
 *
 * The status is always 200; a failing model errors the body and calls `deps.onError`. After a
 * normal finish the text is grounded ({@link groundFullTextAnalysis}) and handed to
 * `deps.onFinish` before the body closes.
 *
 * @throws RangeError (synchronously) when the text has no sentences.
 */
export function streamFullTextAnalysis(deps: FullTextAnalysisDeps, input: { title: string; text: string }): Response {
  const built = buildFullTextPrompt(input, { maxChars: deps.maxChars });
  return streamPlainText({
    model: deps.model,
    modelName: deps.modelName,
    instructions: built.system,
    prompt: built.prompt,
    abortSignal: deps.abortSignal,
    onComplete: (text) => deps.onFinish(groundFullTextAnalysis(text, built, deps.modelName)),
    onError: deps.onError,
  });
}
