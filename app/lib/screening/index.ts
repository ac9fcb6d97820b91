/**
 * Screening prioritisation for title/abstract screening (pure TypeScript, no I/O; runs in the
 * Worker and the browser).
 *
 * Interface (contract shared with the review projects' screening API and UI):
 *   buildScreeningCorpus(records) → corpus (built once per set of records; corpusBuilder() adds
 *   them one at a time, for paged reads);
 *   rankScreening(corpus, labels, prior?, order?, stoppingOptions?) → { ranked, mode,
 *   estimatedRelevantRemaining, consecutiveExclusions, stopping } after every decision.
 * Additions (backward compatible): serializeScreeningCorpus / deserializeScreeningCorpus for
 * caching a corpus; ScreeningInputError for bad input (duplicate or empty ids, a malformed
 * serialised corpus).
 *
 * Design: ASReview's proven active-learning cycle (van de Schoot et al. 2021, Nat Mach Intell
 * 3:125: TF-IDF features, "max" query — the record most likely to be relevant comes next —
 * retrain after every decision) with an ensemble of its two default classifiers (ADR 0031;
 * bench/screening.mjs has the figures, the ASReview replicas and the leave-one-review-out table):
 * - class-balanced multinomial Naive Bayes, α = 3.822 (ASReview's classic default);
 * - a linear SVM with ASReview ELAS u4's settings (squared hinge, C = 0.11, includes weighted 9.8×
 *   the excludes in total), trained by dual coordinate descent (models.ts);
 * - the ranking score is the sum of both models' scores, each divided by its standard deviation
 *   over the unscreened records (a z-score average with no fitted weight); rankScreening's
 *   `model` option runs either model alone for the benchmark's ablations.
 * Features (corpus.ts): unigrams with sublinear term frequency (1 + ln tf), title and keyword
 * tokens ×2, terms in > 95 % of records dropped, Unicode tokens with accents folded, hyphenated
 * names kept whole, pure numbers dropped.
 * Before the first include and first exclude ("prior" mode) records are ranked by cosine
 * similarity to the review question and inclusion criteria plus any included records. The
 * stopping aid is the hypergeometric test of Callaghan & Müller-Hansen 2020 on the ranked tail of
 * the decisions (stopping.ts: recall ≥ target with a stated confidence, and a lower confidence
 * bound on recall); the older point estimate of relevant records left (exponential and
 * half-normal discovery curves) is still returned for existing callers. Every ranked
 * record carries the terms that contribute most to its score (offline explanation), computed on
 * first read.
 * Units: scores are unitless (higher = screen sooner); ranks are comparable within one call only.
 */
export {
  buildScreeningCorpus,
  buildCorpusWith,
  corpusBuilder,
  DEFAULT_FEATURES,
  type FeatureOptions,
  serializeScreeningCorpus,
  deserializeScreeningCorpus,
  ScreeningInputError,
  type CorpusBuilder,
  type ScreeningCorpus,
  type ScreeningInput,
} from "./corpus.ts";
export {
  DEFAULT_MODEL,
  rankScreening,
  rankScreeningSteps,
  SCORE_CHUNK,
  type RankOptions,
  type ScreeningModel,
  type RankResult,
  type RankedRecord,
  type ScreeningLabel,
  type ScreeningPrior,
} from "./rank.ts";
export {
  estimateRelevantRemaining,
  logHypergeometricCdf,
  stoppingCriterion,
  trailingExclusions,
  type StoppingCriterion,
  type StoppingOptions,
} from "./stopping.ts";
