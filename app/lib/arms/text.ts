/**
 * Word-level helpers for matching a question's intervention, comparator and outcome to a report:
 * tokens, stop words, a small synonym lexicon, abbreviation definitions, sentence spans.
 */

import { distance } from "fastest-levenshtein";
import { stemmer as porter } from "stemmer";

const STOP = new Set(
  "a an the of in on at to for with without and or by from as vs versus than that this these those is are was were be been being its their his her who which during after before over under between among per into within via each both all any mean means average total overall number numbers patients patient participants participant subjects subject people persons individuals group groups arm arms scores score level levels value values rate rates change changes changed from baseline".split(
    " ",
  ),
);

/** Words that describe an arm's role rather than its content ("group", "arm", "received"). */
const ARM_GENERIC_WORDS = "group groups arm arms patients patient participants subjects cases receiving received treated given fed n dose doses dosage".split(" ");

const SYNONYMS: string[][] = [
  ["death", "mortality", "died", "dead", "deaths", "fatal", "fatality"],
  ["myocardial", "mi", "infarction", "heart attack"],
  ["adverse", "ae", "aes", "side", "teae", "teaes"],
  ["response", "responder", "responders", "respond", "responded"],
  ["remission", "remitted", "remitter", "remitters"],
  ["relapse", "relapsed", "recurrence", "recurred"],
  ["weight", "bodyweight", "body-weight"],
  ["duration", "length", "days", "time"],
  ["hospital", "hospitalisation", "hospitalization", "admission", "inpatient"],
  ["infection", "infections", "infected"],
  ["pain", "painful", "vas"],
  ["depression", "depressive", "depressed"],
  ["anxiety", "anxious"],
  ["quality", "qol", "hrqol"],
  ["bmi", "body mass index"],
  ["blood pressure", "bp", "sbp", "dbp", "systolic", "diastolic"],
  ["sick leave", "sickness absence", "absence"],
  ["stay", "los"],
];

/**
 * British and American spellings of the same medical word meet before stemming (applied to both sides, so
 * it never separates two spellings): "haemoglobin"/"hemoglobin", "oedema"/"edema", "tumour"/"tumor",
 * "randomisation"/"randomization", "analyse"/"analyze".
 */
function spellingKey(word: string): string {
  return word
    .replace(/ae/g, "e")
    .replace(/(?<=[a-z])oe|^oe/g, "e")
    .replace(/our(?=s?$|ed$|ing$|al$)/, "or")
    .replace(/is(ation|ations|e|es|ed|ing)$/, "iz$1")
    .replace(/yse(s|d)?$/, "yze$1");
}

/**
 * Lower-case word stem: the Porter stemmer (`stemmer` package, M. F. Porter 1980) after the
 * British/American spelling key; Latin plurals of organisms and terms ("lactobacilli", "stimuli") meet
 * their singular in "-us" first, which Porter does not know.
 */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length > 6 && /[^aeiou]i$/.test(w)) w = `${w.slice(0, -1)}us`;
  return porter(spellingKey(w));
}

/**
 * Two stems name the same word, allowing one typing slip (Levenshtein distance 1, `fastest-levenshtein`)
 * in stems of 8 letters or more; never across hyper-/hypo- ("hypertension" is not "hypotension").
 */
export function sameStem(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.length < 8 || b.length < 8 || a.startsWith("#") || b.startsWith("#")) return false;
  if (/^hyp(er|o)/.test(a) && /^hyp(er|o)/.test(b) && a.slice(0, 5) !== b.slice(0, 5)) return false;
  return distance(a, b) <= 1;
}

/** Whether `set` holds `token` or a stem `sameStem` accepts (exact lookup first). */
export function hasStem(set: ReadonlySet<string>, token: string): boolean {
  if (set.has(token)) return true;
  if (token.length < 8) return false;
  for (const t of set) if (sameStem(t, token)) return true;
  return false;
}

