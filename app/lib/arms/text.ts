/**
 * Word-level helpers for matching a question's intervention, comparator and outcome to a report:
 * stop words, a small synonym lexicon, abbreviation definitions. Words, stems and sentences come
 * from the extraction core (app/lib/extraction/core): one stemmer, one token normaliser, one
 * sentence splitter for every extraction path.
 */
import { normalisedTokens, stem, words } from "../extraction/core/index.ts";

import { distance } from "fastest-levenshtein";

const STOP = new Set(
  "a an the of in on at to for with without and or by from as vs versus than that this these those is are was were be been being its their his her who which during after before over under between among per into within via each both all any mean means average total overall number numbers patients patient participants participant subjects subject people persons individuals group groups arm arms scores score level levels value values rate rates change changes changed from baseline".split(
    " ",
  ),
);

/** Words that describe an arm's role rather than its content ("group", "arm", "received"). */
const ARM_GENERIC_WORDS =
  "group groups arm arms patients patient participants subjects cases receiving received treated given fed n dose doses dosage".split(
    " ",
  );

/** Stop words as written and as stemmed, so the core's normaliser drops either form. */
const STOP_STEMS = new Set([...STOP, ...[...STOP].map(stem)]);
const ARM_GENERIC = new Set([...ARM_GENERIC_WORDS, ...ARM_GENERIC_WORDS.map(stem)]);

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
  return normalisedTokens(text, STOP_STEMS);
}

/** Content tokens with role words ("group", "arm", "received") removed, for arm names. */
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
  return (SHORT_FORM.test(value) && /[A-Z0-9]/.test(value.slice(1))) || /^[A-Z]{2,}s?$/.test(value);
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
    const inner = m[1]
      .trim()
      .replace(/[;,].*$/, "")
      .trim();
    const before = text.slice(Math.max(0, m.index - 120), m.index).trimEnd();
    if (looksShort(inner)) {
      const ws = before.split(/\s+/);
      const n = inner.replace(/[^A-Za-z]/g, "").length;
      const maxWords = Math.min(ws.length, n + 5, Math.max(n * 2, 1));
      for (let k = 1; k <= maxWords; k += 1) {
        const long = ws
          .slice(-k)
          .join(" ")
          .replace(/^[^A-Za-z0-9]+/, "");
        if (long.toLowerCase().startsWith(inner[0].toLowerCase()) && initialsFit(inner, long)) {
          found.push({ short: inner, long });
          break;
        }
      }
    } else {
      const prev = /([A-Za-z][A-Za-z0-9-]{0,11})\s*$/.exec(before);
      if (
        prev &&
        looksShort(prev[1]) &&
        words(inner).length >= 1 &&
        !/^\d/.test(inner) &&
        !/^(n|p)\s*[=<>]/i.test(inner)
      ) {
        found.push({ short: prev[1], long: inner });
      }
    }
  }
  const defs =
    /(?:^|[.;]\s+|\n)([A-Z][A-Za-z0-9-]{0,11})(?:\s+(?:group|arm))?(?:\s*[,:]\s+|\s*=\s*)(?:the\s+)?([a-z][^.;,\n]{2,60})/g;
  while ((m = defs.exec(text))) {
    if (looksShort(m[1])) found.push({ short: m[1], long: m[2].trim() });
  }
  // Footnote definitions with a capitalised long form ("HAM-D, Hamilton Depression Rating Scale") only when the letters fit.
  const capitalised =
    /(?:^|[.;]\s+|\n)([A-Z][A-Za-z0-9-]{1,11})(?:\s*[,:]\s+|\s*=\s*)([A-Z][A-Za-z'-]+(?:\s+[A-Za-z'-]+){1,8})(?=\s*[.;,\n]|$)/g;
  while ((m = capitalised.exec(text))) {
    if (looksShort(m[1]) && initialsFit(m[1], m[2]) && m[2].toLowerCase().startsWith(m[1][0].toLowerCase()))
      found.push({ short: m[1], long: m[2].trim() });
  }
  return found;
}
