/**
 * Stored term counts: the tokenised form of a set of records, before TF-IDF, so a review's corpus
 * can be assembled from counts made once at import time instead of re-tokenising every abstract
 * (issue 27: the first `next` after importing 20,000 records; tokenising costs ≈ 0.1 ms per record,
 * assembling from counts is arithmetic only).
 *
 * countTerms(records) counts each record's features exactly as corpusBuilder().add does (title and
 * keyword tokens weighted by `titleWeight`, then the abstract; bigrams when enabled), keeping
 * chunk-local feature names; termCountsMerger() joins chunks — keeping only the records a caller
 * asks for — and finishes with the same document frequencies, idf, max-df and bigram filters,
 * sublinear tf and L2 normalisation as corpusBuilder().finish, so the corpus is identical (same ids,
 * vocabulary, column numbers and Float32 weights) to buildCorpusWith(the kept records in the same
 * order, options). term-counts.test.ts checks that equality; a change to corpus.ts's feature rules
 * must be mirrored here (the test fails until it is). Chunks carry featuresSignature(options), so
 * counts made under other feature settings are never mixed in.
 * encodeTermCounts / decodeTermCounts: a compact binary form (≈ 8 bytes per record and distinct
 * feature, plus the names) for storage (R2).
 */
import {
  DEFAULT_FEATURES,
  MIN_BIGRAM_DF,
  ScreeningInputError,
  type FeatureOptions,
  type ScreeningCorpus,
  type ScreeningInput,
} from "./corpus.ts";
import { tokenize } from "./tokenize.ts";

/** Term counts of a chunk of records (row i is ids[i]); `terms` are chunk-local feature names. */
export interface TermCounts {
  /** featuresSignature of the options the counts were made with. */
  readonly features: string;
  readonly ids: readonly string[];
  /** Feature names in order of first occurrence: a token, or two tokens joined by a space (a bigram). */
  readonly terms: readonly string[];
  /** Row i spans cols/counts[rowPtr[i] .. rowPtr[i+1]), features in their order of first occurrence in the record. */
  readonly rowPtr: Uint32Array;
  readonly cols: Uint32Array;
  /** Weighted term frequency (title tokens × titleWeight), as corpusBuilder keeps it (Float32). */
  readonly counts: Float32Array;
}

/** Identifies the counting rules (format version and the options that change counts); stored with every chunk. */
export function featuresSignature(options: FeatureOptions = DEFAULT_FEATURES): string {
  return JSON.stringify(["tc1", options.bigrams, options.titleWeight, options.stem, options.stopWords]);
}

/** Growable typed arrays (counts are made before their number is known). */
function grow<T extends Uint32Array | Float32Array>(array: T, needed: number, make: (n: number) => T): T {
  if (needed <= array.length) return array;
  const grown = make(Math.max(needed, Math.ceil(array.length * 1.5)));
  grown.set(array);
  return grown;
}

/**
 * Counts the features of `records` (ScreeningInputError on an empty or repeated id), in the order
 * and with the weights corpusBuilder(options).add uses. Cost: tokenising, ≈ 0.1 ms per abstract.
 */
export function countTerms(records: readonly ScreeningInput[], options: FeatureOptions = DEFAULT_FEATURES): TermCounts {
  const seen = new Set<string>();
  const ids: string[] = [];
  const termId = new Map<string, number>();
  const terms: string[] = [];
  const rowPtr = new Uint32Array(records.length + 1);
  let cols = new Uint32Array(1024);
  let counts = new Float32Array(1024);
  let nnz = 0;
  let tf = new Float64Array(1024);
  let mark = new Int32Array(1024);
  const touched: number[] = [];
  let row = 0;
  const featureOf = (name: string): number => {
    let f = termId.get(name);
    if (f === undefined) {
      f = terms.length;
      termId.set(name, f);
      terms.push(name);
      if (f >= tf.length) {
        const grownTf = new Float64Array(tf.length * 2);
        grownTf.set(tf);
        tf = grownTf;
        const grownMark = new Int32Array(mark.length * 2);
        grownMark.set(mark);
        mark = grownMark;
      }
    }
    return f;
  };
  const count = (f: number, weight: number) => {
    if (mark[f] !== row) {
      mark[f] = row;
      tf[f] = 0;
      touched.push(f);
    }
    tf[f] += weight;
  };
  const addText = (text: string, weight: number) => {
    let previous: string | null = null;
    for (const word of tokenize(text, options)) {
      if (options.bigrams && previous !== null) count(featureOf(previous + " " + word), weight);
      count(featureOf(word), weight);
      previous = word;
    }
  };
  for (const record of records) {
    if (typeof record.id !== "string" || record.id === "")
      throw new ScreeningInputError("Every record needs a non-empty string id");
    if (seen.has(record.id)) throw new ScreeningInputError(`Duplicate record id: ${record.id}`);
    seen.add(record.id);
    ids.push(record.id);
    row = ids.length;
    touched.length = 0;
    addText(record.title ?? "", options.titleWeight);
    if (record.keywords) addText(record.keywords, options.titleWeight);
    if (record.abstract) addText(record.abstract, 1);
    cols = grow(cols, nnz + touched.length, (n) => new Uint32Array(n));
    counts = grow(counts, nnz + touched.length, (n) => new Float32Array(n));
    for (const f of touched) {
      cols[nnz] = f;
      counts[nnz] = tf[f];
      nnz++;
    }
    rowPtr[row] = nnz;
  }
  return {
    features: featuresSignature(options),
    ids,
    terms,
    rowPtr,
    cols: cols.slice(0, nnz),
    counts: counts.slice(0, nnz),
  };
}

