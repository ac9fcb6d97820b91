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
