// ASReview's models reimplemented for bench/screening.mjs, so the references run in the same
// process on the same prior pairs as the product's ranking. Written from ASReview's documented
// components (read, not copied): asreview/models/feature_extractors.py (Tfidf = scikit-learn
// TfidfVectorizer on title + " " + abstract), classifiers.py (NaiveBayes = MultinomialNB(alpha
// 3.822), SVM = LinearSVC), balancers.py (Balanced(ratio)), balance/double.py (DoubleBalance,
// ASReview 0.x/1.x), queriers (Max: the unlabelled record with the highest score next), and
// ASReview 2's ELAS u4 preset (asreview/models/models.py).
//
// - ELAS u4 (ASReview 2/3's default): TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True,
//   min_df=1, max_df=0.95) + LinearSVC(C=0.11, loss="squared_hinge") fitted with
//   Balanced(ratio=9.8) sample weights, Max query, retrain after every label.
// - classic (ASReview 0.x/1.x's default): TfidfVectorizer() + MultinomialNB(alpha=3.822) on the
//   training set resampled by DoubleBalance(a=2.155, alpha=0.94, b=0.789, beta=1), Max query.
//   One deviation: ASReview 1's Tfidf removed scikit-learn's English stop-word list, which is not
//   available here; the replica keeps every word (ASReview 2's Tfidf default).
// - baselineNext: MultinomialNB(3.822) + Balanced(ratio=1) (the older "plain classic" used by
//   earlier rounds' figures).
// scikit-learn specifics reproduced: token pattern (?u)\b\w\w+\b on lowercased text, n-grams of
// consecutive tokens joined by a space, idf = ln((1 + n) / (1 + df)) + 1, tf or 1 + ln tf, rows
// L2-normalised, max_df as a fraction of documents. LinearSVC: liblinear's dual coordinate
// descent for the L2-loss SVM (Hsieh et al. 2008) with the intercept as a regularised feature of
// value 1 (intercept_scaling=1), tol 1e-4, max_iter 1000, rows visited in a seeded random order.

const WORD = /[\p{L}\p{N}\p{M}_]{2,}/gu;

/**
 * TF-IDF matrix (CSR) of records [{title, abstract}] as scikit-learn's TfidfVectorizer with the
 * given settings: {ngramMax = 1, sublinearTf = false, maxDf = 1 (fraction), minDf = 1 (count)}.
 */
export function tfidfFeatures(records, { ngramMax = 1, sublinearTf = false, maxDf = 1, minDf = 1 } = {}) {
  const vocab = new Map();
  const docs = records.map((r) => {
    const words = `${r.title ?? ""} ${r.abstract ?? ""}`.toLowerCase().match(WORD) ?? [];
    const counts = new Map();
    for (let n = 1; n <= ngramMax; n++) {
      for (let i = 0; i + n <= words.length; i++) {
        const term = n === 1 ? words[i] : words.slice(i, i + n).join(" ");
        let j = vocab.get(term);
        if (j === undefined) vocab.set(term, (j = vocab.size));
        counts.set(j, (counts.get(j) ?? 0) + 1);
      }
    }
    return counts;
  });
  const n = records.length;
  const df = new Float64Array(vocab.size);
  for (const counts of docs) for (const j of counts.keys()) df[j]++;
  // Kept terms get consecutive columns.
  const column = new Int32Array(vocab.size).fill(-1);
  let v = 0;
  for (let j = 0; j < vocab.size; j++) if (df[j] >= minDf && df[j] <= maxDf * n) column[j] = v++;
  const idf = new Float64Array(v);
  for (let j = 0; j < vocab.size; j++) if (column[j] >= 0) idf[column[j]] = Math.log((1 + n) / (1 + df[j])) + 1;
  const rowPtr = new Uint32Array(n + 1);
  const nnz = docs.reduce((s, c) => s + c.size, 0);
  const cols = new Uint32Array(nnz);
  const vals = new Float64Array(nnz);
  let at = 0;
  docs.forEach((counts, i) => {
    const start = at;
    let norm = 0;
    for (const [term, tf] of counts) {
      const j = column[term];
      if (j < 0) continue;
      cols[at] = j;
      vals[at] = (sublinearTf ? 1 + Math.log(tf) : tf) * idf[j];
      norm += vals[at] ** 2;
      at++;
    }
    for (let p = start; p < at; p++) vals[p] /= Math.sqrt(norm) || 1;
    rowPtr[i + 1] = at;
  });
  return { n, v, rowPtr, cols: cols.subarray(0, at), vals: vals.subarray(0, at) };
}

