import { describe, expect, it } from "vitest";
import type { ScreeningCorpus } from "./corpus.ts";
import { balancedWeights, trainNaiveBayes } from "./models.ts";

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
    const model = trainNaiveBayes(corpus, { rows: [0, 1], labels: Uint8Array.from([1, 0]), sampleWeights: Float64Array.from([1, 1]) }, 1);
    // P(a|1) = (1+1)/(1+2), P(a|0) = (0+1)/(1+2) → ln 2; b the mirror image
    expect(model.weights[0]).toBeCloseTo(Math.log(2), 12);
    expect(model.weights[1]).toBeCloseTo(-Math.log(2), 12);
    expect(model.neutral).toBeCloseTo(0, 12);
  });

  it("reports the weight of a feature no training record contains", () => {
    const corpus = corpusOf(["a", "b", "unseen"], [{ 0: 1 }, { 1: 0.5 }]);
    const model = trainNaiveBayes(corpus, { rows: [0, 1], labels: Uint8Array.from([1, 0]), sampleWeights: Float64Array.from([1, 1]) }, 1);
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
