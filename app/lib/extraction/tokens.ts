/**
 * Tokeniser for the reporting grammar of effect estimates (pure, no I/O).
 *
 * Every token keeps its UTF-16 offsets into the source text, so a value can always be quoted as
 * `source.slice(start, end)`. What it recognises:
 * - numbers: digits with a decimal point, a middle dot ("1·06", Lancet style) or an unambiguous
 *   decimal comma ("0,85"; "1,5" when no digit group of three follows); thousands separated by
 *   commas ("1,058,466") are one number. Signs are separate `dash` tokens; the grammar decides
 *   whether a dash is a minus (see {@link signedValue});
 * - dashes: hyphen-minus, U+2212 minus, en/em dashes, figure dash, non-breaking hyphen;
 * - words (letters, with apostrophes and inner hyphens: "Hedges'", "risk-standardised"); a word
 *   broken across a line end with a hyphen ("inter-\nval") is one word whose `norm` is joined;
 * - punctuation and brackets, `%`, and everything else as single-character tokens.
 * Whitespace (including thin, narrow and no-break spaces) separates tokens; `newlineBefore`
 * records a line end in it.
 * Numbers are read by the extraction core's one number reader (core/numbers.ts).
 */
import { readNumberAt } from "./core/numbers.ts";

export type TokenKind = "num" | "word" | "dash" | "punct" | "open" | "close" | "percent" | "other";

export interface Token {
  kind: TokenKind;
  /** The source text of the token. */
  text: string;
  /** Lower-case form; for words broken across a line end, the joined word. */
  norm: string;
  start: number;
  end: number;
  /** Numeric value of a `num` token (unsigned). */
  value?: number;
  /** Number of decimals written (for `num`). */
  decimals?: number;
  /** Whitespace precedes the token. */
  spaceBefore: boolean;
  newlineBefore: boolean;
}

const SPACE = /[\s\u00a0\u2000-\u200b\u202f\u205f\u3000]/;

/** Fast character classes (ASCII by code, the rest by Unicode property). */
function isDigitAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 48 && c <= 57;
}
function isLetterChar(ch: string | undefined): boolean {
  if (ch === undefined) return false;
  const c = ch.charCodeAt(0);
  if (c < 128) return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return LETTER.test(ch);
}
function isSpaceChar(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 128) return c === 32 || c === 10 || c === 13 || c === 9 || c === 12 || c === 11;
  return SPACE.test(ch);
}
const DASHES = new Set(["-", "\u2212", "\u2013", "\u2014", "\u2012", "\u2011", "\u2010", "\ufe63", "\uff0d"]);
const OPEN = new Set(["(", "[", "{"]);
const CLOSE = new Set([")", "]", "}"]);
const LETTER = /[\p{L}\p{M}]/u;

/** True for characters that can be a minus sign or a range dash. */
export function isDash(ch: string): boolean {
  return DASHES.has(ch);
}

/**
 * Splits `text` into tokens (see the module comment). Linear in the text length.
 */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let space = true;
  let newline = false;
  const n = text.length;
  while (i < n) {
    const ch = text[i]!;
    // LaTeX spacing commands left in abstracts ("1.48,\\ 2.1", "5\\,000") are spaces too.
    if (ch === "\\" && /[ ,;!]/.test(text[i + 1] ?? "")) {
      space = true;
      i += 2;
      continue;
    }
    if (isSpaceChar(ch) || (ch === "?" && isThinSpaceMark(text, i))) {
      space = true;
      if (ch === "\n" || ch === "\r") newline = true;
      i++;
      continue;
    }
    const start = i;
    const push = (kind: TokenKind, end: number, value?: number, decimals?: number, norm?: string) => {
      const t = text.slice(start, end);
      const token: Token = {
        kind,
        text: t,
        norm: norm ?? (kind === "word" ? t.toLowerCase() : t),
        start,
        end,
        spaceBefore: space,
        newlineBefore: newline,
      };
      if (value !== undefined) {
        token.value = value;
        token.decimals = decimals;
      }
      tokens.push(token);
      space = false;
      newline = false;
      i = end;
    };
    if (isDigitAt(text, i) || ((ch === "." || ch === "·") && isDigitAt(text, i + 1) && !isDigitAt(text, i - 1))) {
      const { end, value, decimals } = readNumberAt(text, i);
      push("num", end, value, decimals);
      continue;
    }
    if (isLetterChar(ch)) {
      let j = i + 1;
      let norm = "";
      let segStart = i;
      for (;;) {
        while (
          j < n &&
          (isLetterChar(text[j]) ||
            isDigitAt(text, j) ||
            ((text[j] === "'" || text[j] === "’") && isLetterChar(text[j - 1])))
        )
          j++;
        // Inner hyphen ("risk-standardised", "COVID-19") or a hyphen at a line end ("inter-\nval").
        if (text[j] === "-" || text[j] === "\u2010" || text[j] === "\u2011") {
          const brk = /^[-\u2010\u2011][ \t]*\r?\n[ \t]*(?=[\p{Ll}])/u.exec(text.slice(j, j + 6));
          if (brk) {
            norm += text.slice(segStart, j);
            j += brk[0].length;
            segStart = j;
            continue;
          }
          if (
            isLetterChar(text[j + 1]) ||
            (isDigitAt(text, j + 1) &&
              /[A-Z]{2}$/.test(text.slice(segStart, j)) === false &&
              /\p{L}$/u.test(text.slice(segStart, j)) &&
              isCompoundNumber(text, j))
          ) {
            j++;
            continue;
          }
        }
        break;
      }
      norm += text.slice(segStart, j);
      push("word", j, undefined, undefined, norm.toLowerCase());
      continue;
    }
    if (isDash(ch)) {
      push("dash", i + 1);
      continue;
    }
    if (OPEN.has(ch)) {
      push("open", i + 1);
      continue;
    }
    if (CLOSE.has(ch)) {
      push("close", i + 1);
      continue;
    }
    if (ch === "%") {
      push("percent", i + 1);
      continue;
    }
    if (",;:=<>≤≥.±/".includes(ch)) {
      push("punct", i + 1);
      continue;
    }
    push("other", i + 1);
  }
  return tokens;
}

/**
 * "COVID-19", "IL-6", "type-2": a letter word joined by a hyphen to a short integer that is not
 * the start of a decimal value ("WMD-5.27" stays a word and a signed value).
 */
function isCompoundNumber(text: string, hyphen: number): boolean {
  const m = /^-(\d+)(?![\d.·,]\d)/.exec(text.slice(hyphen, hyphen + 8));
  return m !== null && m[1]!.length <= 2;
}

/**
 * A "?" standing for a thin or narrow no-break space that an encoding step lost, between two
 * digits ("151?597") or a digit and a letter ("365?days", "p?<?0.05").
 */
function isThinSpaceMark(text: string, i: number): boolean {
  const before = text[i - 1] ?? "";
  const after = text[i + 1] ?? "";
  return (
    (/[0-9<>=±]/.test(before) && /[0-9A-Za-z<>=±]/.test(after)) ||
    (/[A-Za-z]/.test(before) && /[<>=±]/.test(after)) ||
    (before === ":" && after !== " ")
  );
}
