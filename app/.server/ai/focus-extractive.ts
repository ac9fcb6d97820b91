/**
 * Focused extractive summaries for the offline model: LexRank centrality (Erkan & Radev 2004)
 * re-weighted by hits of a focus vocabulary, so a "cardiovascular" analysis of an abstract picks
 * its central sentences about blood pressure, stroke or LDL. Like `summarizeExtractive`, the
 * output is made only of verbatim source sentences; the one exception is the lead-in used when no
 * sentence mentions the focus, which the caller labels as the model's own framing.
 *
 * The focus reaches the offline model through the prompt: a `<focus label="…" terms="…">` tag
 * ({@link focusDirectiveTag}) before the `<source>` block. Remote models see the same tag as a
 * plain statement of the focus.
 */
import { splitSentences } from "~/lib/extraction/core";
import { summarizeExtractive } from "./extractive";
import { parseNumberedSource } from "./grounding";

/** What a focus directive tells the offline model. */
export interface FocusDirective {
  /** Readable name of the focus, used in the lead-in ("cardiovascular health"). */
  label: string;
  /**
   * Vocabulary terms. A phrase matches case-insensitively as whole words (plural -s/-es allowed,
   * spaces or hyphens between words); a term ending in "*" matches as a word prefix ("thrombo*");
   * an all-capitals term ("LDL") matches case-sensitively.
   */
  terms: string[];
}

/** A selected sentence: `text` as it appears in the source given to {@link summarizeForFocus}. */
export interface FocusedSentence {
  text: string;
  /** Position among the source's sentences. */
  index: number;
  /** Distinct focus terms the sentence contains. */
  hits: number;
}

export interface FocusedSummary {
  /**
   * Set when no sentence of the source mentions the focus: "The source does not discuss {label}
   * directly; its central findings are:". It is not from the source.
   */
  leadIn: string | null;
  /** Selected sentences in source order. */
  sentences: FocusedSentence[];
}

/** The lead-in for a source that does not mention the focus. */
export function focusLeadIn(label: string): string {
  return `The source does not discuss ${label} directly; its central findings are:`;
}

/** Recognises a {@link focusLeadIn} sentence (any label) at the start of a text. */
export const FOCUS_LEAD_IN_PATTERN = /^The source does not discuss [^;\n]{1,80}? directly; its central findings are:/i;

