/**
 * Effect-estimate extraction from study text (abstracts, full-text passages): the reporting
 * grammar (grammar.ts over tokens.ts), then each effect's outcome phrase, comparison, timepoint
 * and whether it is the text's own pooled result (context.ts). Pure; runs in the browser and the
 * Worker. Every value keeps its quote with `text.slice(start, end) === quote`.
 */
import { comparisonOf, isPooledEstimate, looksLikeReview, outcomeOf, timepointOf } from "./context.ts";
import { parseEffects, type GrammarEffect } from "./grammar.ts";
import { MEASURE_FAMILY, type MeasureCode, type MeasureFamily } from "./measures.ts";

export { tokenize, type Token } from "./tokens.ts";
export { parseEffects, sentenceRanges, type GrammarEffect, type PValue, type QuotedValue } from "./grammar.ts";
export { MEASURE_FAMILY, MEASURE_NAMES, isRatio, type MeasureCode, type MeasureFamily } from "./measures.ts";
export { looksLikeReview, tidyPhrase } from "./context.ts";
export { normaliseOutcomePhrase, normaliseTimepoint, outcomesMatch, timepointsCompatible, timepointDays } from "./outcomes.ts";

/** One effect estimate with its context. */
export interface ExtractedEffect extends GrammarEffect {
  family: MeasureFamily | null;
  /** The outcome phrase from the effect's sentence; "" when the sentence names none. */
  outcome: string;
  comparison: string | null;
  timepoint: string | null;
  isPooledEstimate: boolean;
}

/**
 * Every effect estimate with an interval in `text`, with context.
 * @param options.title the study's title (helps tell a meta-analysis from a primary study).
 * @param options.isReview force the design: true for a meta-analysis / systematic review.
 */
export function extractEffects(text: string, options: { title?: string; isReview?: boolean } = {}): ExtractedEffect[] {
  const effects = parseEffects(text);
  const review = options.isReview ?? looksLikeReview(options.title ?? "", text);
  const bySentence = new Map<number, GrammarEffect[]>();
  for (const e of effects) {
    const list = bySentence.get(e.sentence.start) ?? [];
    list.push(e);
    bySentence.set(e.sentence.start, list);
  }
  return effects.map((e) => {
    const siblings = bySentence.get(e.sentence.start)!;
    return {
      ...e,
      family: e.measure ? MEASURE_FAMILY[e.measure as MeasureCode] : null,
      outcome: outcomeOf(text, e),
      comparison: comparisonOf(text, e),
      timepoint: timepointOf(text, e, siblings.indexOf(e), siblings.length),
      isPooledEstimate: isPooledEstimate(text, e, review),
    };
  });
}
