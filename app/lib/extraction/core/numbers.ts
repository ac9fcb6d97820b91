/**
 * The one number reader of the extraction core (pure, no I/O). Every path that reads a number out
 * of study text — the effect grammar's tokeniser, the arm-level cell reader, the study-facts
 * reader and the quote checks of the model-fill paths — calls these functions, so "1·06", "1,5",
 * "−0.4" and "1 234" mean the same thing everywhere.
 *
 * Forms read:
 * - decimal point "1.5", middle dot "1·06" (Lancet style), leading point ".05";
 * - decimal comma only when unambiguous: "0,85", "1,5" and "12,34" (not followed by exactly three
 *   digits, not inside a comma list such as "1,2,3");
 * - thousands separated by commas ("1,058,466", "1,234") or by a space, thin, narrow or
 *   no-break space ("151 597") — spaces only where the caller asks (`spaceThousands`), since
 *   "12 345" in prose can also be two numbers;
 * - signs: hyphen-minus, U+2212 minus, en dash, figure dash and the small/full-width hyphen-minus
 *   are all a minus when they stand directly before the digits;
 * - percent: a trailing "%" is reported (`percent: true`), the value is left as written;
 * - ranges: "1.2–3.4", "1.2 to 3.4", "−0.5 to −0.1", "2-4" ({@link parseRange}).
 */

/** Characters that are a minus sign (or a range dash) in study text. */
export const MINUS_CHARS = "-\u2212\u2013\u2012\ufe63\uff0d";
const MINUS = new Set(MINUS_CHARS);
/** Spaces used as thousands separators ("151 597", "151\u2009597"). */
const THOUSANDS_SPACE = new Set([" ", "\u00a0", "\u2009", "\u202f"]);

const isDigitAt = (text: string, i: number): boolean => {
  const c = text.charCodeAt(i);
  return c >= 48 && c <= 57;
};

/** A number read at a position: its unsigned value, decimals written and end offset. */
export interface NumberAt {
  /** Offset just after the number's last character (not including a "%"). */
  end: number;
  /** Unsigned value. */
  value: number;
  /** Number of decimals written (0 for an integer). */
  decimals: number;
}

/**
 * Reads an unsigned number starting at `i` (a digit, or "." / "·" before a digit): digits, a
 * decimal mark ('.', '·' or an unambiguous ','), thousands groups. Signs are the caller's
 * concern (see {@link parseNumber}, {@link numbersIn}); the effect grammar decides whether a dash
 * before a number is a minus or a range dash.
 * @param options.spaceThousands also join groups of three digits separated by a (thin) space.
 */
export function readNumberAt(text: string, i: number, options: { spaceThousands?: boolean } = {}): NumberAt {
  let j = i;
  while (isDigitAt(text, j)) j++;
  let intPart = text.slice(i, j);
  // Thousands separated by commas: "1,058,466" (groups of exactly three digits).
  if (
    intPart.length >= 1 &&
    intPart.length <= 3 &&
    text[j] === "," &&
    /^,\d{3}(?!\d)/.test(text.slice(j, j + 5)) &&
    intPart !== "0"
  ) {
    let k = j;
    while (/^,\d{3}(?!\d)/.test(text.slice(k, k + 5))) k += 4;
    const groups = text.slice(j, k);
    // "1,058" alone could be a decimal comma; it is thousands only with a second group or no
    // decimal mark after it.
    if (groups.length > 4 || !/^[.·]\d/.test(text.slice(k, k + 2))) {
      intPart += groups.replace(/,/g, "");
      j = k;
    }
  } else if (
    options.spaceThousands &&
    intPart.length >= 1 &&
    intPart.length <= 3 &&
    THOUSANDS_SPACE.has(text[j] ?? "") &&
    /^\d{3}(?![\d.,·])/.test(text.slice(j + 1, j + 5))
  ) {
    let k = j;
    while (THOUSANDS_SPACE.has(text[k] ?? "") && /^\d{3}(?!\d)/.test(text.slice(k + 1, k + 5))) k += 4;
    intPart += text.slice(j, k).replace(/\D/g, "");
    j = k;
  }
  let decimals = 0;
  let frac = "";
  const mark = text[j];
  if ((mark === "." || mark === "·") && isDigitAt(text, j + 1)) {
    let k = j + 1;
    while (isDigitAt(text, k)) k++;
    frac = text.slice(j + 1, k);
    decimals = frac.length;
    j = k;
  } else if (mark === "," && isDigitAt(text, j + 1) && isDecimalComma(text, i, j)) {
    let k = j + 1;
    while (isDigitAt(text, k)) k++;
    frac = text.slice(j + 1, k);
    decimals = frac.length;
    j = k;
  }
  const value = Number(`${intPart || "0"}${frac ? `.${frac}` : ""}`);
  return { end: j, value, decimals };
}

/**
 * A comma between digits is a decimal comma only when it cannot be a list or thousands
 * separator: "0,85", "1,5" or "12,34" with no space after it, not followed by exactly three
 * digits, and the number is not part of a comma list of integers ("1,2,3").
 */