/** Joins chunks of term counts into a corpus; see termCountsMerger. */
export interface TermCountsMerger {
  /**
   * Adds the rows of `chunk` for which `keep(id)` is true (all by default), in chunk order.
   * ScreeningInputError when the chunk was counted under other feature settings or repeats an id.
   */
  add(chunk: TermCounts, keep?: (id: string) => boolean): void;
  /** Rows added so far. */
  readonly rows: number;
  /** The corpus of the rows added, in the order added (once: it reuses the merger's arrays). */
  finish(): ScreeningCorpus;
}

/**
 * A corpus assembled from chunks of term counts, identical to buildCorpusWith(the kept records, in
 * the order added, options). `postings` (optional) is the number of counts that will be added: the
 * arrays are then allocated once (bounded memory at 50,000 records: no growth copies).
 */
export function termCountsMerger(
  options: FeatureOptions = DEFAULT_FEATURES,
  { postings = 0 }: { postings?: number } = {},
): TermCountsMerger {
  const signature = featuresSignature(options);
  const ids: string[] = [];
  const seen = new Set<string>();
  const featureId = new Map<string, number>();
  const featureName: string[] = [];
  let df = new Uint32Array(1024);
  let cols = new Uint32Array(Math.max(postings, 1024));
  let vals = new Float32Array(Math.max(postings, 1024));
  const rowEnds: number[] = [0];
  let nnz = 0;

  const add = (chunk: TermCounts, keep?: (id: string) => boolean) => {
    if (chunk.features !== signature)
      throw new ScreeningInputError("Term counts were made with other feature settings");
    const global = new Int32Array(chunk.terms.length).fill(-1);
    for (let i = 0; i < chunk.ids.length; i++) {
      const id = chunk.ids[i];
      if (keep && !keep(id)) continue;
      if (seen.has(id)) throw new ScreeningInputError(`Duplicate record id: ${id}`);
      seen.add(id);
      ids.push(id);
      const start = chunk.rowPtr[i];
      const end = chunk.rowPtr[i + 1];
      cols = grow(cols, nnz + end - start, (n) => new Uint32Array(n));
      vals = grow(vals, nnz + end - start, (n) => new Float32Array(n));
      for (let p = start; p < end; p++) {
        const local = chunk.cols[p];
        let f = global[local];
        if (f === -1) {
          // Numbered at first occurrence in a kept record, as corpusBuilder numbers its features.
          const name = chunk.terms[local];
          f = featureId.get(name) ?? -1;
          if (f === -1) {
            f = featureName.length;
            featureId.set(name, f);
            featureName.push(name);
            if (f >= df.length) {
              const grown = new Uint32Array(df.length * 2);
              grown.set(df);
              df = grown;
            }
          }
          global[local] = f;
        }
        cols[nnz] = f;
        vals[nnz] = chunk.counts[p];
        df[f]++;
        nnz++;
      }
      rowEnds.push(nnz);
    }
  };

  const finish = (): ScreeningCorpus => {
    const n = ids.length;
    const column = new Int32Array(featureName.length).fill(-1);
    const vocab: string[] = [];
    const idfList: number[] = [];
    for (let f = 0; f < featureName.length; f++) {
      const documents = df[f];
      if (documents > options.maxDf * n && n > 1) continue;
      const name = featureName[f];
      if (name.includes(" ") && documents < MIN_BIGRAM_DF) continue;
      vocab.push(name);
      column[f] = idfList.length;
      idfList.push(Math.log((1 + n) / (1 + documents)) + 1);
    }
    const idf = Float64Array.from(idfList);
    // In place, as corpusBuilder().finish: entry `at` ≤ posting `p`, read before it is overwritten.
    const rowPtr = new Uint32Array(n + 1);
    let at = 0;
    for (let row = 0; row < n; row++) {
      const start = at;
      let norm = 0;
      for (let p = rowEnds[row]; p < rowEnds[row + 1]; p++) {
        const j = column[cols[p]];
        if (j === -1) continue;
        const count = vals[p];
        const w = (options.sublinearTf ? 1 + Math.log(count) : count) * idf[j];
        cols[at] = j;
        vals[at] = w;
        norm += w * w;
        at++;
      }
      const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      for (let p = start; p < at; p++) vals[p] *= scale;
      rowPtr[row + 1] = at;
    }
    return { version: 1, ids, vocab, idf, rowPtr, cols: cols.subarray(0, at), vals: vals.subarray(0, at) };
  };
  return {
    add,
    finish,
    get rows() {
      return ids.length;
    },
  };
}

