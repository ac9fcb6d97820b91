// ASReview's classic default active-learning cycle, reimplemented for bench/screening.mjs so both
// run in the same process on the same prior pairs. It follows ASReview 2 (asreview/models:
// feature_extractors.Tfidf, classifiers.NaiveBayes, balancers.Balanced, queriers.Max):
// - features: scikit-learn TfidfVectorizer() defaults on title + " " + abstract: lowercase,
//   token pattern (?u)\b\w\w+\b, unigrams, no stop words, raw term counts,
//   idf = ln((1 + n) / (1 + df)) + 1, rows L2-normalised;
// - classifier: MultinomialNB(alpha = 3.822) fitted with sample weights;
// - balance: Balanced(ratio = 1): weight 1 for includes, n_inc / n_exc for excludes, rescaled to
//   sum to n (= scikit-learn's "balanced" sample weights);
// - query: max, i.e. the unlabelled record with the highest P(include | x). With equal weighted
//   class totals the class prior cancels, so ranking by the NB log-likelihood ratio is identical.
// These are the components' own defaults ("plain classic"). ASReview 2's preset ELAS u3 differs
// (Balanced(ratio=1.2), English stop words); its default ELAS u4 is an SVM (see the README's
// ablation table for both designs on our features).

const WORD = /[\p{L}\p{N}_]{2,}/gu;

/** TF-IDF matrix (CSR) of records [{title, abstract}] with scikit-learn's default settings. */
export function baselineFeatures(records) {
  const vocab = new Map();
  const docs = records.map((r) => {
    const text = `${r.title ?? ""} ${r.abstract ?? ""}`.toLowerCase();
    const counts = new Map();
    for (const m of text.matchAll(WORD)) {
      let j = vocab.get(m[0]);
      if (j === undefined) vocab.set(m[0], (j = vocab.size));
      counts.set(j, (counts.get(j) ?? 0) + 1);
    }
    return counts;
  });
  const n = records.length;
  const df = new Float64Array(vocab.size);
  for (const counts of docs) for (const j of counts.keys()) df[j]++;
  const idf = df.map((d) => Math.log((1 + n) / (1 + d)) + 1);
  const rowPtr = new Uint32Array(n + 1);
  const nnz = docs.reduce((s, c) => s + c.size, 0);
  const cols = new Uint32Array(nnz);
  const vals = new Float64Array(nnz);
  let at = 0;
  docs.forEach((counts, i) => {
    const start = at;
    let norm = 0;
    for (const [j, tf] of counts) {
      cols[at] = j;
      vals[at] = tf * idf[j];
      norm += vals[at] ** 2;
      at++;
    }
    for (let p = start; p < at; p++) vals[p] /= Math.sqrt(norm) || 1;
    rowPtr[i + 1] = at;
  });
  return { n, v: vocab.size, rowPtr, cols, vals };
}

/**
 * One retrain + ranking: returns the row of the unlabelled record ASReview would show next.
 * `labelled` maps row → 1 (include) / 0 (exclude).
 */
export function baselineNext(features, labelled, alpha = 3.822) {
  const { n, v, rowPtr, cols, vals } = features;
  let pos = 0;
  for (const y of labelled.values()) pos += y;
  const neg = labelled.size - pos;
  // Balanced(ratio=1): {1: 1, 0: pos/neg}, rescaled so the weights sum to the number of samples.
  const rawTotal = pos + neg * (pos / neg);
  const w1 = labelled.size / rawTotal;
  const w0 = ((pos / neg) * labelled.size) / rawTotal;
  const c1 = new Float64Array(v);
  const c0 = new Float64Array(v);
  let t1 = 0;
  let t0 = 0;
  for (const [row, y] of labelled) {
    const w = y ? w1 : w0;
    const target = y ? c1 : c0;
    for (let p = rowPtr[row]; p < rowPtr[row + 1]; p++) {
      target[cols[p]] += vals[p] * w;
      if (y) t1 += vals[p] * w;
      else t0 += vals[p] * w;
    }
  }
  const n1 = Math.log(t1 + alpha * v);
  const n0 = Math.log(t0 + alpha * v);
  const coef = new Float64Array(v);
  for (let j = 0; j < v; j++) coef[j] = Math.log(c1[j] + alpha) - n1 - Math.log(c0[j] + alpha) + n0;
  let best = -1;
  let bestScore = -Infinity;
  for (let i = 0; i < n; i++) {
    if (labelled.has(i)) continue;
    let s = 0;
    for (let p = rowPtr[i]; p < rowPtr[i + 1]; p++) s += coef[cols[p]] * vals[p];
    if (s > bestScore) {
      bestScore = s;
      best = i;
    }
  }
  return best;
}
