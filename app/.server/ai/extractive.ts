/**
 * Extractive summarisation of scientific abstracts: a sentence splitter that keeps character
 * offsets into the source, and a LexRank-style ranker that picks the most central sentences.
 * Output is always made of verbatim source sentences, so it can never invent a word or a number.
 */

/** A sentence of the source: `text === source.slice(start, end)`. Offsets are UTF-16 code units. */
export interface SentenceSpan {
  text: string;
  start: number;
  end: number;
}

/** A selected sentence; `index` is its position in {@link splitSentences}' output. */
export interface SummarySentence extends SentenceSpan {
  index: number;
}

export interface ExtractiveSummary {
  /** Selected sentences in source order. */
  sentences: SummarySentence[];
}

interface SectionedSpan extends SentenceSpan {
  /** Lower-cased label of the structured-abstract section the sentence sits in, if any. */
  section: string | null;
}

/** Abbreviations after which a full stop never ends a sentence. Lower case, without the dot. */
const NON_TERMINAL_ABBREVIATIONS = new Set([
  "e.g", "i.e", "eg", "ie", "cf", "vs", "viz", "approx", "ca", "fig", "figs", "eq", "eqs",
  "ref", "refs", "tab", "suppl", "sect", "sec", "ch", "dr", "drs", "mr", "mrs", "ms", "prof",
  "st", "resp", "incl", "esp", "nos",
]);

/** Abbreviations that do not end a sentence when a number follows ("No. 5", "Dec. 2020"). */
const BEFORE_NUMBER_ABBREVIATIONS = new Set([
  "no", "nr", "vol", "vols", "pp", "p", "n", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
  "sep", "sept", "oct", "nov", "dec",
]);

/** Words that make "et al." a sentence end when they follow it ("… by Smith et al. The …"). */
const SENTENCE_STARTERS = new Set([
  "The", "This", "These", "Those", "We", "Our", "In", "However", "It", "Its", "A", "An",
  "There", "Here", "Their", "They", "Such", "Moreover", "Furthermore", "Although", "Overall",
]);

/** Words that may make up a structured-abstract section label ("Design, setting, and participants"). */
const HEADING_WORDS = new Set([
  "abstract", "background", "backgrounds", "introduction", "objective", "objectives", "aim",
  "aims", "purpose", "purposes", "context", "rationale", "hypothesis", "importance", "methods",
  "method", "methodology", "materials", "material", "design", "designs", "setting", "settings",
  "participants", "patients", "subjects", "population", "sample", "samples", "intervention",
  "interventions", "exposure", "exposures", "measurements", "measures", "measure", "outcome",
  "outcomes", "main", "primary", "secondary", "results", "result", "findings", "finding",
  "conclusion", "conclusions", "discussion", "interpretation", "significance", "implications",
  "relevance", "limitations", "summary", "evidence", "acquisition", "synthesis", "data", "sources",
  "study", "selection", "criteria", "eligibility", "search", "strategy", "collection", "analysis",
  "analyses", "statistical", "key", "points", "question", "questions", "observations", "trial",
  "registration", "funding", "authors", "authors'", "clinical", "review", "case", "presentation",
  "report", "description", "approach", "procedures", "procedure", "comparison", "comparisons",
  "practical", "applications", "application", "novelty", "recommendations", "keywords",
]);
const HEADING_CONNECTORS = new Set(["and", "&", "/", "of", "or", "and/or"]);
/** Heading words that may open a section even without a colon ("Methods We collected …"). */
const PRIMARY_HEADING_WORDS = new Set([
  "abstract", "background", "introduction", "objective", "objectives", "aim", "aims", "purpose",
  "context", "rationale", "importance", "methods", "method", "methodology", "design", "setting",
  "settings", "participants", "interventions", "measurements", "results", "findings",
  "conclusion", "conclusions", "discussion", "interpretation", "significance", "limitations",
  "criteria", "analysis",
]);

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

const TERMINATORS = ".!?…";
/** Bullets and mojibake (a "?" left where a thin space was) that never start a sentence. */
const LEADING_JUNK = "?·•▪◦‣";
const CLOSERS = "\"'”’)]»";
const OPENERS = "\"'“‘([«";