const MAGIC = 0x3143544d; // "MTC1", little-endian

/**
 * Binary form of a chunk: u32 magic, u32 header length, the header (UTF-8 JSON: features, ids,
 * terms, postings), padding to 4 bytes, then rowPtr (u32), cols (u32) and counts (f32).
 */
export function encodeTermCounts(chunk: TermCounts): Uint8Array {
  const header = new TextEncoder().encode(
    JSON.stringify({ features: chunk.features, ids: chunk.ids, terms: chunk.terms, postings: chunk.cols.length }),
  );
  const headerEnd = 8 + header.length;
  const arraysAt = Math.ceil(headerEnd / 4) * 4;
  const bytes = new Uint8Array(arraysAt + 4 * (chunk.rowPtr.length + 2 * chunk.cols.length));
  const view = new DataView(bytes.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, header.length, true);
  bytes.set(header, 8);
  const words = new Uint32Array(bytes.buffer, arraysAt);
  words.set(chunk.rowPtr, 0);
  words.set(chunk.cols, chunk.rowPtr.length);
  new Float32Array(bytes.buffer, arraysAt + 4 * (chunk.rowPtr.length + chunk.cols.length), chunk.counts.length).set(
    chunk.counts,
  );
  return bytes;
}

/** Inverse of encodeTermCounts; ScreeningInputError on bytes that are not a consistent chunk. */
export function decodeTermCounts(buffer: ArrayBufferLike): TermCounts {
  const bad = () => new ScreeningInputError("Stored term counts are malformed");
  if (buffer.byteLength < 8) throw bad();
  const view = new DataView(buffer);
  if (view.getUint32(0, true) !== MAGIC) throw bad();
  const headerLength = view.getUint32(4, true);
  if (8 + headerLength > buffer.byteLength) throw bad();
  let header: { features?: unknown; ids?: unknown; terms?: unknown; postings?: unknown };
  try {
    header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 8, headerLength))) as typeof header;
  } catch {
    throw bad();
  }
  const { features, ids, terms, postings } = header;
  if (typeof features !== "string" || !Array.isArray(ids) || !Array.isArray(terms) || typeof postings !== "number")
    throw bad();
  const arraysAt = Math.ceil((8 + headerLength) / 4) * 4;
  const n = ids.length;
  if (arraysAt + 4 * (n + 1 + 2 * postings) !== buffer.byteLength) throw bad();
  const rowPtr = new Uint32Array(buffer, arraysAt, n + 1);
  const cols = new Uint32Array(buffer, arraysAt + 4 * (n + 1), postings);
  const counts = new Float32Array(buffer, arraysAt + 4 * (n + 1 + postings), postings);
  if (rowPtr[0] !== 0 || rowPtr[n] !== postings) throw bad();
  for (let i = 0; i < n; i++) if (rowPtr[i] > rowPtr[i + 1]) throw bad();
  for (let p = 0; p < postings; p++) if (cols[p] >= terms.length) throw bad();
  return { features, ids: ids as string[], terms: terms as string[], rowPtr, cols, counts };
}
