/**
 * Effect-estimate extraction from study text (abstracts, full-text passages): the reporting
 * grammar (grammar.ts over tokens.ts), then each effect's outcome phrase, comparison, timepoint
 * and whether it is the text's own pooled result (context.ts). Pure; runs in the browser and the
 * Worker. Every value keeps its quote with `text.slice(start, end) === quote`.
 */
import { comparisonOf, definedOutcomes, isPooledEstimate, looksLikeReview, outcomeOf, timepointOf } from "./context.ts";
import { parseEffects, type GrammarEffect } from "./grammar.ts";
import { MEASURE_FAMILY, type MeasureCode, type MeasureFamily } from "./measures.ts";

export { tokenize, type Token } from "./tokens.ts";
export { parseEffects, sentenceRanges, type GrammarEffect, type PValue, type QuotedValue } from "./grammar.ts";
export { MEASURE_FAMILY, MEASURE_NAMES, isRatio, type MeasureCode, type MeasureFamily } from "./measures.ts";
export { looksLikeReview, lowerInitial, tidyPhrase } from "./context.ts";
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
  const out: ExtractedEffect[] = [];
  const defined = definedOutcomes(text);
  for (const e of effects) {
    const siblings = bySentence.get(e.sentence.start)!;
    const k = siblings.indexOf(e);
    const previous = k > 0 ? out[out.length - 1]! : null;
    // A list item that names no outcome of its own ("…, 0.53 (0.44 to 0.63)") keeps the last one named.
    let outcome = outcomeOf(text, e, previous ? previous.end : e.sentence.start) || (previous?.outcome ?? "") || (k > 0 ? "" : outcomeOf(text, e));
    // "the primary outcome" / "secondary outcome": the outcome the text defines as such.
    const named = /^(?:the\s+)?(?:main\s+)?(primary|secondary)(?:\s+(?:outcome|end\s*point|endpoint|cessation measures?))?$/i.exec(outcome);
    if (named) outcome = (named[1]!.toLowerCase() === "primary" ? defined.primary : defined.secondary) ?? outcome;
    out.push({
      ...e,
      family: e.measure ? MEASURE_FAMILY[e.measure as MeasureCode] : null,
      outcome,
      comparison: comparisonOf(text, e),
      timepoint: timepointOf(text, e, k, siblings.length),
      isPooledEstimate: isPooledEstimate(text, e, review),
    });
  }
  return out;
}