const isUpper = (c: string | undefined): boolean => c !== undefined && /\p{Lu}/u.test(c);
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const isSpace = (c: string | undefined): boolean => c !== undefined && /\s/u.test(c);

/** The word (letters and inner dots) that ends just before position `dot`, e.g. "e.g" or "Fig". */
function wordBefore(text: string, dot: number): string {
  let i = dot;
  while (i > 0 && /[\p{L}.]/u.test(text[i - 1]!)) i--;
  return text.slice(i, dot).replace(/^\.+/, "");
}

/** The word that starts at `pos` (letters only). */
function wordAt(text: string, pos: number): string {
  const m = /^[\p{L}]+/u.exec(text.slice(pos, pos + 40));
  return m ? m[0] : "";
}

/** Whether a full stop at `dot`, followed by whitespace and `text[next]`, ends a sentence. */
function fullStopEndsSentence(text: string, dot: number, next: number): boolean {
  const word = wordBefore(text, dot);
  const lower = word.toLowerCase();
  const nextChar = text[next];
  if (lower === "al" && /\bet\s+al$/i.test(text.slice(Math.max(0, dot - 6), dot))) {
    return SENTENCE_STARTERS.has(wordAt(text, next));
  }
  if (NON_TERMINAL_ABBREVIATIONS.has(lower)) return false;
  if (BEFORE_NUMBER_ABBREVIATIONS.has(lower) && isDigit(nextChar)) return false;
  // Dotted abbreviations such as "U.S.", "a.m." or "Ph.D.".
  if (/^(?:\p{L}{1,2}\.)+\p{L}{1,2}$/u.test(word)) return false;
  if (word.length === 1) {
    // A lone lower-case letter ("p. 23") never ends a sentence; a lone capital does when glued to
    // what precedes it or after a lower-case word ("vitamin D. The …"), not as an initial
    // ("J. Smith", "Group A. …").
    if (!isUpper(word)) return false;
    if (dot >= 2 && !isSpace(text[dot - 2])) return true; // "(13)C. This …"
    const before = /(\S+)\s+$/u.exec(text.slice(Math.max(0, dot - 41), dot - 1));
    return before !== null && /^\p{Ll}/u.test(before[1]!);
  }
  return true;
}

/**
 * Offsets where a section-heading phrase starting at `pos` could end, longest first. The phrase
 * is made only of {@link HEADING_WORDS} and connectors and starts with a capital letter.
 */
function headingPhraseEnds(text: string, pos: number): number[] {
  const re = /[\p{L}'’]+(?:\/[\p{L}]+)?|[,&/]/uy;
  const ends: number[] = [];
  let i = pos;
  let words = 0;
  while (words < 7) {
    while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) break;
    const token = m[0].toLowerCase().replace(/’/g, "'");
    const isConnector = HEADING_CONNECTORS.has(token) || token === ",";
    const isWord = token.split("/").every((t) => HEADING_WORDS.has(t));
    if (!isConnector && !isWord) break;
    if (words === 0 && (!isWord || !isUpper(m[0][0]))) break;
    i = m.index + m[0].length;
    words++;
    if (isWord) ends.push(i);
  }
  return ends.reverse();
}

/**
 * If a section label starts at `pos` ("RESULTS:", "Design, setting, and participants:",
 * "Methods We …"), returns the offset just after it (and its trailing blanks) and its name.
 * Colon labels must be ALL CAPS or made of heading words; colon-less ones must contain a primary
 * heading word and be followed by a capital or a digit.
 */
