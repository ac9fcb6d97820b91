/**
 * Effect-estimate extraction from study text (abstracts, full-text passages): the reporting
 * grammar (grammar.ts over tokens.ts), then each effect's outcome phrase, comparison, timepoint
 * and whether it is the text's own pooled result (context.ts). Pure; runs in the browser and the
 * Worker. Every value keeps its quote with `text.slice(start, end) === quote`.
 */
import {
  comparisonOf,
  definedOutcomes,
  geneticModelOf,
  isPooledEstimate,
  isVagueOutcome,
  looksLikeReview,
  outcomeOf,
  respectivelyOutcomes,
  timepointOf,
  withoutGeneticModel,
} from "./context.ts";
import { parseEffects, type GrammarEffect } from "./grammar.ts";
import { MEASURE_FAMILY, type MeasureCode, type MeasureFamily } from "./measures.ts";

export { tokenize, type Token } from "./tokens.ts";
export { parseEffects, sentenceRanges, type GrammarEffect, type PValue, type QuotedValue } from "./grammar.ts";
export { MEASURE_FAMILY, MEASURE_NAMES, isRatio, type MeasureCode, type MeasureFamily } from "./measures.ts";
export { isVagueOutcome, looksLikeReview, lowerInitial, tidyPhrase } from "./context.ts";
export {
  normaliseOutcomePhrase,
  normaliseTimepoint,
  outcomesMatch,
  timepointsCompatible,
  timepointDays,
} from "./core/outcomes.ts";

/** One effect estimate with its context. */
export interface ExtractedEffect extends GrammarEffect {
  family: MeasureFamily | null;
  /** The outcome phrase from the effect's sentence; "" when the sentence names none. */
  outcome: string;
  /** True when the outcome phrase names nothing measured ("", "adjusted means differed"): a reviewer must name it. */
  outcomeVague: boolean;
  comparison: string | null;
  timepoint: string | null;
  isPooledEstimate: boolean;
}

/**
 * Every effect estimate with an interval in `text`, with context.
 * @param options.title the study's title (helps tell a meta-analysis from a primary study).
 * @param options.isReview force the design: true for a meta-analysis / systematic review.
 * @param options.sentences the text's sentence spans (a document's shared list); by default the core splitter's.
 */
export function extractEffects(
  text: string,
  options: { title?: string; isReview?: boolean; sentences?: readonly { start: number; end: number }[] } = {},
): ExtractedEffect[] {
  const effects = parseEffects(text, undefined, options.sentences);
  const review = options.isReview ?? looksLikeReview(options.title ?? "", text);
  const bySentence = new Map<number, GrammarEffect[]>();
  for (const e of effects) {
    const list = bySentence.get(e.sentence.start) ?? [];
    list.push(e);
    bySentence.set(e.sentence.start, list);
  }
  const out: ExtractedEffect[] = [];
  const defined = definedOutcomes(text);
  const listed = new Map<number, string[] | null>();
  const subjects = new Map<number, string>();
  for (const e of effects) {
    const siblings = bySentence.get(e.sentence.start)!;
    const k = siblings.indexOf(e);
    const previous = k > 0 ? out[out.length - 1]! : null;
    const previousEnd = previous ? previous.end : e.sentence.start;
    if (!listed.has(e.sentence.start)) listed.set(e.sentence.start, respectivelyOutcomes(text, siblings));
    const list = listed.get(e.sentence.start);
    // A list item that names no outcome of its own ("…, 0.53 (0.44 to 0.63)") keeps the last one named.
    let outcome =
      list?.[k] ?? (outcomeOf(text, e, previousEnd) || (previous?.outcome ?? "") || (k > 0 ? "" : outcomeOf(text, e)));
    // "the primary outcome" / "secondary outcome": the outcome the text defines as such.
    const named =
      /^(?:the\s+)?(?:main\s+)?(primary|secondary)(?:\s+(?:outcome|end\s*point|endpoint|cessation measures?))?$/i.exec(
        outcome,
      );
    if (named) outcome = (named[1]!.toLowerCase() === "primary" ? defined.primary : defined.secondary) ?? outcome;
    // Effects under several genetic models: each row names its model ("migraine under the dominant model").
    const model = geneticModelOf(text, e, previousEnd);
    if (model) {
      const subject =
        withoutGeneticModel(outcome) || subjects.get(e.sentence.start) || withoutGeneticModel(outcomeOf(text, e));
      if (subject) subjects.set(e.sentence.start, subject);
      outcome = subject ? `${subject} under the ${model}` : model;
    }
    out.push({
      ...e,
      family: e.measure ? MEASURE_FAMILY[e.measure as MeasureCode] : null,
      outcome,
      outcomeVague: isVagueOutcome(outcome) || (model !== null && !subjects.has(e.sentence.start)),
      comparison: comparisonOf(text, e, previousEnd),
      timepoint: timepointOf(text, e, k, siblings.length, previousEnd),
      isPooledEstimate: isPooledEstimate(text, e, review),
    });
  }
  return out;
}