/** TfidfVectorizer() defaults (classic's features). */
export const baselineFeatures = (records) => tfidfFeatures(records);
/** ELAS u4's features. */
export const elasU4Features = (records) => tfidfFeatures(records, { ngramMax: 2, sublinearTf: true, maxDf: 0.95 });

/** Balanced(ratio) sample weights: {1: 1, 0: n1 / (ratio · n0)}, rescaled to sum to n. */
export function balancedSampleWeights(y, ratio) {
  const n1 = y.reduce((s, t) => s + t, 0);
  const n0 = y.length - n1;
  const w = y.map((t) => (t ? 1 : n1 / (ratio * n0)));
  const total = w.reduce((s, x) => s + x, 0);
  return w.map((x) => (x * y.length) / total);
}

/** Multinomial NB (weighted feature counts, Lidstone alpha) → per-feature log-likelihood ratio. */
function nbCoef(features, rows, y, weights, alpha) {
  const { v, rowPtr, cols, vals } = features;
  const c1 = new Float64Array(v);
  const c0 = new Float64Array(v);
  let t1 = 0;
  let t0 = 0;
  rows.forEach((row, k) => {
    const target = y[k] ? c1 : c0;
    for (let p = rowPtr[row]; p < rowPtr[row + 1]; p++) {
      const x = vals[p] * weights[k];
      target[cols[p]] += x;
      if (y[k]) t1 += x;
      else t0 += x;
    }
  });
  const n1 = Math.log(t1 + alpha * v);
  const n0 = Math.log(t0 + alpha * v);
  const coef = new Float64Array(v);
  for (let j = 0; j < v; j++) coef[j] = Math.log(c1[j] + alpha) - n1 - Math.log(c0[j] + alpha) + n0;
  return coef;
}

/**
 * LinearSVC(C, loss="squared_hinge", tol=1e-4, max_iter=1000) with sample weights: liblinear's
 * dual coordinate descent, rows visited in a random order (`rand`) each pass. Returns {coef, intercept}.
 * `warm` (optional Map row → dual variable) starts from the previous fit's duals and receives the
 * new ones: the dual is strictly convex (the squared hinge adds 1/(2C·s) to its diagonal), so the
 * optimum is the same as from zero, reached in fewer passes (a bench speed-up only).
 */
export function trainLinearSvc(features, rows, y, weights, C, rand, warm) {
  const { v, rowPtr, cols, vals } = features;
  const l = rows.length;
  const w = new Float64Array(v);
  let b = 0;
  const alpha = new Float64Array(l);
  const diag = weights.map((s) => 0.5 / (C * s));
  if (warm) {
    rows.forEach((row, k) => {
      const a = warm.get(row) ?? 0;
      if (a === 0) return;
      alpha[k] = a;
      const d = a * (y[k] ? 1 : -1);
      for (let p = features.rowPtr[row]; p < features.rowPtr[row + 1]; p++) w[features.cols[p]] += d * features.vals[p];
      b += d;
    });
  }
  const qd = rows.map((row, k) => {
    let sq = 1;
    for (let p = rowPtr[row]; p < rowPtr[row + 1]; p++) sq += vals[p] ** 2;
    return sq + diag[k];
  });
  const sign = y.map((t) => (t ? 1 : -1));
  const index = rows.map((_, k) => k);
  for (let iter = 0; iter < 1000; iter++) {
    for (let i = l - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [index[i], index[j]] = [index[j], index[i]];
    }
    let pgMax = -Infinity;
    let pgMin = Infinity;
    for (const k of index) {
      const row = rows[k];
      let dot = b;
      for (let p = rowPtr[row]; p < rowPtr[row + 1]; p++) dot += w[cols[p]] * vals[p];
      const g = sign[k] * dot - 1 + diag[k] * alpha[k];
      const pg = alpha[k] === 0 ? Math.min(g, 0) : g;
      pgMax = Math.max(pgMax, pg);
      pgMin = Math.min(pgMin, pg);
      if (Math.abs(pg) > 1e-12) {
        const old = alpha[k];
        alpha[k] = Math.max(old - g / qd[k], 0);
        const d = (alpha[k] - old) * sign[k];
        for (let p = rowPtr[row]; p < rowPtr[row + 1]; p++) w[cols[p]] += d * vals[p];
        b += d;
      }
    }
    if (pgMax - pgMin <= 1e-4) break;
  }
  if (warm) rows.forEach((row, k) => warm.set(row, alpha[k]));
  return { coef: w, intercept: b };
}