/** Words of a phrase (letters, digits, inner hyphens). */
export function words(text: string): string[] {
  return text.match(/[A-Za-z\u00c0-\u024f][A-Za-z0-9\u00c0-\u024f'-]*|\d+(?:\.\d+)?/g) ?? [];
}

const tokenCache = new Map<string, string[]>();

/** Content tokens of a phrase: stemmed, stop words removed (memoised; callers must not mutate the result). */
export function contentTokens(text: string): string[] {
  const cached = tokenCache.get(text);
  if (cached) return cached;
  const out = computeContentTokens(text);
  if (tokenCache.size > 20000) tokenCache.clear();
  tokenCache.set(text, out);
  return out;
}

function computeContentTokens(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    for (const part of w.split("-")) {
      const t = stem(part);
      if (t && !STOP.has(part.toLowerCase()) && !STOP.has(t)) out.push(t);
    }
  }
  return out;
}

/** Content tokens with role words ("group", "arm", "received") removed, for arm names. */
const ARM_GENERIC = new Set([...ARM_GENERIC_WORDS, ...ARM_GENERIC_WORDS.map(stem)]);

export function armTokens(text: string): string[] {
  return contentTokens(text).filter((t) => !ARM_GENERIC.has(t));
}

const SYNONYM_INDEX = new Map<string, number>();
SYNONYMS.forEach((set, i) => {
  for (const term of set) for (const t of contentTokens(term)) if (!SYNONYM_INDEX.has(t)) SYNONYM_INDEX.set(t, i);
});

/** Synonym-set id of a token, or the token itself. */
export function concept(token: string): string {
  const id = SYNONYM_INDEX.get(token);
  return id === undefined ? token : `#${id}`;
}

export interface Abbreviation {
  short: string;
  long: string;
}

function initialsFit(short: string, long: string): boolean {
  const letters = short.replace(/[^A-Za-z]/g, "").toLowerCase();
  if (letters.length < 1) return false;
  const ws = words(long).map((w) => w.toLowerCase());
  if (ws.length === 0) return false;
  if (letters[0] !== ws[0][0] && !(ws.length > 1 && letters[0] === ws[1][0])) {
    return long.toLowerCase().startsWith(letters[0]);
  }
  let li = 0;
  const flat = long.toLowerCase();
  for (let i = 0; i < flat.length && li < letters.length; i += 1) if (flat[i] === letters[li]) li += 1;
  return li === letters.length;
}

const SHORT_FORM = /^[A-Za-z][A-Za-z0-9α-ω-]{0,11}$/;

function looksShort(value: string): boolean {
  return SHORT_FORM.test(value) && /[A-Z0-9]/.test(value.slice(1)) || /^[A-Z]{2,}s?$/.test(value);
}

/**
 * Abbreviations defined in a text: "long form (LF)" (the Schwartz–Hearst test that the short
 * form's letters occur in order in the long form, starting with its first letter), "LF (long form)",
 * and footnote definitions "LF, long form" / "LF: long form" / "LF = long form" at a clause start.
 */
export function findAbbreviations(text: string): Abbreviation[] {
  const found: Abbreviation[] = [];
  const paren = /\(([^()]{1,60})\)/g;
  let m: RegExpExecArray | null;
  while ((m = paren.exec(text))) {
    const inner = m[1].trim().replace(/[;,].*$/, "").trim();
    const before = text.slice(Math.max(0, m.index - 120), m.index).trimEnd();
    if (looksShort(inner)) {
      const ws = before.split(/\s+/);
      const n = inner.replace(/[^A-Za-z]/g, "").length;
      const maxWords = Math.min(ws.length, n + 5, Math.max(n * 2, 1));
      for (let k = 1; k <= maxWords; k += 1) {
        const long = ws.slice(-k).join(" ").replace(/^[^A-Za-z0-9]+/, "");
        if (long.toLowerCase().startsWith(inner[0].toLowerCase()) && initialsFit(inner, long)) {
          found.push({ short: inner, long });
          break;
        }
      }
    } else {
      const prev = /([A-Za-z][A-Za-z0-9-]{0,11})\s*$/.exec(before);
      if (prev && looksShort(prev[1]) && words(inner).length >= 1 && !/^\d/.test(inner) && !/^(n|p)\s*[=<>]/i.test(inner)) {
        found.push({ short: prev[1], long: inner });
      }
    }
  }
  const defs = /(?:^|[.;]\s+|\n)([A-Z][A-Za-z0-9-]{0,11})(?:\s+(?:group|arm))?\s*(?:,|:|=)\s+(?:the\s+)?([a-z][^.;,\n]{2,60})/g;
  while ((m = defs.exec(text))) {
    if (looksShort(m[1])) found.push({ short: m[1], long: m[2].trim() });
  }
  // Footnote definitions with a capitalised long form ("HAM-D, Hamilton Depression Rating Scale") only when the letters fit.
  const capitalised = /(?:^|[.;]\s+|\n)([A-Z][A-Za-z0-9-]{1,11})\s*(?:,|:|=)\s+([A-Z][A-Za-z'-]+(?:\s+[A-Za-z'-]+){1,8})(?=\s*[.;,\n]|$)/g;
  while ((m = capitalised.exec(text))) {
    if (looksShort(m[1]) && initialsFit(m[1], m[2]) && m[2].toLowerCase().startsWith(m[1][0].toLowerCase())) found.push({ short: m[1], long: m[2].trim() });
  }
  return found;
}

export interface SentenceSpan {
  start: number;
  end: number;
}

/**
 * Sentence spans of `text` between `from` and `to`: split after . ! ? before a capital, digit or
 * bracket; not after "vs.", "e.g." and the like, nor at a semicolon (the clauses of a results sentence
 * share its subject: "response in 45/120 with drug; 30/118 with placebo").
 */
export function sentenceSpans(text: string, from: number, to: number): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  let start = from;
  const re = /[.!?](?=\s+[A-Z0-9(\u0391-\u03a9])/g;
  re.lastIndex = from;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) && m.index < to) {
    const tail = text.slice(Math.max(from, m.index - 6), m.index + 1).toLowerCase();
    if (/\b(vs|e\.g|i\.e|al|approx|fig|figs|no|nos|ref|resp|min|max)\.$/.test(tail)) continue;
    if (/\d\.$/.test(tail) && /^\d/.test(text.slice(m.index + 1, m.index + 3).trim())) continue;
    spans.push({ start, end: m.index + 1 });
    start = m.index + 1;
    while (start < to && /\s/.test(text[start])) start += 1;
  }
  if (start < to) spans.push({ start, end: to });
  return spans;
}
