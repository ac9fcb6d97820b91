/**
 * The one sentence splitter of the extraction core (pure, no I/O). Effects, arm-level data, study
 * facts, summaries and grounding all number and quote sentences from this function, so a sentence
 * id or a quote's sentence is the same whichever path produced it.
 */

/** A sentence of the source: `text === source.slice(start, end)`. Offsets are UTF-16 code units. */
export interface SentenceSpan {
  text: string;
  start: number;
  end: number;
}

/** A sentence with the structured-abstract section it belongs to. */
export interface SectionedSpan extends SentenceSpan {
  /** Lower-cased label of the structured-abstract section the sentence sits in, if any. */
  section: string | null;
}

/** Abbreviations after which a full stop never ends a sentence. Lower case, without the dot. */
const NON_TERMINAL_ABBREVIATIONS = new Set([
  "e.g",
  "i.e",
  "eg",
  "ie",
  "cf",
  "vs",
  "viz",
  "approx",
  "ca",
  "fig",
  "figs",
  "eq",
  "eqs",
  "ref",
  "refs",
  "tab",
  "suppl",
  "sect",
  "sec",
  "ch",
  "dr",
  "drs",
  "mr",
  "mrs",
  "ms",
  "prof",
  "st",
  "resp",
  "incl",
  "esp",
  "nos",
]);

/** Abbreviations that do not end a sentence when a number follows ("No. 5", "Dec. 2020"). */
const BEFORE_NUMBER_ABBREVIATIONS = new Set([
  "no",
  "nr",
  "vol",
  "vols",
  "pp",
  "p",
  "n",
  "jan",
  "feb",
  "mar",
  "apr",
  "jun",
  "jul",
  "aug",
  "sep",
  "sept",
  "oct",
  "nov",
  "dec",
]);

/** Words that make "et al." a sentence end when they follow it ("… by Smith et al. The …"). */
const SENTENCE_STARTERS = new Set([
  "The",
  "This",
  "These",
  "Those",
  "We",
  "Our",
  "In",
  "However",
  "It",
  "Its",
  "A",
  "An",
  "There",
  "Here",
  "Their",
  "They",
  "Such",
  "Moreover",
  "Furthermore",
  "Although",
  "Overall",
]);

/** Words that may make up a structured-abstract section label ("Design, setting, and participants"). */
const HEADING_WORDS = new Set([
  "abstract",
  "background",
  "backgrounds",
  "introduction",
  "objective",
  "objectives",
  "aim",
  "aims",
  "purpose",
  "purposes",
  "context",
  "rationale",
  "hypothesis",
  "importance",
  "methods",
  "method",
  "methodology",
  "materials",
  "material",
  "design",
  "designs",
  "setting",
  "settings",
  "participants",
  "patients",
  "subjects",
  "population",
  "sample",
  "samples",
  "intervention",
  "interventions",
  "exposure",
  "exposures",
  "measurements",
  "measures",
  "measure",
  "outcome",
  "outcomes",
  "main",
  "primary",
  "secondary",
  "results",
  "result",
  "findings",
  "finding",
  "conclusion",
  "conclusions",
  "discussion",
  "interpretation",
  "significance",
  "implications",
  "relevance",
  "limitations",
  "summary",
  "evidence",
  "acquisition",
  "synthesis",
  "data",
  "sources",
  "study",
  "selection",
  "criteria",
  "eligibility",
  "search",
  "strategy",
  "collection",
  "analysis",
  "analyses",
  "statistical",
  "key",
  "points",
  "question",
  "questions",
  "observations",
  "trial",
  "registration",
  "funding",
  "authors",
  "authors'",
  "clinical",
  "review",
  "case",
  "presentation",
  "report",
  "description",
  "approach",
  "procedures",
  "procedure",
  "comparison",
  "comparisons",
  "practical",
  "applications",
  "application",
  "novelty",
  "recommendations",
  "keywords",
]);
const HEADING_CONNECTORS = new Set(["and", "&", "/", "of", "or", "and/or"]);
/** Heading words that may open a section even without a colon ("Methods We collected …"). */
const PRIMARY_HEADING_WORDS = new Set([
  "abstract",
  "background",
  "introduction",
  "objective",
  "objectives",
  "aim",
  "aims",
  "purpose",
  "context",
  "rationale",
  "importance",
  "methods",
  "method",
  "methodology",
  "design",
  "setting",
  "settings",
  "participants",
  "interventions",
  "measurements",
  "results",
  "findings",
  "conclusion",
  "conclusions",
  "discussion",
  "interpretation",
  "significance",
  "limitations",
  "criteria",
  "analysis",
]);

const TERMINATORS = ".!?…";
/** Bullets and mojibake (a "?" left where a thin space was) that never start a sentence. */
const LEADING_JUNK = "?·•▪◦‣";
const CLOSERS = "\"'”’)]»";
const OPENERS = "\"'“‘([«";

// Called once per character: ASCII is decided by its code, the rest by the Unicode class.
const isUpper = (c: string | undefined): boolean => {
  if (c === undefined) return false;
  const code = c.charCodeAt(0);
  if (code < 128) return code >= 65 && code <= 90;
  return /\p{Lu}/u.test(c);
};
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const isSpace = (c: string | undefined): boolean => {
  if (c === undefined) return false;
  const code = c.charCodeAt(0);
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return /\s/u.test(c);
};

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

/** A colon within the next 80 characters of the line: an inline label ("RESULTS: …") needs one, so most capitals are skipped cheaply. */
function colonAhead(text: string, pos: number): boolean {
  const end = Math.min(text.length, pos + 80);
  for (let k = pos; k < end; k++) {
    const ch = text.charCodeAt(k);
    if (ch === 58) return true;
    if (ch === 10) return false;
  }
  return false;
}

/** Offsets where one sentence ends and whitespace or the next sentence begins. */
function findBreaks(text: string): number[] {
  const breaks: number[] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const code = text.charCodeAt(i);
    // ASCII letters and digits (most characters) end no sentence and start no label.
    if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57)) continue;
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
          !/[/:@]|www/i.test(
            text
              .slice(Math.max(0, i - 30), i)
              .split(/\s/)
              .pop() ?? "",
          ) &&
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
      const startsSentence = isUpper(next) || isDigit(next) || (OPENERS.includes(next) && isUpper(text[k + 1]));
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
    } else if ("·•▪◦‣".includes(text[i + 1] ?? "") && text[i + 1] !== undefined && isSpace(c) && isSpace(text[i + 2])) {
      breaks.push(i);
    } else if (c === " " && isUpper(text[i + 1]) && colonAhead(text, i + 1)) {
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

/**
 * Sentences with the section each belongs to (see {@link splitSentences}); labels themselves are
 * left out of the spans.
 */
export function sectionedSentences(text: string): SectionedSpan[] {
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
  return sectionedSentences(text).map(({ text: t, start, end }) => ({ text: t, start, end }));
}

/**
 * Sentence spans of `text` between `from` and `to` (a paragraph or a table cell of a document),
 * split by {@link splitSentences}; offsets are into `text`. A document is split once, by
 * `documentSentences` (core/document), which memoises the result per document.
 */
export function sentenceSpans(text: string, from = 0, to = text.length): { start: number; end: number }[] {
  return splitSentences(text.slice(from, to)).map((s) => ({ start: from + s.start, end: from + s.end }));
}