function labelAt(text: string, pos: number): { end: number; label: string; colon: boolean } | null {
  const phraseEnds = headingPhraseEnds(text, pos);
  const colon = /([\p{Lu}][\p{L}'’]*(?:(?:[ \t]*[,&/-][ \t]*|[ \t]+)[\p{L}'’]+){0,5})[ \t]*:[ \t]*/uy;
  colon.lastIndex = pos;
  const m = colon.exec(text);
  if (m) {
    const label = m[1]!;
    const letters = label.replace(/[^\p{L}]/gu, "");
    const allCaps = letters.length >= 2 && letters === letters.toUpperCase();
    const known = phraseEnds.includes(pos + label.length);
    const after = text[m.index + m[0].length];
    // "HR: 0.66" is a statistic, not a label; "RESULTS: 9 trials …" is a label.
    if (known || (allCaps && !isDigit(after) && after !== "-")) {
      return { end: m.index + m[0].length, label: label.toLowerCase(), colon: true };
    }
  }
  for (const end of phraseEnds) {
    const phrase = text.slice(pos, end).toLowerCase();
    if (!phrase.split(/[^\p{L}']+/u).some((w) => PRIMARY_HEADING_WORDS.has(w))) continue;
    let k = end;
    while (isSpace(text[k])) k++;
    if (k === end) continue;
    const after = LEADING_JUNK.includes(text[k] ?? "") ? text[k + 1] : text[k];
    if (after === undefined || isUpper(after) || isDigit(after)) {
      return { end: k, label: phrase, colon: false };
    }
  }
  return null;
}

/** Whether a line (trimmed) is only a section heading, e.g. "RESULTS" or "Background and aims". */
function isHeadingOnlyLine(line: string): boolean {
  const t = line.trim().replace(/:$/, "");
  if (!t) return false;
  return headingPhraseEnds(t, 0)[0] === t.length;
}

/** Offsets where one sentence ends and whitespace or the next sentence begins. */
function findBreaks(text: string): number[] {
  const breaks: number[] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text[i]!;
    if (TERMINATORS.includes(c)) {
      let j = i + 1;
      while (j < n && (TERMINATORS.includes(text[j]!) || CLOSERS.includes(text[j]!))) j++;
      if (j >= n) {
        breaks.push(j);
        break;
      }
      if (!isSpace(text[j])) {
        // "respectively.Fine-Gray models": a full stop glued to the next capitalised word.
        const glued =
          c === "." &&
          j === i + 1 &&
          /[\p{Ll}\d)%]/u.test(text[i - 1] ?? "") &&
          /^\p{Lu}\p{Ll}{2,}/u.test(text.slice(j, j + 4)) &&
          !/[/:@]|www/i.test(text.slice(Math.max(0, i - 30), i).split(/\s/).pop() ?? "") &&
          fullStopEndsSentence(text, i, j);
        if (glued) breaks.push(j);
        i = j - 1;
        continue;
      }
      let k = j;
      while (k < n && isSpace(text[k])) k++;
      if (k >= n) {
        breaks.push(j);
        break;
      }
      const next = text[k]!;
      const startsSentence =
        isUpper(next) || isDigit(next) || (OPENERS.includes(next) && isUpper(text[k + 1]));
      if (startsSentence && (c !== "." || fullStopEndsSentence(text, i, k))) breaks.push(j);
      i = j - 1;
    } else if (c === "\n") {
      const prevLine = text.slice(text.lastIndexOf("\n", i - 1) + 1, i);
      let k = i + 1;
      while (k < n && isSpace(text[k])) k++;
      const blankLine = text.slice(i + 1, k).includes("\n");
      const nextLineEnd = text.indexOf("\n", k);
      const nextLine = text.slice(k, nextLineEnd === -1 ? n : nextLineEnd);
      if (blankLine || isHeadingOnlyLine(prevLine) || isHeadingOnlyLine(nextLine) || labelAt(text, k)?.colon) {
        breaks.push(i);
      }
    } else if (isSpace(c) && "·•▪◦‣".includes(text[i + 1] ?? "") && isSpace(text[i + 2])) {
      breaks.push(i);
    } else if (c === " " && isUpper(text[i + 1])) {
      // An inline upper-case label without a preceding full stop: "… 0.05 CONCLUSIONS: …".
      const label = labelAt(text, i + 1);
      if (label?.colon) {
        const raw = text.slice(i + 1, label.end).replace(/[\s:]+$/, "");
        const letters = raw.replace(/[^\p{L}]/gu, "");
        const known = headingPhraseEnds(text, i + 1).includes(i + 1 + raw.length);
        if (known && letters.length >= 4 && letters === letters.toUpperCase()) breaks.push(i);
      }
    }
  }
  return breaks;
}

