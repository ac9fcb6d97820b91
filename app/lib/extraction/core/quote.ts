/**
 * The one quote type and the one verbatim quote check of the extraction core (pure, no I/O).
 * Every model-fill path (meta-analysis effect rows, arm-level cells) keeps a proposed number only
 * when {@link checkQuote} finds its quote in the source and the number in the quote.
 */
import { numbersIn } from "./numbers.ts";

/**
 * A verbatim piece of a source: `source.slice(start, end) === text` (UTF-16 offsets), with the
 * document section it sits in when known ("results", "abstract", "table 2").
 */
export interface SourceQuote {
  text: string;
  start: number;
  end: number;
  section?: string;
}

/** Collapses runs of whitespace (including no-break and thin spaces) to one space. */
function squash(text: string): { flat: string; map: number[] } {
  const map: number[] = [];
  let flat = "";
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      if (!space && flat.length > 0) {
        flat += " ";
        map.push(i);
      }
      space = true;
      continue;
    }
    space = false;
    flat += ch;
    map.push(i);
  }
  if (flat.endsWith(" ")) {
    flat = flat.slice(0, -1);
    map.pop();
  }
  return { flat, map };
}

/**
 * Finds `quote` verbatim in `source`: first exactly, then with whitespace differences ignored (a
 * model copies a table line or a wrapped sentence with single spaces). Returns the quote with the
 * offsets of its first occurrence, whose `text` is the source's own characters; null when it is
 * not in the source or shorter than `minLength` characters (default 3).
 */
export function locateQuote(
  source: string,
  quote: string,
  options: { minLength?: number; section?: string } = {},
): SourceQuote | null {
  const wanted = quote.trim();
  if (wanted.length < (options.minLength ?? 3)) return null;
  const section = options.section ? { section: options.section } : {};
  const exact = source.indexOf(wanted);
  if (exact >= 0) return { text: wanted, start: exact, end: exact + wanted.length, ...section };
  const { flat, map } = squash(source);
  const needle = squash(wanted).flat;
  const at = flat.indexOf(needle);
  if (at < 0 || needle.length === 0) return null;
  const start = map[at]!;
  const end = map[at + needle.length - 1]! + 1;
  return { text: source.slice(start, end), start, end, ...section };
}

/**
 * Whether `value` is written in `text` (any number form of the core reader; 1e-9 relative
 * tolerance; a value matches a number written with or without its minus sign, since a model may
 * drop the sign of a reduction the quote states as a fall).
 */
export function numberWritten(text: string, value: number, options: { ignorePercent?: boolean } = {}): boolean {
  const close = (a: number) => Math.abs(a - value) <= 1e-9 * Math.max(1, Math.abs(value));
  // Table lines separate columns by single spaces, so numbers are read both with and without space thousands.
  const read = [...numbersIn(text), ...numbersIn(text, { spaceThousands: true })];
  return read.some((n) => !(options.ignorePercent && n.percent) && (close(n.value) || close(Math.abs(n.value))));
}

/** The result of the one verbatim quote check. */
export type QuoteCheck = { ok: true; quote: SourceQuote } | { ok: false; reason: string };

/**
 * The verbatim quote check every model-fill path uses: the quote must be in `source`
 * ({@link locateQuote}) and every number in `values` must be written in it ({@link numberWritten}).
 * Reasons are worded for the reviewer ("its quote is not in the source", "its numbers 12, 30 are
 * not in the quote").
 */
export function checkQuote(
  source: string,
  quote: string,
  values: readonly number[] = [],
  options: { section?: string } = {},
): QuoteCheck {
  const found = locateQuote(source, quote, options);
  if (!found) return { ok: false, reason: "its quote is not in the source" };
  const missing = values.filter((v) => !numberWritten(found.text, v));
  if (missing.length) return { ok: false, reason: `its numbers ${missing.join(", ")} are not in the quote` };
  return { ok: true, quote: found };
}
