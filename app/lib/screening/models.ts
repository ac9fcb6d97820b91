/**
 * Linear text classifiers trained on the records screened so far. Both return one weight per
 * feature plus a bias, so scoring a record is one sparse dot product.
 *
 * - Multinomial Naive Bayes (McCallum & Nigam 1998), feature counts weighted by sample weights as
 *   in scikit-learn's MultinomialNB(alpha); the weight of feature j is log P(j|include) − log P(j|exclude).
 * - L2-regularised linear SVM with the squared hinge loss, solved in the dual by coordinate
 *   descent (Hsieh et al. 2008, ICML, "A dual coordinate descent method for large-scale linear
 *   SVM", Algorithm 1; liblinear's L2R_L2LOSS_SVC_DUAL), with per-class costs C_+ and C_−.
 */
import type { ScreeningCorpus } from "./corpus.ts";

export interface LinearModel {
  weights: Float64Array;
  bias: number;
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
  return { weights, bias: 0 };
}

/**
 * Squared-hinge linear SVM: min ½‖w‖² + Σ_i C_i max(0, 1 − y_i (w·x_i + b))², with C_i = C × sample
 * weight, bias as a constant feature of value 1 (liblinear's -B 1). Stops when the largest projected
 * gradient falls below `tolerance` or after `maxEpochs` passes.
 */
export function trainLinearSvm(
  corpus: ScreeningCorpus,
  set: TrainingSet,
  c: number,
  maxEpochs = 50,
  tolerance = 1e-3,
): LinearModel {
  const m = set.rows.length;
  const weights = new Float64Array(corpus.vocab.length);
  let bias = 0;
  const alpha = new Float64Array(m);
  const diag = new Float64Array(m);
  const qii = new Float64Array(m);
  const sign = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    const row = set.rows[k];
    let sq = 1;
    for (let p = corpus.rowPtr[row]; p < corpus.rowPtr[row + 1]; p++) sq += corpus.vals[p] * corpus.vals[p];
    diag[k] = 1 / (2 * c * set.sampleWeights[k]);
    qii[k] = sq + diag[k];
    sign[k] = set.labels[k] ? 1 : -1;
  }
  const order = Array.from({ length: m }, (_, k) => k);
  let seed = 0x9e3779b9;
  for (let epoch = 0; epoch < maxEpochs; epoch++) {
    for (let k = m - 1; k > 0; k--) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      const r = seed % (k + 1);
      [order[k], order[r]] = [order[r], order[k]];
    }
    let maxPg = 0;
    for (const k of order) {
      const row = set.rows[k];
      let dot = bias;
      for (let p = corpus.rowPtr[row]; p < corpus.rowPtr[row + 1]; p++) dot += weights[corpus.cols[p]] * corpus.vals[p];
      const g = sign[k] * dot - 1 + diag[k] * alpha[k];
      const pg = alpha[k] === 0 ? Math.min(g, 0) : g;
      if (Math.abs(pg) < 1e-12) continue;
      maxPg = Math.max(maxPg, Math.abs(pg));
      const old = alpha[k];
      alpha[k] = Math.max(old - g / qii[k], 0);
      const delta = (alpha[k] - old) * sign[k];
      if (delta === 0) continue;
      for (let p = corpus.rowPtr[row]; p < corpus.rowPtr[row + 1]; p++) weights[corpus.cols[p]] += delta * corpus.vals[p];
      bias += delta;
    }
    if (maxPg < tolerance) break;
  }
  return { weights, bias };
}

/** Score of every row: w·x + b. */
export function scoreRows(corpus: ScreeningCorpus, model: LinearModel): Float64Array {
  const n = corpus.ids.length;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = model.bias;
    for (let p = corpus.rowPtr[i]; p < corpus.rowPtr[i + 1]; p++) s += model.weights[corpus.cols[p]] * corpus.vals[p];
    out[i] = s;
  }
  return out;
}
