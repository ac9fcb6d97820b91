/**
 * Ranking of the unscreened records (see index.ts for the design and its sources).
 */
import { type ScreeningCorpus, termIndexOf, vectorizeText } from "./corpus.ts";
import { balancedWeights, ratioBalancedWeights, trainLinearSvm, trainNaiveBayes, type TrainingSet } from "./models.ts";
import {
  estimateRelevantRemaining,
  stoppingCriterion,
  type StoppingCriterion,
  type StoppingOptions,
  trailingExclusions,
} from "./stopping.ts";
import { explanationTerms } from "./evidence-terms.ts";

export type ScreeningLabel = "include" | "exclude";

export interface ScreeningPrior {
  question?: string;
  criteria?: string[];
}

export interface RankedRecord {
  id: string;
  score: number;
  terms: string[];
}

export interface RankResult {
  ranked: RankedRecord[];
  mode: "prior" | "active";
  /** Superseded by `stopping` (kept for existing callers): a point estimate, not calibrated. */
  estimatedRelevantRemaining: number | null;
  consecutiveExclusions?: number;
  /** The hypergeometric stopping criterion on the decisions so far (stopping.ts). */
  stopping: StoppingCriterion;
}

/** Options of rankScreening. */
export interface RankOptions {
  /** Recall target and confidence of the stopping criterion (default 95 % / 95 %). */
  stopping?: StoppingOptions;
  /** Compute the legacy estimatedRelevantRemaining (default true; false returns null, saving its fit). */
  estimate?: boolean;
  /** Return only the best `limit` records (default: all), selected without sorting the rest. */
  limit?: number;
  /** Active-mode classifier (default DEFAULT_MODEL); the others exist for the benchmark's ablations. */
  model?: ScreeningModel;
}

/**
 * Active-mode classifiers: "nb" class-balanced multinomial Naive Bayes; "svm" linear SVM with
 * ASReview ELAS u4's settings (C 0.11, squared hinge, Balanced ratio 9.8); "ensemble" the sum of
 * both models' standardised scores.
 */
export type ScreeningModel = "nb" | "svm" | "ensemble";
export const DEFAULT_MODEL: ScreeningModel = "ensemble";
/** ELAS u4's SVM regularisation and include:exclude weight ratio (ASReview 2, asreview/models/models.py). */
export const SVM_C = 0.11;
export const SVM_BALANCE_RATIO = 9.8;

/** Naive Bayes smoothing (ASReview's default, Ferdinands et al. 2023). */
export const NB_ALPHA = 3.822;
/** Matched terms returned per record. */
export const MAX_TERMS = 5;

/** Criteria lines that state an exclusion: their terms must not pull records up. */
const EXCLUSION_LINE = /^\s*(?:[-*•]\s*)?(?:exclu\w*|not\b|no\b|non-|except\b)/i;

function priorText(prior: ScreeningPrior | undefined): string {
  if (!prior) return "";
  const lines = (prior.criteria ?? []).filter((line) => !EXCLUSION_LINE.test(line));
  return [prior.question ?? "", ...lines].join("\n");
}

/** Per-feature weight vector (dense) whose dot product with a row gives its score. */
type WeightVector = Float64Array;

/**
 * The record's terms with the largest positive contributions, weight minus `neutral` (the weight
 * of a term no decision has mentioned), so only evidence from the decisions or the question counts;
 * which of them are shown is explanationTerms' rule (evidence-terms.ts).
 */
function explain(corpus: ScreeningCorpus, row: number, weights: WeightVector, neutral: number): string[] {
  const contributions: [string, number][] = [];
  for (let p = corpus.rowPtr[row]; p < corpus.rowPtr[row + 1]; p++) {
    const c = corpus.vals[p] * (weights[corpus.cols[p]] - neutral);
    if (c > 0) contributions.push([corpus.vocab[corpus.cols[p]], c]);
  }
  return explanationTerms(contributions).slice(0, MAX_TERMS);
}

