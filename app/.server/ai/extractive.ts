/**
 * Extractive summarisation of scientific abstracts: a sentence splitter that keeps character
 * offsets into the source, and a LexRank-style ranker that picks the most central sentences.
 * Output is always made of verbatim source sentences, so it can never invent a word or a number.
 */

import { sectionedSentences, stem, type SectionedSpan, type SentenceSpan } from "~/lib/extraction/core";

/** A selected sentence; `index` is its position in the core's `splitSentences` output. */
export interface SummarySentence extends SentenceSpan {
  index: number;
}

export interface ExtractiveSummary {
  /** Selected sentences in source order. */
  sentences: SummarySentence[];
}

const STOPWORDS = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before " +
    "being below between both but by can could did do does doing down during each either few for " +
    "from further had has have having he her here hers him his how however i if in into is it its " +
    "itself just may me might more most must my no nor not now of off on once only or other our " +
    "ours out over own same she should so some such than that the their theirs them then there " +
    "these they this those through thus to too under until up upon very via was we were what when " +
    "where whether which while who whom why will with within without would yet you your " +
    "et al e g i ie eg vs using used use among also both"
  ).split(" "),
);

/** Lower-cased content terms of a sentence (stop words and bare numbers dropped, the core's Porter stem). */
function terms(sentence: string): string[] {
  const words = sentence.toLowerCase().match(/[\p{L}\p{N}]+(?:[-'][\p{L}\p{N}]+)*/gu) ?? [];
  const out: string[] = [];
  for (const w of words) {
    if (w.length < 2 || STOPWORDS.has(w) || /^[\d.,-]+$/.test(w)) continue;
    out.push(stem(w));
  }
  return out;
}

type Vector = Map<string, number>;

function tfidfVectors(docs: string[][]): Vector[] {
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  return docs.map((d) => {
    const tf = new Map<string, number>();
    for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
    const v: Vector = new Map();
    for (const [t, f] of tf) v.set(t, f * (Math.log((1 + n) / (1 + df.get(t)!)) + 1));
    return v;
  });
}

function cosine(a: Vector, b: Vector): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [t, x] of a) {
    na += x * x;
    const y = b.get(t);
    if (y !== undefined) dot += x * y;
  }
  for (const y of b.values()) nb += y * y;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Continuous LexRank (Erkan & Radev 2004): PageRank with damping 0.85 over the sentence graph
 * weighted by TF-IDF cosine similarity. Returns one centrality score per sentence (sums to 1).
 */
function lexRank(sim: number[][], damping = 0.85): number[] {
  const n = sim.length;
  const rowSums = sim.map((row) => row.reduce((s, x) => s + x, 0));
  let scores = new Array<number>(n).fill(1 / n);
  for (let iter = 0; iter < 200; iter++) {
    const next = new Array<number>(n).fill((1 - damping) / n);
    for (let i = 0; i < n; i++) {
      const row = sim[i]!;
      if (rowSums[i] === 0) {
        for (let j = 0; j < n; j++) next[j]! += (damping * scores[i]!) / n;
      } else {
        for (let j = 0; j < n; j++) next[j]! += (damping * scores[i]! * row[j]!) / rowSums[i]!;
      }
    }
    const delta = next.reduce((s, x, k) => s + Math.abs(x - scores[k]!), 0);
    scores = next;
    if (delta < 1e-10) break;
  }
  return scores;
}

/** Statistics that mark a results sentence: "54%", "p < 0.05", "95% CI", "HR 0.74", "±", "n = 20". */
const STATISTIC =
  /(?<![\p{L}-])\d+(?:\.\d+)?\s*%|\b[pP]\s*[<=>≤≥]|\bCI\b|\b(?:a?OR|a?HR|sHR|RR|IRR|SMD|WMD|MD|NNT)\b|±|\b[nN]\s*=\s*\d/u;
const STATISTIC_WORDS = /\b(?:confidence interval|odds ratio|hazard ratio|risk ratio|relative risk|mean difference)/i;
/** A number that is not part of a name such as "COVID-19", "SARS-CoV-2" or "T2DM". */
const STANDALONE_NUMBER = /(?<![\p{L}\p{N}-])\d/u;
const CONCLUSION_CUE =
  /^(?:in conclusion|in summary|to conclude|overall|taken together|we conclude|these (?:findings|results|data) (?:suggest|indicate|show|demonstrate|support)|our (?:findings|results|data) (?:suggest|indicate|show|demonstrate|support)|this study (?:suggests|shows|demonstrates|indicates|provides))/i;

const OBJECTIVE_CUE =
  /^(?:to (?:study|assess|evaluate|determine|examine|investigate|compare)\b|(?:this|the present|our) (?:study|review|trial|analysis|research) (?:aimed|aims|sought|was designed|examined|evaluated|assessed|investigated)|we aimed|the (?:aim|objective|purpose) of)/i;

/** Score multiplier: mild boosts for results with numbers and for conclusions, damping stubs. */
function priorWeight(s: SectionedSpan, position: number, total: number, termCount: number): number {
  let w = 1;
  if (STATISTIC.test(s.text) || STATISTIC_WORDS.test(s.text)) w *= 1.25;
  else if (STANDALONE_NUMBER.test(s.text)) w *= 1.1;
  const section = s.section ?? "";
  if (/conclu|interpret|implication|significance/.test(section) || CONCLUSION_CUE.test(s.text)) w *= 1.2;
  else if (position === total - 1) w *= 1.1;
  if (/result|finding/.test(section)) w *= 1.1;
  else if (/method|design|setting|participant|measure|search|selection|collection|material/.test(section)) w *= 0.85;
  if (/objective|aim|purpose/.test(section) || OBJECTIVE_CUE.test(s.text)) w *= 1.1;
  if (termCount < 5) w *= 0.6;
  if (/^\(?(?:funded by|trial registration|registration|copyright|©)/i.test(s.text)) w *= 0.3;
  return w;
}

/**
 * Picks the `maxSentences` most central sentences of `text` and returns them in source order,
 * each a verbatim slice of the source (`text.slice(start, end) === sentence.text`).
 *
 * Algorithm: sentences from {@link splitSentences}; TF-IDF vectors over the sentences; continuous
 * LexRank centrality (Erkan & Radev 2004, "LexRank: Graph-based lexical centrality as salience in
 * text summarization"); then mild priors (×1.25 for sentences with statistics such as %, CI, p,
 * OR/HR; ×1.2 for conclusion-section or "In conclusion…" sentences; ×0.6 for very short ones) and
 * a greedy redundancy filter (skip a candidate whose cosine to an already chosen sentence ≥ 0.5,
 * as in MMR, Carbonell & Goldstein 1998). Sources with ≤ `maxSentences` sentences come back whole.
 * Deterministic: ties go to the earlier sentence.
 *
 * @throws RangeError when `maxSentences` is not a positive integer.
 */
export function summarizeExtractive(text: string, options: { maxSentences?: number } = {}): ExtractiveSummary {
  const maxSentences = options.maxSentences ?? 3;
  if (!Number.isInteger(maxSentences) || maxSentences < 1) {
    throw new RangeError(`maxSentences must be a positive integer, got ${maxSentences}`);
  }
  const spans = sectionedSentences(text);
  const indexed = (i: number): SummarySentence => {
    const { text: t, start, end } = spans[i]!;
    return { text: t, start, end, index: i };
  };
  if (spans.length <= maxSentences) return { sentences: spans.map((_, i) => indexed(i)) };

  const docs = spans.map((s) => terms(s.text));
  const vectors = tfidfVectors(docs);
  const sim = vectors.map((a, i) => vectors.map((b, j) => (i === j ? 0 : cosine(a, b))));
  const centrality = lexRank(sim);
  const scores = centrality.map((c, i) => c * priorWeight(spans[i]!, i, spans.length, docs[i]!.length));

  const order = scores.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
  const chosen: number[] = [];
  for (const i of order) {
    if (chosen.length === maxSentences) break;
    if (chosen.every((j) => sim[i]![j]! < 0.5)) chosen.push(i);
  }
  for (const i of order) {
    if (chosen.length === maxSentences) break;
    if (!chosen.includes(i)) chosen.push(i);
  }
  return { sentences: chosen.sort((a, b) => a - b).map(indexed) };
}
