/**
 * The text classifier trained on the records screened so far: multinomial Naive Bayes
 * (McCallum & Nigam 1998) on TF-IDF weights, feature counts weighted by sample weights exactly as
 * scikit-learn's MultinomialNB(alpha).fit(X, y, sample_weight). It returns one weight per feature,
 * log P(j | include) − log P(j | exclude), so scoring a record is one sparse dot product. The
 * class prior is omitted: with balanced weights both classes weigh the same, and a constant does
 * not change a ranking.
 */
import type { ScreeningCorpus } from "./corpus.ts";

export interface LinearModel {
  weights: Float64Array;
  bias: number;
  /** Weight of a feature seen in neither class (smoothing only): evidence of nothing. */
  neutral: number;
}

/** Rows of the training set with their label (1 include, 0 exclude) and sample weight. */
export interface TrainingSet {
  rows: number[];
  labels: Uint8Array;
  sampleWeights: Float64Array;
}

/**
 * Class-balanced sample weights (scikit-learn's compute_sample_weight("balanced"), i.e. ASReview's
 * Balanced(ratio = 1)): w = n / (2 n_class), so both classes weigh n/2 in total.
 */
export function balancedWeights(labels: Uint8Array): Float64Array {
  let pos = 0;
  for (const y of labels) pos += y;
  const neg = labels.length - pos;
  const out = new Float64Array(labels.length);
  for (let i = 0; i < labels.length; i++) {
    out[i] = labels[i] ? labels.length / (2 * Math.max(pos, 1)) : labels.length / (2 * Math.max(neg, 1));
  }
  return out;
}

/** Multinomial NB with Lidstone smoothing `alpha` (> 0). */
export function trainNaiveBayes(corpus: ScreeningCorpus, set: TrainingSet, alpha: number): LinearModel {
  const v = corpus.vocab.length;
  const count1 = new Float64Array(v);
  const count0 = new Float64Array(v);
  let total1 = 0;
  let total0 = 0;
  set.rows.forEach((row, k) => {
    const w = set.sampleWeights[k];
    const target = set.labels[k] ? count1 : count0;
    for (let p = corpus.rowPtr[row]; p < corpus.rowPtr[row + 1]; p++) {
      const x = corpus.vals[p] * w;
      target[corpus.cols[p]] += x;
      if (set.labels[k]) total1 += x;
      else total0 += x;
    }
  });
  const norm1 = Math.log(total1 + alpha * v);
  const norm0 = Math.log(total0 + alpha * v);
  const weights = new Float64Array(v);
  for (let j = 0; j < v; j++) {
    weights[j] = Math.log(count1[j] + alpha) - norm1 - (Math.log(count0[j] + alpha) - norm0);
  }
  return { weights, bias: 0, neutral: norm0 - norm1 };
}

/**
 * ASReview's Balanced(ratio) sample weights (asreview/models/balancers.py): class weights
 * {include: 1, exclude: n_inc / (ratio · n_exc)}, rescaled so the weights sum to n. The includes
 * then weigh `ratio` times the excludes in total (ratio 1 = balancedWeights; ELAS u4 uses 9.8).
 */
export function ratioBalancedWeights(labels: Uint8Array, ratio: number): Float64Array {
  let pos = 0;
  for (const y of labels) pos += y;
  const neg = labels.length - pos;
  const w0 = neg > 0 ? Math.max(pos, 1) / (ratio * neg) : 1;
  const out = new Float64Array(labels.length);
  let total = 0;
  for (let i = 0; i < labels.length; i++) total += out[i] = labels[i] ? 1 : w0;
  const scale = labels.length / total;
  for (let i = 0; i < labels.length; i++) out[i] *= scale;
  return out;
}

/** Options of trainLinearSvm. */
export interface SvmOptions {
  /** Inverse regularisation strength (scikit-learn LinearSVC's C). */
  C: number;
  /** Stop when the projected gradient's range is ≤ tol (liblinear's eps; default 0.1, liblinear's own default for its dual solvers). */
  tol?: number;
  /** Passes over the training set at most (default 100). */
  maxIter?: number;
}

/**
 * L2-regularised, squared-hinge (L2-loss) linear SVM with an intercept, trained by dual coordinate
 * descent (Hsieh et al. 2008, ICML, "A dual coordinate descent method for large-scale linear SVM";
 * liblinear's L2R_L2LOSS_SVC_DUAL, the solver behind scikit-learn's LinearSVC(dual=True)):
 * minimises ½‖w‖² + Σ C·sᵢ·max(0, 1 − yᵢ(w·xᵢ + b))², the intercept b regularised as a constant
 * feature of value 1 (LinearSVC's intercept_scaling = 1). Rows are visited in a fixed order
 * (includes and excludes interleaved) instead of liblinear's random permutation, so results are
 * deterministic. Returns w (per feature) and b; the score of a row is w·x + b. Cost per pass:
 * O(non-zeros of the training rows).
 */
export function trainLinearSvm(corpus: ScreeningCorpus, set: TrainingSet, options: SvmOptions): LinearModel {
  const { rowPtr, cols, vals } = corpus;
  const l = set.rows.length;
  const tol = options.tol ?? 0.1;
  const maxIter = options.maxIter ?? 100;
  const w = new Float64Array(corpus.vocab.length);
  let b = 0;
  const alpha = new Float64Array(l);
  const diag = new Float64Array(l);
  const qd = new Float64Array(l);
  const sign = new Float64Array(l);
  for (let k = 0; k < l; k++) {
    const row = set.rows[k];
    diag[k] = 0.5 / (options.C * set.sampleWeights[k]);
    let sq = 1;
    for (let p = rowPtr[row]; p < rowPtr[row + 1]; p++) sq += vals[p] * vals[p];
    qd[k] = diag[k] + sq;
    sign[k] = set.labels[k] ? 1 : -1;
  }
  const order = visitOrder(set.labels);
  for (let iter = 0; iter < maxIter; iter++) {
    let pgMax = -Infinity;
    let pgMin = Infinity;
    for (const k of order) {
      const row = set.rows[k];
      let dot = b;
      for (let p = rowPtr[row]; p < rowPtr[row + 1]; p++) dot += w[cols[p]] * vals[p];
      const g = sign[k] * dot - 1 + diag[k] * alpha[k];
      const pg = alpha[k] === 0 ? Math.min(g, 0) : g;
      if (pg > pgMax) pgMax = pg;
      if (pg < pgMin) pgMin = pg;
      if (Math.abs(pg) > 1e-12) {
        const old = alpha[k];
        alpha[k] = Math.max(old - g / qd[k], 0);
        const d = (alpha[k] - old) * sign[k];
        for (let p = rowPtr[row]; p < rowPtr[row + 1]; p++) w[cols[p]] += d * vals[p];
        b += d;
      }
    }
    if (pgMax - pgMin <= tol) break;
  }
  return { weights: w, bias: b, neutral: 0 };
}

/** Training rows interleaved by class (the rarer class spread evenly through the pass). */
function visitOrder(labels: Uint8Array): number[] {
  const pos: number[] = [];
  const neg: number[] = [];
  labels.forEach((y, k) => (y ? pos : neg).push(k));
  const [few, many] = pos.length <= neg.length ? [pos, neg] : [neg, pos];
  const out: number[] = [];
  const step = (many.length + 1) / (few.length + 1);
  let f = 0;
  for (let m = 0; m <= many.length; m++) {
    while (f < few.length && (f + 1) * step <= m + 1) out.push(few[f++]);
    if (m < many.length) out.push(many[m]);
  }
  while (f < few.length) out.push(few[f++]);
  return out;
}
