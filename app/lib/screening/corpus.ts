/**
 * Screening corpus: every record's title, abstract and keywords turned once into a sparse,
 * L2-normalised TF-IDF vector (Salton & Buckley 1988), so that each retraining only touches
 * numbers. Term frequency is sublinear (1 + ln tf, Manning et al. 2008 §6.4.1): a word repeated
 * ten times in one abstract is not ten times the evidence. Title and keyword tokens count twice:
 * a record's title states what it is about. idf = ln((1 + n) / (1 + df)) + 1 (scikit-learn's
 * smoothed idf); terms in more than 95 % of the records are dropped, which removes each corpus's
 * own stop words ("study", "patients"…) without a fixed list. The product's features are
 * unigrams without stemming or stop-word removal: on the benchmark datasets bigrams, plural
 * folding and a stop-word list each lowered WSS@95 with Naive Bayes (docs/methods/screening.md);
 * FeatureOptions keeps them available for such ablations.
 */
import { tokenize } from "./tokenize.ts";

export interface ScreeningInput {
  id: string;
  title: string;
  abstract?: string | null;
  keywords?: string | null;
}

/** Built once by buildScreeningCorpus; treat as opaque (fields may change between versions). */
export interface ScreeningCorpus {
  readonly version: 1;
  /** Record ids in input order; row i of the matrix is ids[i]. */
  readonly ids: readonly string[];
  /** Feature names: single tokens, or two tokens joined by a space (bigrams). */
  readonly vocab: readonly string[];
  /** Inverse document frequency per feature. */
  readonly idf: Float64Array;
  /** CSR matrix of L2-normalised TF-IDF weights: row i spans cols/vals[rowPtr[i] .. rowPtr[i+1]). */
  readonly rowPtr: Uint32Array;
  readonly cols: Uint32Array;
  readonly vals: Float32Array;
}

/** Weight of a title or keyword token relative to an abstract token. */
export const TITLE_WEIGHT = 2;
/** Bigrams (when enabled) must occur in at least this many records to become features. */
export const MIN_BIGRAM_DF = 2;
/** Terms in more than this fraction of records carry no signal (ASReview's ELAS u4 uses 0.95). */
export const MAX_DF = 0.95;

export class ScreeningInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScreeningInputError";
  }
}

/** Unigram ids are < 2^21; a bigram (a, b) is keyed a·2^21 + b. */
const SHIFT = 2 ** 21;

