import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import {
  buildCorpusWith,
  DEFAULT_FEATURES,
  ScreeningInputError,
  type ScreeningCorpus,
  type ScreeningInput,
} from "./corpus.ts";
import { rankScreening } from "./rank.ts";
import { countTerms, decodeTermCounts, encodeTermCounts, featuresSignature, termCountsMerger } from "./term-counts.ts";

const FILE = fileURLToPath(new URL("../../../../shared/screening/Sep_2021.csv", import.meta.url));

const invented: ScreeningInput[] = [
  {
    id: "1",
    title: "Statin therapy in older adults",
    abstract: "A randomised trial of statin therapy. Statin users lived longer.",
  },
  { id: "2", title: "Statin therapy and muscle pain", abstract: null },
  {
    id: "3",
    title: "Exercise for back pain",
    abstract: "Exercise reduced pain; pain relief lasted.",
    keywords: "physiotherapy; back pain",
  },
  { id: "4", title: "", abstract: "" },
  { id: "5", title: "Café-au-lait spots in NF1", abstract: "Naïve Bayes over TF–IDF: 12 cases, twelve reviews." },
  { id: "6", title: "Back pain in older adults", abstract: "Older adults with back pain took statin therapy." },
];

/** Records of a real review when ../shared is present, else the invented ones repeated with ids changed. */
function records(): ScreeningInput[] {
  if (!existsSync(FILE))
    return Array.from({ length: 40 }, (_, k) => invented.map((r) => ({ ...r, id: `${k}-${r.id}` }))).flat();
  const rows = Papa.parse<Record<string, string>>(readFileSync(FILE, "utf8"), {
    header: true,
    skipEmptyLines: true,
  }).data;
  return rows.map((r) => ({ id: r.record_id!, title: r.title ?? "", abstract: r.abstract }));
}

function expectSameCorpus(actual: ScreeningCorpus, expected: ScreeningCorpus) {
  expect(actual.ids).toEqual(expected.ids);
  expect(actual.vocab).toEqual(expected.vocab);
  expect([...actual.idf]).toEqual([...expected.idf]);
  expect([...actual.rowPtr]).toEqual([...expected.rowPtr]);
  expect([...actual.cols]).toEqual([...expected.cols]);
  expect([...actual.vals]).toEqual([...expected.vals]);
}

function merged(chunks: ReturnType<typeof countTerms>[], keep?: (id: string) => boolean, options = DEFAULT_FEATURES) {
  const merger = termCountsMerger(options);
  for (const chunk of chunks) merger.add(chunk, keep);
  return merger.finish();
}

describe("term counts → corpus", () => {
  const all = records();
  const chunks = [countTerms(all.slice(0, 100)), countTerms(all.slice(100, 101)), countTerms(all.slice(101))];

  it("assembles exactly the corpus buildCorpusWith makes from the same records (ids, vocabulary, weights)", () => {
    expectSameCorpus(merged(chunks), buildCorpusWith(all, DEFAULT_FEATURES));
    expectSameCorpus(merged([countTerms(invented)]), buildCorpusWith(invented, DEFAULT_FEATURES));
  });

  it("keeps only the records asked for, as if the others had never been counted", () => {
    const keep = (id: string) => Number.parseInt(id.replace(/\D/g, "") || "0", 10) % 3 !== 0;
    expectSameCorpus(
      merged(chunks, keep),
      buildCorpusWith(
        all.filter((r) => keep(r.id)),
        DEFAULT_FEATURES,
      ),
    );
  });

  it("matches with bigrams, stemming and stop words on, and refuses counts made with other settings", () => {
    const options = { ...DEFAULT_FEATURES, bigrams: true, stem: true, stopWords: true, titleWeight: 3 };
    const counted = [countTerms(all.slice(0, 50), options), countTerms(all.slice(50), options)];
    expectSameCorpus(merged(counted, undefined, options), buildCorpusWith(all, options));
    expect(featuresSignature(options)).not.toBe(featuresSignature());
    expect(() => termCountsMerger().add(counted[0]!)).toThrow(ScreeningInputError);
  });

  it("ranks the same as the corpus built from the texts", () => {
    const corpus = merged(chunks);
    const labels = new Map([
      [all[0]!.id, "include" as const],
      [all[1]!.id, "exclude" as const],
    ]);
    const expected = rankScreening(buildCorpusWith(all, DEFAULT_FEATURES), labels, undefined, undefined, { limit: 50 });
    const actual = rankScreening(corpus, labels, undefined, undefined, { limit: 50 });
    expect(actual.ranked.map((r) => [r.id, r.score, r.terms])).toEqual(
      expected.ranked.map((r) => [r.id, r.score, r.terms]),
    );
  });

  it("refuses a repeated id, across chunks too", () => {
    expect(() => countTerms([invented[0]!, invented[0]!])).toThrow(ScreeningInputError);
    expect(() => merged([countTerms(invented), countTerms(invented.slice(0, 1))])).toThrow(/Duplicate record id: 1/);
  });
});

describe("encodeTermCounts / decodeTermCounts", () => {
  it("round-trips a chunk exactly, in about 8 bytes per count plus the names", () => {
    const chunk = countTerms(invented);
    const bytes = encodeTermCounts(chunk);
    const back = decodeTermCounts(bytes.buffer.slice(0));
    expect(back.features).toBe(chunk.features);
    expect(back.ids).toEqual(chunk.ids);
    expect(back.terms).toEqual(chunk.terms);
    expect([...back.rowPtr]).toEqual([...chunk.rowPtr]);
    expect([...back.cols]).toEqual([...chunk.cols]);
    expect([...back.counts]).toEqual([...chunk.counts]);
    expectSameCorpus(merged([back]), buildCorpusWith(invented, DEFAULT_FEATURES));
  });

  it("refuses truncated, foreign or inconsistent bytes", () => {
    const bytes = encodeTermCounts(countTerms(invented));
    expect(() => decodeTermCounts(bytes.buffer.slice(0, bytes.length - 4))).toThrow(ScreeningInputError);
    expect(() => decodeTermCounts(new TextEncoder().encode("not a chunk at all").buffer)).toThrow(ScreeningInputError);
    const wrongColumn = bytes.slice();
    const view = new DataView(wrongColumn.buffer);
    // The last posting's feature (a u32 in the cols block, just before the counts) → out of range.
    const postings = countTerms(invented).cols.length;
    view.setUint32(wrongColumn.length - 4 * postings - 4, 1e6, true);
    expect(() => decodeTermCounts(wrongColumn.buffer)).toThrow(ScreeningInputError);
  });
});