/** Sentences with the section each belongs to; labels themselves are left out of the spans. */
function segment(text: string): SectionedSpan[] {
  const out: SectionedSpan[] = [];
  const boundaries = [...new Set([0, ...findBreaks(text), text.length])].sort((a, b) => a - b);
  let section: string | null = null;
  for (let b = 0; b < boundaries.length - 1; b++) {
    let start = boundaries[b]!;
    const end0 = boundaries[b + 1]!;
    for (let guard = 0; guard < 4; guard++) {
      while (start < end0 && (isSpace(text[start]) || LEADING_JUNK.includes(text[start]!))) start++;
      const label = labelAt(text, start);
      if (!label || label.end > end0) break;
      section = label.label;
      start = label.end;
    }
    let end = end0;
    while (end > start && isSpace(text[end - 1])) end--;
    if (end <= start) continue;
    const body = text.slice(start, end);
    if (!/[\p{L}\p{N}]/u.test(body)) continue;
    if (isHeadingOnlyLine(body)) {
      section = body.replace(/:$/, "").toLowerCase();
      continue;
    }
    out.push({ text: body, start, end, section });
  }
  return out;
}

/**
 * Splits prose into sentences and returns each with its character offsets into `text`, so that
 * `text.slice(s.start, s.end) === s.text`. Leading/trailing whitespace is excluded.
 *
 * Rule-based (no model): a sentence ends at `.`, `!`, `?` or `…` (plus closing quotes/brackets)
 * followed by whitespace and a capital letter, digit or opening quote. It does not split after
 * abbreviations ("e.g.", "i.e.", "vs.", "Fig.", "et al." unless a sentence starter follows,
 * "No. 5"), inside decimals ("0.75", "p < 0.05", "95% CI 0.60–0.93") or initials. Structured-
 * abstract labels ("METHODS:", "Results:", "Design, setting, and participants:", a heading alone
 * on a line, or "Methods We …" when markup was stripped) end the previous sentence and are not
 * part of any sentence. Blank lines and bullets ("•", "·") always start a new sentence.
 */
export function splitSentences(text: string): SentenceSpan[] {
  return segment(text).map(({ text: t, start, end }) => ({ text: t, start, end }));
}

/** Lower-cased content terms of a sentence (stop words and bare numbers dropped, light stemming). */
function terms(sentence: string): string[] {
  const words = sentence.toLowerCase().match(/[\p{L}\p{N}]+(?:[-'][\p{L}\p{N}]+)*/gu) ?? [];
  const out: string[] = [];
  for (const w of words) {
    if (w.length < 2 || STOPWORDS.has(w) || /^[\d.,-]+$/.test(w)) continue;
    out.push(stem(w));
  }
  return out;
}

/** A minimal suffix stripper (plural, -ed, -ing) so "patients"/"patient" and "treated"/"treat" meet. */
function stem(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w;
  let s = w;
  if (s.endsWith("ies") && s.length > 4) s = s.slice(0, -3) + "y";
  else if (s.endsWith("sses")) s = s.slice(0, -2);
  else if (s.endsWith("s") && !s.endsWith("ss") && !s.endsWith("us") && !s.endsWith("is")) s = s.slice(0, -1);
  if (s.endsWith("ing") && s.length - 3 >= 4) s = s.slice(0, -3);
  else if (s.endsWith("ed") && s.length - 2 >= 4) s = s.slice(0, -2);
  return s;
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
export function summarizeExtractive(
  text: string,
  options: { maxSentences?: number } = {},
): ExtractiveSummary {
  const maxSentences = options.maxSentences ?? 3;
  if (!Number.isInteger(maxSentences) || maxSentences < 1) {
    throw new RangeError(`maxSentences must be a positive integer, got ${maxSentences}`);
  }
  const spans = segment(text);
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
