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

const DIACRITICS = /[\u0300-\u036f]/g;
const LETTER = /^\p{L}$/u;
const NUMBER = /^\p{N}$/u;

/** Class of a UTF-16 code unit, filled on first use: 0 unknown, 1 other, 2 letter, 3 number. */
const unitClass = new Uint8Array(65536);
const OTHER = 1;
const LETTER_CLASS = 2;
const NUMBER_CLASS = 3;

function classOf(codePoint: number): number {
  const char = String.fromCodePoint(codePoint);
  return LETTER.test(char) ? LETTER_CLASS : NUMBER.test(char) ? NUMBER_CLASS : OTHER;
}

/** Class of the code point at `i` of `text` (a surrogate pair is one code point) and its width. */
function codePointAt(text: string, i: number, out: { cls: number; width: number }): void {
  const unit = text.charCodeAt(i);
  if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
    const low = text.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdfff) {
      out.cls = classOf((unit - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000);
      out.width = 2;
      return;
    }
  }
  let cls = unitClass[unit];
  if (cls === 0) {
    cls = unit >= 0xd800 && unit <= 0xdfff ? OTHER : classOf(unit);
    unitClass[unit] = cls;
  }
  out.cls = cls;
  out.width = 1;
}

const APOSTROPHE = 0x27;
const RIGHT_QUOTE = 0x2019;
const HYPHEN = 0x2d;

/**
 * Splits `text` into feature tokens: lowercased, accents removed, hyphenated words kept whole
 * ("tnf-α" stays one token), apostrophes dropped, tokens of one character and pure numbers
 * removed; with `stopWords` STOP_WORDS removed, with `stem` plurals folded (both off by default).
 * A token is a maximal match of /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*\/u, found by one scan over
 * the code points (a regular-expression iterator costs about twice as much per token).
 * Returns tokens in reading order (for n-grams).
 */
export function tokenize(text: string, options: { stem?: boolean; stopWords?: boolean } = {}): string[] {
  const stem = options.stem ?? false;
  const stop = options.stopWords ?? false;
  const folded = text.normalize("NFKD").replace(DIACRITICS, "").toLowerCase();
  const out: string[] = [];
  const at = { cls: 0, width: 0 };
  const n = folded.length;
  let i = 0;
  while (i < n) {
    codePointAt(folded, i, at);
    if (at.cls === OTHER) {
      i += at.width;
      continue;
    }
    const start = i;
    let digitsOnly = true;
    let quotes = false;
    for (;;) {
      // One run of letters and numbers…
      while (i < n) {
        codePointAt(folded, i, at);
        if (at.cls === OTHER) break;
        if (at.cls === LETTER_CLASS) digitsOnly = false;
        i += at.width;
      }
      // …continued by an apostrophe or hyphen only when a letter or number follows it.
      if (i + 1 >= n) break;
      const sep = folded.charCodeAt(i);
      if (sep !== APOSTROPHE && sep !== RIGHT_QUOTE && sep !== HYPHEN) break;
      codePointAt(folded, i + 1, at);
      if (at.cls === OTHER) break;
      if (sep === HYPHEN) digitsOnly = false;
      else quotes = true;
      i++;
    }
    const slice = folded.slice(start, i);
    const raw = quotes ? slice.replace(/['’]/g, "") : slice;
    if (raw.length < 2 || digitsOnly || (stop && STOP_WORDS.has(raw))) continue;
    out.push(stem ? sStem(raw) : raw);
  }
  return out;
}