function isDecimalComma(text: string, start: number, comma: number): boolean {
  const after = /^,(\d+)/.exec(text.slice(comma, comma + 12));
  if (!after) return false;
  if (after[1]!.length === 3 && text.slice(start, comma) !== "0") return false;
  const next = text[comma + 1 + after[1]!.length] ?? "";
  if (next === "," || next === "." || next === "·") return false;
  const prev = text[start - 1] ?? "";
  if (prev === "," || /\d/.test(prev)) return false;
  return true;
}

/** A number found in text, signed, with its offsets (the sign included when there is one). */
export interface NumberToken {
  value: number;
  decimals: number;
  /** A "%" follows the number (spaces allowed). */
  percent: boolean;
  start: number;
  end: number;
}

/** Whether the character before `i` makes a dash at `i` a minus sign rather than a range dash or hyphen. */
function dashIsMinus(text: string, dash: number): boolean {
  const before = text[dash - 1];
  if (before === undefined) return true;
  // "1.2-3.4", "COVID-19", "IL-6": a dash glued to a digit or letter before it is not a sign.
  return !/[\p{L}\p{N}%)\]]/u.test(before);
}

/**
 * Every number in `text`, in order, signed: a dash right before the digits is a minus when it
 * does not join two numbers or a word and a number ("−0.4", "(-1.2 to -0.3)" → −1.2 and −0.3;
 * "1.2–3.4" → 1.2 and 3.4; "IL-6" → 6). Thousands with a space are joined only with
 * `spaceThousands`.
 */
export function numbersIn(text: string, options: { spaceThousands?: boolean } = {}): NumberToken[] {
  const out: NumberToken[] = [];
  let i = 0;
  while (i < text.length) {
    const lead = (text[i] === "." || text[i] === "·") && isDigitAt(text, i + 1) && !isDigitAt(text, i - 1);
    if (!isDigitAt(text, i) && !lead) {
      i++;
      continue;
    }
    const read = readNumberAt(text, i, options);
    let start = i;
    let sign = 1;
    if (i > 0 && MINUS.has(text[i - 1]!) && dashIsMinus(text, i - 1)) {
      sign = -1;
      start = i - 1;
    }
    const percent = /^\s?%/.test(text.slice(read.end, read.end + 2));
    out.push({ value: sign * read.value, decimals: read.decimals, percent, start, end: read.end });
    i = Math.max(read.end, i + 1);
  }
  return out;
}

/**
 * Parses one written number (the whole string, trimmed): sign (any minus form), decimal point,
 * middle dot, unambiguous decimal comma, thousands by comma or space, an optional trailing "%".
 * Returns NaN when the string is not exactly one number ("1.2–3.4", "abc", "").
 */
export function parseNumber(raw: string): number {
  const s = raw.trim().replace(/\s*%$/, "");
  if (!s) return NaN;
  let i = 0;
  let sign = 1;
  if (MINUS.has(s[0]!)) {
    sign = -1;
    i = 1;
  } else if (s[0] === "+") i = 1;
  if (!isDigitAt(s, i) && !((s[i] === "." || s[i] === "·") && isDigitAt(s, i + 1))) return NaN;
  const read = readNumberAt(s, i, { spaceThousands: true });
  // A lone "1,234" is thousands; "1,5" a decimal comma (readNumberAt decides). Anything left over is not one number.
  if (read.end !== s.length) return NaN;
  return sign * read.value;
}

/** Decimals written in a number ("1·060" → 3, "12" → 0, "0,5" → 1, "1,234" → 0); 0 when it is not one number. */
export function decimalsOf(raw: string): number {
  const s = raw
    .trim()
    .replace(/\s*%$/, "")
    .replace(/^[-+\u2212\u2013\u2012\ufe63\uff0d]/, "");
  const read = readNumberAt(s, 0, { spaceThousands: true });
  return read.end === s.length ? read.decimals : 0;
}

/** A range "a to b" / "a–b" / "a - b" / "a, b" as written in an interval or an IQR. */
export interface NumberRange {
  low: number;
  high: number;
}

/**
 * Parses a range written as two numbers joined by "to", a dash (any dash form), a comma or a
 * semicolon: "1.2–3.4", "0·40 to 0·70", "−0.5 to −0.1", "-1.2, -0.3", "2-4". Null when the
 * string is not exactly such a range.
 */
export function parseRange(raw: string): NumberRange | null {
  const s = raw
    .trim()
    .replace(/^[([]\s*/, "")
    .replace(/\s*[)\]]$/, "");
  const nums = numbersIn(s);
  if (nums.length !== 2) return null;
  const [a, b] = nums as [NumberToken, NumberToken];
  if (a.start !== 0 || b.end !== s.length) return null;
  const between = s.slice(a.end, b.start);
  if (!/^\s*(?:to|[,;]|[-\u2212\u2013\u2014\u2012])\s*$/i.test(between)) return null;
  return { low: a.value, high: b.value };
}