/** Growable Int32/Float32 buffers (a corpus's postings are built before their count is known). */
class IntList {
  data = new Int32Array(1024);
  length = 0;
  push(x: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(Math.ceil(this.data.length * 1.5));
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = x;
  }
}
/** Float32 storage: term counts are small sums of integer weights, exact in 24 bits. */
class FloatList {
  data = new Float32Array(1024);
  length = 0;
  push(x: number): void {
    if (this.length === this.data.length) {
      const grown = new Float32Array(Math.ceil(this.data.length * 1.5));
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = x;
  }
}

/**
 * Builds the corpus with DEFAULT_FEATURES. `records` may be empty; ids must be unique non-empty strings
 * (ScreeningInputError otherwise). Cost is linear in the text size (≈ 0.1 ms per abstract).
 */
export function buildScreeningCorpus(records: ScreeningInput[]): ScreeningCorpus {
  return buildCorpusWith(records, DEFAULT_FEATURES);
}

/** Feature settings; the product uses DEFAULT_FEATURES (variants exist for ablation studies). */
export interface FeatureOptions {
  bigrams: boolean;
  sublinearTf: boolean;
  titleWeight: number;
  stem: boolean;
  stopWords: boolean;
  /** Features in more than this fraction of records are dropped (1 keeps all). */
  maxDf: number;
}

export const DEFAULT_FEATURES: FeatureOptions = {
  bigrams: false,
  sublinearTf: true,
  titleWeight: TITLE_WEIGHT,
  stem: false,
  stopWords: false,
  maxDf: MAX_DF,
};

/**
 * buildScreeningCorpus with explicit feature settings. Features are numbered in order of first
 * occurrence (a record's title, keywords, abstract, records in input order) and each row lists its
 * features in the order they first occur in the record; term counts live in flat typed arrays
 * (no per-record hash maps), so the cost is dominated by tokenising.
 */
export function buildCorpusWith(records: ScreeningInput[], options: FeatureOptions): ScreeningCorpus {
  const builder = corpusBuilder(options);
  for (const record of records) builder.add(record);
  return builder.finish();
}

/** Adds records one at a time (add), then builds the corpus (finish: once, it reuses the builder's arrays). */
export interface CorpusBuilder {
  /** Tokenises one record; its text can be dropped afterwards. ScreeningInputError on a bad or repeated id. */
  add(record: ScreeningInput): void;
  finish(): ScreeningCorpus;
}

/**
 * A corpus built record by record — identical to buildCorpusWith on the same records in the same
 * order — so a caller can read the texts in pages (bounded memory: only the counts are kept) and
 * yield between them.
 */
export function corpusBuilder(options: FeatureOptions = DEFAULT_FEATURES): CorpusBuilder {
  const seen = new Set<string>();
  const ids: string[] = [];
  const tokenId = new Map<string, number>();
  const tokens: string[] = [];
  // Features: a unigram's feature id per token id (-1 = none yet), bigram keys in a map.
  const unigramFeature = new IntList();
  const bigramFeature = new Map<number, number>();
  /** Per feature: its token id (unigram) or −1 − its bigram key (bigram). */
  const featureKey: number[] = [];
  const df = new IntList();
  let tf = new Float64Array(1024);
  const touched = new IntList();
  const docFeature = new IntList();
  const docTf = new FloatList();
  const docPtr = new IntList();
  docPtr.push(0);

  const featureOfToken = (token: number): number => {
    let f = unigramFeature.data[token];
    if (f === -1) {
      f = featureKey.length;
      featureKey.push(token);
      unigramFeature.data[token] = f;
      df.push(0);
    }
    return f;
  };
  const featureOfBigram = (a: number, b: number): number => {
    const key = a * SHIFT + b;
    let f = bigramFeature.get(key);
    if (f === undefined) {
      f = featureKey.length;
      featureKey.push(-1 - key);
      bigramFeature.set(key, f);
      df.push(0);
    }
    return f;
  };
  /** Row (+1) that last counted each feature: marks the features of the current record. */
  let mark = new Int32Array(1024);
  let currentRow = 0;
  const count = (f: number, weight: number) => {
    if (f >= tf.length) {
      const size = Math.max(tf.length * 2, f + 1);
      const grownTf = new Float64Array(size);
      grownTf.set(tf);
      tf = grownTf;
      const grownMark = new Int32Array(size);
      grownMark.set(mark);
      mark = grownMark;
    }
    if (mark[f] !== currentRow) {
      mark[f] = currentRow;
      tf[f] = 0;
      touched.push(f);
    }
    tf[f] += weight;
  };
  const addText = (text: string, weight: number) => {
    let previous = -1;
    for (const word of tokenize(text, options)) {
      let id = tokenId.get(word);
      if (id === undefined) {
        id = tokens.length;
        tokenId.set(word, id);
        tokens.push(word);
        unigramFeature.push(-1);
      }
      // Feature order within a record: w1, "w1 w2", w2, "w2 w3", w3…
      if (options.bigrams && previous !== -1) count(featureOfBigram(previous, id), weight);
      count(featureOfToken(id), weight);
      previous = id;
    }
  };

  const add = (record: ScreeningInput) => {
    if (typeof record.id !== "string" || record.id === "") {
      throw new ScreeningInputError("Every record needs a non-empty string id");
    }
    if (seen.has(record.id)) throw new ScreeningInputError(`Duplicate record id: ${record.id}`);
    seen.add(record.id);
    ids.push(record.id);
    touched.length = 0;
    currentRow = ids.length;
    addText(record.title ?? "", options.titleWeight);
    if (record.keywords) addText(record.keywords, options.titleWeight);
    if (record.abstract) addText(record.abstract, 1);
    for (let k = 0; k < touched.length; k++) {
      const f = touched.data[k];
      docFeature.push(f);
      docTf.push(tf[f]);
      df.data[f]++;
    }
    docPtr.push(docFeature.length);
    if (tokens.length >= SHIFT) throw new ScreeningInputError("Too many distinct words for one corpus");
  };

  const finish = (): ScreeningCorpus => {
    const n = ids.length;
    const column = new Int32Array(featureKey.length).fill(-1);
    const vocab: string[] = [];
    const idfList: number[] = [];
    for (let f = 0; f < featureKey.length; f++) {
      const documents = df.data[f];
      if (documents > options.maxDf * n && n > 1) continue;
      const key = featureKey[f];
      if (key < 0) {
        if (documents < MIN_BIGRAM_DF) continue;
        const pair = -1 - key;
        const a = Math.floor(pair / SHIFT);
        vocab.push(tokens[a] + " " + tokens[pair - a * SHIFT]);
      } else {
        vocab.push(tokens[key]);
      }
      column[f] = idfList.length;
      idfList.push(Math.log((1 + n) / (1 + documents)) + 1);
    }
    const idf = Float64Array.from(idfList);

    // The matrix is written over the postings it is built from (entry `at` ≤ posting `p`, read
    // before it is overwritten): no second copy of the largest arrays (≈ 50 MB at 50,000 records).
    const rowPtr = new Uint32Array(n + 1);
    const cols = new Uint32Array(docFeature.data.buffer);
    const vals = docTf.data;
    let at = 0;
    for (let row = 0; row < n; row++) {
      const start = at;
      let norm = 0;
      for (let p = docPtr.data[row]; p < docPtr.data[row + 1]; p++) {
        const j = column[docFeature.data[p]];
        if (j === -1) continue;
        const count = docTf.data[p];
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
  return { add, finish };
}

/**
 * Sparse TF-IDF vector of free text (the review question, criteria) in the corpus's feature
 * space, L2-normalised; stop words and terms unknown to the corpus are ignored. Returns a Map
 * col → weight.
 */
export function vectorizeText(
  corpus: ScreeningCorpus,
  text: string,
  termIndex: ReadonlyMap<string, number>,
): Map<number, number> {
  const words = tokenize(text, { stopWords: true });
  const counts = new Map<string, number>();
  words.forEach((w, i) => {
    counts.set(w, (counts.get(w) ?? 0) + 1);
    if (i + 1 < words.length) counts.set(w + " " + words[i + 1], (counts.get(w + " " + words[i + 1]) ?? 0) + 1);
  });
  const out = new Map<number, number>();
  let norm = 0;
  for (const [term, tf] of counts) {
    const j = termIndex.get(term);
    if (j === undefined) continue;
    const w = (1 + Math.log(tf)) * corpus.idf[j];
    out.set(j, w);
    norm += w * w;
  }
  if (norm > 0) for (const [j, w] of out) out.set(j, w / Math.sqrt(norm));
  return out;
}

const termIndexCache = new WeakMap<ScreeningCorpus, Map<string, number>>();

/** term → column, built on first use and cached per corpus. */
export function termIndexOf(corpus: ScreeningCorpus): ReadonlyMap<string, number> {
  let index = termIndexCache.get(corpus);
  if (!index) {
    index = new Map(corpus.vocab.map((term, j) => [term, j]));
    termIndexCache.set(corpus, index);
  }
  return index;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Compact JSON string of a corpus for caching (KV, IndexedDB): typed arrays as base64, about
 * 10 bytes per non-zero weight. Round-trips exactly through deserializeScreeningCorpus.
 */
export function serializeScreeningCorpus(corpus: ScreeningCorpus): string {
  return JSON.stringify({
    version: corpus.version,
    ids: corpus.ids,
    vocab: corpus.vocab,
    idf: toBase64(new Uint8Array(corpus.idf.buffer, corpus.idf.byteOffset, corpus.idf.byteLength)),
    rowPtr: toBase64(new Uint8Array(corpus.rowPtr.buffer, corpus.rowPtr.byteOffset, corpus.rowPtr.byteLength)),
    cols: toBase64(new Uint8Array(corpus.cols.buffer, corpus.cols.byteOffset, corpus.cols.byteLength)),
    vals: toBase64(new Uint8Array(corpus.vals.buffer, corpus.vals.byteOffset, corpus.vals.byteLength)),
  });
}

/** Inverse of serializeScreeningCorpus; throws ScreeningInputError on a malformed or foreign string. */
export function deserializeScreeningCorpus(text: string): ScreeningCorpus {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ScreeningInputError("Serialised corpus is not JSON");
  }
  const o = raw as Record<string, unknown>;
  if (
    !o ||
    o.version !== 1 ||
    !Array.isArray(o.ids) ||
    !Array.isArray(o.vocab) ||
    typeof o.idf !== "string" ||
    typeof o.rowPtr !== "string" ||
    typeof o.cols !== "string" ||
    typeof o.vals !== "string"
  ) {
    throw new ScreeningInputError("Serialised corpus has an unknown format");
  }
  const copy = (s: string) => {
    const bytes = fromBase64(s);
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  };
  const idBytes = copy(o.idf);
  const ptrBytes = copy(o.rowPtr);
  const colBytes = copy(o.cols);
  const valBytes = copy(o.vals);
  if (idBytes.byteLength % 8 || ptrBytes.byteLength % 4 || colBytes.byteLength % 4 || valBytes.byteLength % 4) {
    throw new ScreeningInputError("Serialised corpus is truncated");
  }
  const corpus: ScreeningCorpus = {
    version: 1,
    ids: o.ids as string[],
    vocab: o.vocab as string[],
    idf: new Float64Array(idBytes),
    rowPtr: new Uint32Array(ptrBytes),
    cols: new Uint32Array(colBytes),
    vals: new Float32Array(valBytes),
  };
  const n = corpus.ids.length;
  if (
    corpus.rowPtr.length !== n + 1 ||
    corpus.idf.length !== corpus.vocab.length ||
    corpus.cols.length !== corpus.vals.length ||
    corpus.rowPtr[n] !== corpus.cols.length
  ) {
    throw new ScreeningInputError("Serialised corpus is inconsistent");
  }
  return corpus;
}