const attr = (value: string) =>
  value
    .replace(/[<>"&|]/g, " ")
    .replace(/\s+/g, " ")
    .trim();

/**
 * The focus directive for a prompt: `<focus label="cardiovascular health" terms="blood
 * pressure|LDL|…">`. Place it before the `wrapSource` block. Characters that would break the tag
 * (`<`, `>`, `"`, `&`, `|`) are replaced by spaces.
 */
export function focusDirectiveTag(directive: FocusDirective): string {
  const terms = directive.terms.map(attr).filter(Boolean).join("|");
  return `<focus label="${attr(directive.label)}" terms="${terms}">`;
}

/**
 * Reads a {@link focusDirectiveTag} from a prompt. Only the text before the first `<source>` is
 * searched, so a source that happens to contain such a tag cannot set the focus.
 */
export function readFocusDirective(promptText: string): FocusDirective | null {
  const open = promptText.indexOf("<source>");
  const head = open === -1 ? promptText : promptText.slice(0, open);
  const m = /<focus\s+label="([^"]*)"\s+terms="([^"]*)"\s*\/?>/.exec(head);
  if (!m) return null;
  const terms = m[2]!
    .split("|")
    .map((t) => t.trim())
    .filter(Boolean);
  return { label: m[1]!.trim() || "the focus", terms };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** One regular expression per term (see {@link FocusDirective.terms}). */
export function compileFocusTerms(terms: readonly string[]): RegExp[] {
  return terms.map((raw) => {
    const prefix = raw.endsWith("*");
    const term = prefix ? raw.slice(0, -1) : raw;
    const body = term
      .trim()
      .split(/[\s-]+/)
      .map(escapeRegExp)
      .join(String.raw`[\s\-‐]*`);
    const caseSensitive = /\p{Lu}/u.test(term) && !/\p{Ll}/u.test(term);
    const tail = prefix ? String.raw`[\p{L}\p{N}-]*` : String.raw`(?:s|es)?(?![\p{L}\p{N}])`;
    return new RegExp(String.raw`(?<![\p{L}\p{N}])${body}${tail}`, caseSensitive ? "u" : "iu");
  });
}

/** How many distinct terms occur in `sentence`. */
export function countFocusHits(sentence: string, patterns: readonly RegExp[]): number {
  let hits = 0;
  for (const p of patterns) if (p.test(sentence)) hits++;
  return hits;
}

const STOPWORDS = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below " +
    "between both but by can could did do does doing down during each few for from further had has have having " +
    "he her here his how however i if in into is it its itself just may might more most must no nor not now of " +
    "off on once only or other our out over own same she should so some such than that the their them then " +
    "there these they this those through thus to too under until up upon very via was we were what when where " +
    "whether which while who whom why will with within without would yet you your et al vs using used use among"
  ).split(" "),
);

function stem(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w;
  let s = w;
  if (s.endsWith("ies") && s.length > 4) s = s.slice(0, -3) + "y";
  else if (s.endsWith("s") && !s.endsWith("ss") && !s.endsWith("us") && !s.endsWith("is")) s = s.slice(0, -1);
  if (s.endsWith("ing") && s.length > 6) s = s.slice(0, -3);
  else if (s.endsWith("ed") && s.length > 5) s = s.slice(0, -2);
  return s;
}

function contentTerms(sentence: string): string[] {
  const words = sentence.toLowerCase().match(/[\p{L}\p{N}]+(?:[-'][\p{L}\p{N}]+)*/gu) ?? [];
  return words.filter((w) => w.length > 1 && !STOPWORDS.has(w) && !/^[\d.,-]+$/.test(w)).map(stem);
}

type Vector = Map<string, number>;

function tfidf(docs: string[][]): Vector[] {
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  return docs.map((d) => {
    const v: Vector = new Map();
    for (const t of d) v.set(t, (v.get(t) ?? 0) + 1);
    for (const [t, f] of v) v.set(t, f * (Math.log((1 + docs.length) / (1 + df.get(t)!)) + 1));
    return v;
  });
}

function cosine(a: Vector, b: Vector): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [t, x] of a) {
    na += x * x;
    dot += x * (b.get(t) ?? 0);
  }
  for (const y of b.values()) nb += y * y;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Continuous LexRank: PageRank (damping 0.85) over the TF-IDF cosine graph; scores sum to 1. */
function lexRank(sim: number[][]): number[] {
  const n = sim.length;
  const rowSums = sim.map((row) => row.reduce((s, x) => s + x, 0));
  let scores = new Array<number>(n).fill(1 / n);
  for (let iter = 0; iter < 200; iter++) {
    const next = new Array<number>(n).fill(0.15 / n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        next[j]! += rowSums[i] === 0 ? (0.85 * scores[i]!) / n : (0.85 * scores[i]! * sim[i]![j]!) / rowSums[i]!;
      }
    }
    const delta = next.reduce((s, x, k) => s + Math.abs(x - scores[k]!), 0);
    scores = next;
    if (delta < 1e-10) break;
  }
  return scores;
}

const STATISTIC = /\d\s*%|\b[pP]\s*[<=>≤≥]|\bCI\b|\b(?:a?OR|a?HR|RR|SMD|WMD|MD)\b|±|\b[nN]\s*=\s*\d/;

/** Mild priors as in `summarizeExtractive`: results with statistics up, stubs and funding lines down. */
function prior(sentence: string, termCount: number): number {
  let w = 1;
  if (STATISTIC.test(sentence)) w *= 1.2;
  if (termCount < 5) w *= 0.6;
  if (/^\(?(?:funded by|trial registration|registration|copyright|©)/i.test(sentence)) w *= 0.3;
  return w;
}

/** The source's sentences: the lines of a numbered source ("[S1] …"), else `splitSentences`. */
function sourceSentences(source: string): string[] {
  const numbered = parseNumberedSource(source);
  if (numbered) return numbered.map((s) => s.text).filter(Boolean);
  return splitSentences(source).map((s) => s.text);
}

/**
 * Picks up to `maxSentences` (default 3) sentences of `source` for a focused analysis.
 *
 * Score = LexRank centrality × mild priors × (1 + 0.5 · min(hits, 4)), where hits are the distinct
 * focus terms in the sentence. Sentences with at least one hit always rank above sentences with
 * none; the latter only fill the remaining places. A greedy redundancy filter skips a candidate
 * whose cosine to an already chosen sentence is ≥ 0.5 (MMR, Carbonell & Goldstein 1998) while
 * other candidates remain. When no sentence has a hit, `leadIn` is {@link focusLeadIn} and the
 * sentences are the plain extractive summary (`summarizeExtractive`) of the source.
 *
 * `source` may be plain text or a numbered source (`formatNumberedSource`); either way the
 * returned texts are sentences of it (for a numbered source, without the "[Sn] " prefixes).
 * Deterministic: ties go to the earlier sentence.
 */
export function summarizeForFocus(
  source: string,
  directive: FocusDirective,
  options: { maxSentences?: number } = {},
): FocusedSummary {
  const maxSentences = Math.max(1, Math.floor(options.maxSentences ?? 3));
  const texts = sourceSentences(source);
  const patterns = compileFocusTerms(directive.terms);
  const hits = texts.map((t) => countFocusHits(t, patterns));

  if (!hits.some((h) => h > 0)) {
    const plain = parseNumberedSource(source) ? texts.join(" ") : source;
    const picked = summarizeExtractive(plain, { maxSentences }).sentences.map((s) => s.text);
    return {
      leadIn: focusLeadIn(directive.label),
      sentences: picked.map((text) => {
        const index = texts.indexOf(text);
        return { text, index: index === -1 ? texts.findIndex((t) => t.includes(text)) : index, hits: 0 };
      }),
    };
  }

  const docs = texts.map(contentTerms);
  const vectors = tfidf(docs);
  const sim = vectors.map((a, i) => vectors.map((b, j) => (i === j ? 0 : cosine(a, b))));
  const centrality = lexRank(sim);
  const score = centrality.map(
    (c, i) => c * prior(texts[i]!, docs[i]!.length) * (hits[i]! > 0 ? 1 + 0.5 * Math.min(hits[i]!, 4) : 1),
  );
  const order = texts.map((_, i) => i).sort((a, b) => score[b]! - score[a]! || a - b);

  const chosen: number[] = [];
  const pick = (candidates: number[]) => {
    for (const i of candidates) {
      if (chosen.length === maxSentences) return;
      if (chosen.every((j) => sim[i]![j]! < 0.5)) chosen.push(i);
    }
    for (const i of candidates) {
      if (chosen.length === maxSentences) return;
      if (!chosen.includes(i)) chosen.push(i);
    }
  };
  // Focused sentences first (even a redundant one beats an unfocused filler), then fillers.
  pick(order.filter((i) => hits[i]! > 0));
  pick(order.filter((i) => hits[i] === 0));
  return {
    leadIn: null,
    sentences: chosen.sort((a, b) => a - b).map((i) => ({ text: texts[i]!, index: i, hits: hits[i]! })),
  };
}

/** The offline model's answer text for a focus: the lead-in (if any) and the sentences, space-joined. */
export function focusedSummaryText(summary: FocusedSummary): string {
  return [summary.leadIn, ...summary.sentences.map((s) => s.text)].filter(Boolean).join(" ");
}
