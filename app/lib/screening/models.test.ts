import { describe, expect, it } from "vitest";
import type { ScreeningCorpus } from "./corpus.ts";
import { balancedWeights, ratioBalancedWeights, trainLinearSvm, trainNaiveBayes } from "./models.ts";

/** A hand-made corpus: rows are given as {column: weight}. */
function corpusOf(vocab: string[], rows: Record<number, number>[]): ScreeningCorpus {
  const rowPtr = new Uint32Array(rows.length + 1);
  const cols: number[] = [];
  const vals: number[] = [];
  rows.forEach((row, i) => {
    for (const [j, w] of Object.entries(row)) {
      cols.push(Number(j));
      vals.push(w);
    }
    rowPtr[i + 1] = cols.length;
  });
  return {
    version: 1,
    ids: rows.map((_, i) => `r${i}`),
    vocab,
    idf: new Float64Array(vocab.length).fill(1),
    rowPtr,
    cols: Uint32Array.from(cols),
    vals: Float32Array.from(vals),
  };
}

describe("balancedWeights", () => {
  it("gives each class half of the total weight (scikit-learn 'balanced')", () => {
    const w = balancedWeights(Uint8Array.from([1, 0, 0, 0]));
    expect(Array.from(w)).toEqual([2, 2 / 3, 2 / 3, 2 / 3]);
  });
});

describe("trainNaiveBayes", () => {
  it("matches the multinomial NB log-ratio by hand", () => {
    const corpus = corpusOf(["a", "b"], [{ 0: 1 }, { 1: 1 }]);
    const model = trainNaiveBayes(
      corpus,
      { rows: [0, 1], labels: Uint8Array.from([1, 0]), sampleWeights: Float64Array.from([1, 1]) },
      1,
    );
    // P(a|1) = (1+1)/(1+2), P(a|0) = (0+1)/(1+2) → ln 2; b the mirror image
    expect(model.weights[0]).toBeCloseTo(Math.log(2), 12);
    expect(model.weights[1]).toBeCloseTo(-Math.log(2), 12);
    expect(model.neutral).toBeCloseTo(0, 12);
  });

  it("reports the weight of a feature no training record contains", () => {
    const corpus = corpusOf(["a", "b", "unseen"], [{ 0: 1 }, { 1: 0.5 }]);
    const model = trainNaiveBayes(
      corpus,
      { rows: [0, 1], labels: Uint8Array.from([1, 0]), sampleWeights: Float64Array.from([1, 1]) },
      1,
    );
    expect(model.weights[2]).toBeCloseTo(model.neutral, 12);
    expect(model.neutral).toBeCloseTo(Math.log((0.5 + 3) / (1 + 3)), 12);
  });

  it("scales class counts by the sample weights, which changes the smoothing's pull", () => {
    const corpus = corpusOf(["a", "b", "c"], [{ 0: 1 }, { 1: 0.6, 2: 0.8 }, { 1: 1 }, { 2: 1 }]);
    const set = { rows: [0, 1, 2, 3], labels: Uint8Array.from([1, 0, 0, 0]) };
    const plain = trainNaiveBayes(corpus, { ...set, sampleWeights: new Float64Array(4).fill(1) }, 3.822);
    const balanced = trainNaiveBayes(corpus, { ...set, sampleWeights: balancedWeights(set.labels) }, 3.822);
    expect(plain.weights[0]).toBeGreaterThan(0);
    expect(plain.weights[1]).toBeLessThan(0);
    expect(balanced.weights[0]).toBeGreaterThan(plain.weights[0]);
  });
});

describe("ratioBalancedWeights", () => {
  it("gives the includes `ratio` times the excludes' total weight, summing to n (ASReview Balanced)", () => {
    const y = Uint8Array.from([1, 0, 0, 0, 0]);
    const w = ratioBalancedWeights(y, 9.8);
    const inc = w[0];
    const exc = w[1] + w[2] + w[3] + w[4];
    expect(inc / exc).toBeCloseTo(9.8, 12);
    expect(inc + exc).toBeCloseTo(5, 12);
    expect(Array.from(ratioBalancedWeights(y, 1))).toEqual(
      Array.from(balancedWeights(y)).map((x) => expect.closeTo(x, 12)),
    );
  });
});

describe("trainLinearSvm", () => {
  const corpus = corpusOf(
    ["a", "b", "c", "d"],
    [{ 0: 0.8, 2: 0.6 }, { 0: 0.6, 3: 0.8 }, { 1: 1 }, { 1: 0.6, 2: 0.8 }, { 1: 0.8, 3: 0.6 }, { 2: 0.6, 3: 0.8 }],
  );
  const set = {
    rows: [0, 1, 2, 3, 4, 5],
    labels: Uint8Array.from([1, 1, 0, 0, 0, 0]),
    sampleWeights: Float64Array.from([2, 1, 0.5, 1, 1, 0.7]),
  };

  it("reaches the optimum of the weighted squared-hinge primal (its gradient vanishes)", () => {
    const C = 0.8;
    const m = trainLinearSvm(corpus, set, { C, tol: 1e-10, maxIter: 10000 });
    // ∇ of ½(‖w‖² + b²) + Σ C·sᵢ·max(0, 1 − yᵢ(w·xᵢ + b))²
    const grad = [...m.weights, m.bias];
    set.rows.forEach((row, k) => {
      const y = set.labels[k] ? 1 : -1;
      let f = m.bias;
      for (let p = corpus.rowPtr[row]; p < corpus.rowPtr[row + 1]; p++) f += m.weights[corpus.cols[p]] * corpus.vals[p];
      const slack = Math.max(0, 1 - y * f);
      const g = -2 * C * set.sampleWeights[k] * slack * y;
      for (let p = corpus.rowPtr[row]; p < corpus.rowPtr[row + 1]; p++) grad[corpus.cols[p]] += g * corpus.vals[p];
      grad[4] += g;
    });
    for (const g of grad) expect(Math.abs(g)).toBeLessThan(1e-6);
    expect(m.weights[0]).toBeGreaterThan(0);
    expect(m.weights[1]).toBeLessThan(0);
  });

  it("weights errors on heavier samples more (C·s per sample)", () => {
    const light = trainLinearSvm(
      corpus,
      { ...set, sampleWeights: new Float64Array(6).fill(1) },
      { C: 0.11, tol: 1e-8 },
    );
    const heavyIncludes = trainLinearSvm(
      corpus,
      { ...set, sampleWeights: ratioBalancedWeights(set.labels, 9.8) },
      { C: 0.11, tol: 1e-8 },
    );
    expect(heavyIncludes.bias).toBeGreaterThan(light.bias);
    expect(heavyIncludes.weights[0]).toBeGreaterThan(light.weights[0]);
  });
});
