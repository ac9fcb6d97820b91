import { describe, expect, it } from "vitest";
import {
  buildCorpusWith,
  buildScreeningCorpus,
  corpusBuilder,
  DEFAULT_FEATURES,
  deserializeScreeningCorpus,
  ScreeningInputError,
  serializeScreeningCorpus,
  termIndexOf,
  type ScreeningCorpus,
} from "./corpus.ts";

const records = [
  { id: "a", title: "Statin therapy in older adults", abstract: "A randomised trial of statin therapy." },
  { id: "b", title: "Statin therapy and muscle pain", abstract: null },
  { id: "c", title: "Exercise for back pain", abstract: "Exercise reduced pain.", keywords: "physiotherapy" },
  { id: "d", title: "", abstract: "" },
];

function row(corpus: ScreeningCorpus, i: number): Map<string, number> {
  const out = new Map<string, number>();
  for (let p = corpus.rowPtr[i]; p < corpus.rowPtr[i + 1]; p++) out.set(corpus.vocab[corpus.cols[p]], corpus.vals[p]);
  return out;
}

describe("buildScreeningCorpus", () => {
  const corpus = buildScreeningCorpus(records);

  it("gives every record with text a unit-length TF-IDF vector and an empty record none", () => {
    for (let i = 0; i < 3; i++) {
      const norm = [...row(corpus, i).values()].reduce((s, w) => s + w * w, 0);
      expect(norm).toBeCloseTo(1, 5);
    }
    expect(row(corpus, 3).size).toBe(0);
    expect(corpus.ids).toEqual(["a", "b", "c", "d"]);
  });

  it("uses unigrams by default; with bigrams on, keeps those shared by two records", () => {
    expect(corpus.vocab).not.toContain("statin therapy");
    const withBigrams = buildCorpusWith(records, { ...DEFAULT_FEATURES, bigrams: true });
    expect(withBigrams.vocab).toContain("statin therapy");
    expect(withBigrams.vocab).not.toContain("muscle pain");
    expect(withBigrams.vocab).toContain("muscle");
  });

  it("drops terms found in more than 95% of the records", () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ id: String(i), title: `study of topic${i % 7}` }));
    const vocab = buildScreeningCorpus(many).vocab;
    expect(vocab).not.toContain("study");
    expect(vocab).toContain("topic3");
    expect(buildCorpusWith(many, { ...DEFAULT_FEATURES, maxDf: 1 }).vocab).toContain("study");
  });

  it("weights rarer terms and title terms higher", () => {
    const a = row(corpus, 0);
    // "older" (1 record, title) outweighs "trial" (1 record, abstract only) and "statin" (2 records)
    expect(a.get("older")!).toBeGreaterThan(a.get("trial")!);
    expect(a.get("older")!).toBeGreaterThan(a.get("statin")!);
    expect(row(corpus, 2).has("physiotherapy")).toBe(true);
  });

  it("rejects duplicate and empty ids", () => {
    expect(() => buildScreeningCorpus([records[0], records[0]])).toThrow(ScreeningInputError);
    expect(() => buildScreeningCorpus([{ id: "", title: "x" }])).toThrow(/non-empty/);
  });

  it("builds an empty corpus from no records", () => {
    const empty = buildScreeningCorpus([]);
    expect(empty.ids).toEqual([]);
    expect(empty.rowPtr).toEqual(new Uint32Array([0]));
  });
});

describe("corpusBuilder", () => {
  it("builds record by record the same corpus as buildScreeningCorpus, and checks ids as it goes", () => {
    const builder = corpusBuilder();
    for (const record of records) builder.add(record);
    expect(builder.finish()).toEqual(buildScreeningCorpus(records));
    const bigrams = corpusBuilder({ ...DEFAULT_FEATURES, bigrams: true });
    for (const record of records) bigrams.add(record);
    expect(bigrams.finish()).toEqual(buildCorpusWith(records, { ...DEFAULT_FEATURES, bigrams: true }));
    const repeated = corpusBuilder();
    repeated.add(records[0]);
    expect(() => repeated.add(records[0])).toThrow(ScreeningInputError);
  });
});

describe("serializeScreeningCorpus", () => {
  it("round-trips exactly", () => {
    const corpus = buildScreeningCorpus(records);
    const back = deserializeScreeningCorpus(serializeScreeningCorpus(corpus));
    expect(back.ids).toEqual(corpus.ids);
    expect(back.vocab).toEqual(corpus.vocab);
    expect(back.idf).toEqual(corpus.idf);
    expect(back.rowPtr).toEqual(corpus.rowPtr);
    expect(back.cols).toEqual(corpus.cols);
    expect(back.vals).toEqual(corpus.vals);
    expect(termIndexOf(back).get("statin therapy")).toBe(termIndexOf(corpus).get("statin therapy"));
  });

  it("rejects strings that are not a serialised corpus", () => {
    expect(() => deserializeScreeningCorpus("not json")).toThrow(ScreeningInputError);
    expect(() => deserializeScreeningCorpus(JSON.stringify({ version: 2 }))).toThrow(/unknown format/);
    const text = JSON.parse(serializeScreeningCorpus(buildScreeningCorpus(records)));
    text.ids = text.ids.slice(1);
    expect(() => deserializeScreeningCorpus(JSON.stringify(text))).toThrow(/inconsistent/);
  });
});