/**
 * A ranked record whose `terms` are computed on first read (an enumerable getter, so spreading,
 * JSON.stringify and structuredClone see a plain array): a screen shows a handful of records,
 * and explaining all 3,000 on every decision would double the retraining time.
 */
function rankedRecord(
  corpus: ScreeningCorpus,
  row: number,
  score: number,
  weights: WeightVector,
  neutral: number,
): RankedRecord {
  let terms: string[] | undefined;
  return {
    id: corpus.ids[row],
    score,
    get terms() {
      terms ??= explain(corpus, row, weights, neutral);
      return terms;
    },
  };
}

const rowCache = new WeakMap<ScreeningCorpus, ReadonlyMap<string, number>>();

/** id → row of a corpus, built on first use and cached per corpus. */
function rowsOf(corpus: ScreeningCorpus): ReadonlyMap<string, number> {
  let rows = rowCache.get(corpus);
  if (!rows) {
    rows = new Map(corpus.ids.map((id, i) => [id, i]));
    rowCache.set(corpus, rows);
  }
  return rows;
}

/** Similarity-based weights used before the model can be trained. */
function priorWeights(
  corpus: ScreeningCorpus,
  includes: number[],
  excludes: number[],
  prior?: ScreeningPrior,
): WeightVector {
  const weights = new Float64Array(corpus.vocab.length);
  const text = priorText(prior);
  if (text.trim()) {
    for (const [j, w] of vectorizeText(corpus, text, termIndexOf(corpus))) weights[j] += w;
  }
  for (const row of includes) {
    for (let p = corpus.rowPtr[row]; p < corpus.rowPtr[row + 1]; p++) weights[corpus.cols[p]] += corpus.vals[p];
  }
  if (includes.length === 0 && !text.trim()) {
    for (const row of excludes) {
      for (let p = corpus.rowPtr[row]; p < corpus.rowPtr[row + 1]; p++) {
        weights[corpus.cols[p]] -= corpus.vals[p] / excludes.length;
      }
    }
  }
  return weights;
}

/** Scores of `rows` under `weights` (sparse dot products). */
function scoreRows(corpus: ScreeningCorpus, rows: readonly number[], weights: WeightVector, out: Float64Array): void {
  const { rowPtr, cols, vals } = corpus;
  for (const i of rows) {
    let s = 0;
    for (let p = rowPtr[i], end = rowPtr[i + 1]; p < end; p++) s += weights[cols[p]] * vals[p];
    out[i] = s;
  }
}

/**
 * scoreRows under two weight vectors in one pass over the rows: the same sums in the same order as
 * two calls, with each (strided, so cache-missing) row read once instead of twice.
 */
function scoreRowsTwice(
  corpus: ScreeningCorpus,
  rows: readonly number[],
  wa: WeightVector,
  wb: WeightVector,
  outA: Float64Array,
  outB: Float64Array,
): void {
  const { rowPtr, cols, vals } = corpus;
  for (const i of rows) {
    let sa = 0;
    let sb = 0;
    for (let p = rowPtr[i], end = rowPtr[i + 1]; p < end; p++) {
      const c = cols[p];
      const v = vals[p];
      sa += wa[c] * v;
      sb += wb[c] * v;
    }
    outA[i] = sa;
    outB[i] = sb;
  }
}

/** Rows used to estimate a score spread: at most SPREAD_SAMPLE, evenly strided (bounded cost). */
const SPREAD_SAMPLE = 2000;

function spreadSample(rows: readonly number[]): number[] {
  if (rows.length <= SPREAD_SAMPLE) return [...rows];
  const step = rows.length / SPREAD_SAMPLE;
  return Array.from({ length: SPREAD_SAMPLE }, (_, k) => rows[Math.floor(k * step)]);
}

/** Population standard deviation of `scores` over `rows` (1 when it is 0 or there are < 2 rows). */
function spread(scores: Float64Array, rows: readonly number[]): number {
  if (rows.length < 2) return 1;
  let sum = 0;
  for (const i of rows) sum += scores[i];
  const mean = sum / rows.length;
  let sq = 0;
  for (const i of rows) sq += (scores[i] - mean) ** 2;
  return Math.sqrt(sq / rows.length) || 1;
}

