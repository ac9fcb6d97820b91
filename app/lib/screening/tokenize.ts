/**
 * Tokeniser for title/abstract screening: Unicode-aware, lowercased, accents folded, hyphenated
 * words kept whole. Optional: English stop words removed (used for the review question and for
 * explanations) and plurals folded with Harman's S-stemmer (Harman 1991, "How effective is
 * suffixing?", JASIS 42:7).
 */

/** Common English function words (a subset of the Glasgow/SMART lists), never used as features. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below " +
    "between both but by can could did do does doing down during each either few for from further had has " +
    "have having he her here hers herself him himself his how however i if in into is it its itself just me " +
    "more most my myself no nor not now of off on once only or other our ours ourselves out over own same " +
    "she should so some such than that the their theirs them themselves then there these they this those " +
    "through thus to too under until up upon us very via was we were what when where whether which while " +
    "who whom whose why will with within without would yet you your yours yourself yourselves may might must " +
    "shall among amongst although though therefore hence whereas"
  ).split(" "),
);

/**
 * Harman's S-stemmer: "ies" → "y" (unless "eies"/"aies"), "es" → "e" (unless "aes"/"ees"/"oes"),
 * "s" → "" (unless "us"/"ss"). Words of ≤ 3 letters are left alone.
 */
export function sStem(word: string): string {
  const n = word.length;
  if (n <= 3 || word.charCodeAt(n - 1) !== 115 /* s */) return word;
  if (word.endsWith("ies") && !word.endsWith("eies") && !word.endsWith("aies")) return word.slice(0, -3) + "y";
  if (word.endsWith("es") && !word.endsWith("aes") && !word.endsWith("ees") && !word.endsWith("oes")) {
    return word.slice(0, -1);
  }
  if (word.endsWith("us") || word.endsWith("ss")) return word;
  return word.slice(0, -1);
}

const TOKEN = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;
const DIACRITICS = /[\u0300-\u036f]/g;
const DIGITS_ONLY = /^[\p{N}.,]+$/u;

/**
 * Splits `text` into feature tokens: lowercased, accents removed, hyphenated words kept whole
 * ("tnf-α" stays one token), apostrophes dropped, tokens of one character and pure numbers
 * removed; with `stopWords` STOP_WORDS removed, with `stem` plurals folded (both off by default).
 * Returns tokens in reading order (for n-grams).
 */
export function tokenize(text: string, options: { stem?: boolean; stopWords?: boolean } = {}): string[] {
  const stem = options.stem ?? false;
  const stop = options.stopWords ?? false;
  const folded = text.normalize("NFKD").replace(DIACRITICS, "").toLowerCase();
  const out: string[] = [];
  for (const match of folded.matchAll(TOKEN)) {
    const raw = match[0].replace(/['’]/g, "");
    if (raw.length < 2 || DIGITS_ONLY.test(raw) || (stop && STOP_WORDS.has(raw))) continue;
    out.push(stem ? sStem(raw) : raw);
  }
  return out;
}