/** Max query: the unlabelled row with the highest coef · x (+ a constant). */
function maxQuery(features, labelled, coef) {
  const { n, rowPtr, cols, vals } = features;
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

const split = (labelled) => {
  const rows = [...labelled.keys()];
  return { rows, y: rows.map((r) => labelled.get(r)) };
};

/**
 * ELAS u4: the next row. `labelled` maps row → 1 (include) / 0 (exclude); `rand` seeds LinearSVC;
 * `warm` (a Map kept across one simulation's steps) warm-starts it.
 */
export function elasU4Next(features, labelled, rand, warm) {
  const { rows, y } = split(labelled);
  const { coef } = trainLinearSvc(features, rows, y, balancedSampleWeights(y, 9.8), 0.11, rand, warm);
  return maxQuery(features, labelled, coef);
}

/**
 * DoubleBalance(a=2.155, alpha=0.94, b=0.789, beta=1): the training rows resampled to the same
 * count, includes weighted a·(n1/n0)^−alpha, excludes 1 − (1 − b)(1 + ln n)^−beta; random rounding
 * of the include count (kept in [1, n − 2]), each class filled by whole copies plus a sample
 * without replacement.
 */
export function doubleBalance(rows, y, rand) {
  const ones = rows.filter((_, k) => y[k]);
  const zeros = rows.filter((_, k) => !y[k]);
  const n = rows.length;
  const oneWeight = 2.155 * (ones.length / zeros.length) ** -0.94;
  const zeroWeight = 1 - (1 - 0.789) * (1 + Math.log(n)) ** -1;
  const value = (oneWeight * ones.length * n) / (oneWeight * ones.length + zeroWeight * zeros.length);
  let nOne = Math.floor(value);
  if (rand() < value - nOne) nOne++;
  nOne = Math.max(1, Math.min(n - 2, nOne));
  const fill = (src, count) => {
    const copies = Math.floor(count / src.length);
    const out = [];
    for (let c = 0; c < copies; c++) out.push(...src);
    const pool = [...src];
    for (let k = 0; k < count - copies * src.length; k++) {
      const j = k + Math.floor(rand() * (pool.length - k));
      [pool[k], pool[j]] = [pool[j], pool[k]];
      out.push(pool[k]);
    }
    return out;
  };
  const one = fill(ones, nOne);
  const zero = fill(zeros, n - nOne);
  return { rows: [...one, ...zero], y: [...one.map(() => 1), ...zero.map(() => 0)] };
}

/** classic: NB(3.822) on the DoubleBalance resample; the next row. */
export function classicNext(features, labelled, rand) {
  const { rows, y } = split(labelled);
  const sample = doubleBalance(rows, y, rand);
  const coef = nbCoef(
    features,
    sample.rows,
    sample.y,
    sample.y.map(() => 1),
    3.822,
  );
  return maxQuery(features, labelled, coef);
}

/** NB(3.822) + Balanced(ratio=1) (earlier rounds' "plain classic"): the next row. */
export function baselineNext(features, labelled, alpha = 3.822) {
  const { rows, y } = split(labelled);
  return maxQuery(features, labelled, nbCoef(features, rows, y, balancedSampleWeights(y, 1), alpha));
}