/**
 * Model after ≥ 1 include and ≥ 1 exclude, as one weight vector (scores = weights · row; a
 * constant intercept does not change a ranking). "ensemble": each model's weights divided by the
 * standard deviation of its scores over the unlabelled rows (≤ 2,000 of them, strided), then added — a z-score average, which
 * stays linear, so the explanation terms still come from one weight vector. Pauses (`yield`) after
 * each training (see rankScreeningSteps).
 */
function* activeModel(
  corpus: ScreeningCorpus,
  set: TrainingSet,
  model: ScreeningModel,
  unlabelled: readonly number[],
): Generator<void, { weights: WeightVector; neutral: number }> {
  const nb = () => trainNaiveBayes(corpus, { ...set, sampleWeights: balancedWeights(set.labels) }, NB_ALPHA);
  const svm = () =>
    trainLinearSvm(
      corpus,
      { ...set, sampleWeights: ratioBalancedWeights(set.labels, SVM_BALANCE_RATIO) },
      { C: SVM_C },
    );
  if (model === "nb") {
    const m = nb();
    return { weights: m.weights, neutral: m.neutral };
  }
  if (model === "svm") return { weights: svm().weights, neutral: 0 };
  const a = nb();
  yield;
  const b = svm();
  yield;
  const sample = spreadSample(unlabelled);
  const scoresA = new Float64Array(corpus.ids.length);
  const scoresB = new Float64Array(corpus.ids.length);
  scoreRowsTwice(corpus, sample, a.weights, b.weights, scoresA, scoresB);
  const sa = spread(scoresA, sample);
  const sb = spread(scoresB, sample);
  const weights = new Float64Array(a.weights.length);
  for (let j = 0; j < weights.length; j++) weights[j] = a.weights[j] / sa + b.weights[j] / sb;
  return { weights, neutral: a.neutral / sa };
}

/**
 * The `k`-th smallest value of `a` (0-based; `a` is reordered): Hoare's selection (FIND, C. A. R.
 * Hoare 1961, CACM 4:321; the partition as in N. Wirth, Algorithms + Data Structures = Programs,
 * 1976), O(n) on average; values equal to the pivot go to both sides, so ties cost nothing extra.
 */
export function kthSmallest(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}

/**
 * The best `k` of `rows` by score (higher first, ties by row), in order: the k-th largest score is
 * selected (kthSmallest, linear time) from a copy of the scores, then only the rows at or above it
 * are sorted.
 */
function bestOf(rows: number[], scores: Float64Array, k: number, better: (a: number, b: number) => number): number[] {
  if (k <= 0) return [];
  const values = new Float64Array(rows.length);
  rows.forEach((row, i) => (values[i] = scores[row]));
  const threshold = kthSmallest(values, values.length - k);
  return rows
    .filter((row) => scores[row] >= threshold)
    .sort(better)
    .slice(0, k);
}

/**
 * Decisions in screening order (true = include): `order` first filtered to labelled ids of the
 * corpus; labelled ids missing from `order` are taken as older and put first, in `labels`' order.
 */
function decisionSequence(
  labels: ReadonlyMap<string, ScreeningLabel>,
  rowOf: ReadonlyMap<string, number>,
  order?: readonly string[],
): boolean[] {
  const ordered = (order ?? []).filter((id) => labels.has(id) && rowOf.has(id));
  const seen = new Set(ordered);
  const older = [...labels.keys()].filter((id) => !seen.has(id) && rowOf.has(id));
  const ids = [...older, ...new Set(ordered)];
  return ids.map((id) => labels.get(id) === "include");
}

