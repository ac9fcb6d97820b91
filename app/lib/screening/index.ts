/**
 * Screening prioritisation for title/abstract screening (pure TypeScript, no I/O; runs in the
 * Worker and the browser).
 *
 * Interface (contract shared with the review projects' screening API and UI):
 *   buildScreeningCorpus(records) → corpus (built once per set of records);
 *   rankScreening(corpus, labels, prior?, order?) → { ranked, mode, estimatedRelevantRemaining,
 *   consecutiveExclusions } after every decision.
 * Additions (backward compatible): serializeScreeningCorpus / deserializeScreeningCorpus for
 * caching a corpus; ScreeningInputError for bad input (duplicate or empty ids, a malformed
 * serialised corpus).
 *
 * Design: ASReview's proven active-learning cycle (van de Schoot et al. 2021, Nat Mach Intell
 * 3:125; TF-IDF features, class-balanced Naive Bayes, "max" query, retrain after every decision)
 * with these changes:
 * - features: unigrams and bigrams, sublinear tf, plural folding, English stop words, title and
 *   keywords weighted ×2 (corpus.ts);
 * - model: Naive Bayes (α 3.822) and a class-balanced squared-hinge linear SVM, each standardised
 *   over the unscreened records and summed (models.ts, rank.ts);
 * - before the first include and first exclude ("prior" mode): cosine similarity to the review
 *   question and inclusion criteria plus any included records;
 * - stopping aid: an exponential discovery curve fitted to the decisions (stopping.ts);
 * - every ranked record carries the terms that contribute most to its score (offline explanation).
 * Units: scores are unitless (higher = screen sooner); ranks are comparable within one call only.
 */
export {
  buildScreeningCorpus,
  serializeScreeningCorpus,
  deserializeScreeningCorpus,
  ScreeningInputError,
  type ScreeningCorpus,
  type ScreeningInput,
} from "./corpus.ts";
export {
  rankScreening,
  type RankResult,
  type RankedRecord,
  type ScreeningLabel,
  type ScreeningPrior,
} from "./rank.ts";
export { estimateRelevantRemaining, trailingExclusions } from "./stopping.ts";