/**
 * Ranks the records of `corpus` not in `labels`, best first.
 * - "prior" mode (until ≥ 1 include and ≥ 1 exclude): cosine similarity of each record to the
 *   question and the inclusion criteria (lines starting "Exclude…", "No…", "Not…" are ignored)
 *   plus the records included so far; with only exclusions and no prior, dissimilarity to them.
 * - "active" mode: `options.model` (default DEFAULT_MODEL, the NB + SVM ensemble) trained on all
 *   labels (retrained on every call).
 * `labels` ids unknown to the corpus are ignored. `order` lists labelled ids in decision order
 * (defaults to `labels`' insertion order) for the run of consecutive exclusions and the stopping
 * estimate (null in prior mode) and the stopping criterion (`stopping`: records of the corpus
 * without a label count as unscreened). `options` (RankOptions) sets the criterion's target and
 * confidence, can skip the legacy estimate, and can keep only the best records. Ties keep the
 * corpus order.
 */
export function rankScreening(
  corpus: ScreeningCorpus,
  labels: ReadonlyMap<string, ScreeningLabel>,
  prior?: ScreeningPrior,
  order?: readonly string[],
  options: RankOptions = {},
): RankResult {
  const steps = rankScreeningSteps(corpus, labels, prior, order, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Rows scored between two pauses of rankScreeningSteps (well under a millisecond of CPU each). */
export const SCORE_CHUNK = 2000;

/**
 * rankScreening in steps, for a caller that shares its thread (a Worker's retraining runs beside
 * the requests of its isolate): the same computation and result, with a pause (`yield`) after each
 * model's training, after the ensemble's standardisation, after every SCORE_CHUNK rows scored and
 * after the selection of the best records, so no step holds the thread for more than a few
 * milliseconds at 20,000 records. Drive it to the end (`next()` until done); its value is the
 * RankResult. rankScreening is this generator run without pauses.
 */
export function* rankScreeningSteps(
  corpus: ScreeningCorpus,
  labels: ReadonlyMap<string, ScreeningLabel>,
  prior?: ScreeningPrior,
  order?: readonly string[],
  options: RankOptions = {},
): Generator<void, RankResult> {
  const rowOf = rowsOf(corpus);
  const includes: number[] = [];
  const excludes: number[] = [];
  const unlabelled: number[] = [];
  const labelledRow = new Uint8Array(corpus.ids.length);
  for (const [id, label] of labels) {
    const row = rowOf.get(id);
    if (row === undefined) continue;
    labelledRow[row] = 1;
    (label === "include" ? includes : excludes).push(row);
  }
  for (let i = 0; i < corpus.ids.length; i++) if (!labelledRow[i]) unlabelled.push(i);

  const active = includes.length > 0 && excludes.length > 0;
  let weights: WeightVector;
  let neutral = 0;
  if (active) {
    const rows = [...includes, ...excludes];
    const y = new Uint8Array(rows.length);
    y.fill(1, 0, includes.length);
    const set = { rows, labels: y, sampleWeights: new Float64Array(rows.length).fill(1) };
    ({ weights, neutral } = yield* activeModel(corpus, set, options.model ?? DEFAULT_MODEL, unlabelled));
  } else {
    weights = priorWeights(corpus, includes, excludes, prior);
  }
  yield;

  const scores = new Float64Array(corpus.ids.length);
  for (let from = 0; from < unlabelled.length; from += SCORE_CHUNK) {
    scoreRows(corpus, unlabelled.slice(from, from + SCORE_CHUNK), weights, scores);
    yield;
  }
  const better = (a: number, b: number) => scores[b] - scores[a] || a - b;
  const limit = options.limit ?? Infinity;
  const sorted = limit >= unlabelled.length ? unlabelled.sort(better) : bestOf(unlabelled, scores, limit, better);
  yield;
  const ranked = sorted.map((i) => rankedRecord(corpus, i, scores[i], weights, neutral));

  const sequence = decisionSequence(labels, rowOf, order);
  return {
    ranked,
    mode: active ? "active" : "prior",
    estimatedRelevantRemaining:
      active && options.estimate !== false ? estimateRelevantRemaining(sequence, corpus.ids.length) : null,
    consecutiveExclusions: trailingExclusions(sequence),
    stopping: stoppingCriterion(sequence, corpus.ids.length, options.stopping),
  };
}
