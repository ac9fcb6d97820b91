/**
 * Grounding of AI texts in their source (issue 4 "Grounding"): the source is split into numbered
 * sentences ([S1], [S2] …) that a model cites; the citations are turned into exact quotes with
 * character offsets; and numbers the source does not contain are marked so they are never shown
 * as facts.
 *
 * Markup left in a grounded text (the UI component app/components/cited-text.tsx renders it):
 * - `⟦unverified: 12.5%⟧` — a number not found in the source.
 * - `⟦framing: …⟧` — a sentence that is the model's own framing, not a claim from the source.
 */
import { splitSentences } from "~/lib/extraction/core";
import type { Citation } from "../../lib/grounding";

/** One numbered sentence of a source: `source.slice(start, end) === text`. */
export interface SourceSentence {
  /** "S1", "S2", … in source order. */
  id: string;
  text: string;
  start: number;
  end: number;
}

export type { Citation } from "../../lib/grounding";

/** Opening of the unverified-number markup: `⟦unverified: 12.5⟧`. */
export const UNVERIFIED_OPEN = "⟦unverified: ";
/** Opening of the model's-own-framing markup: `⟦framing: …⟧`. */
export const FRAMING_OPEN = "⟦framing: ";
/** Closes either markup. */
export const MARKUP_CLOSE = "⟧";

/** Splits `text` into sentences (see `splitSentences`) numbered S1, S2, … with exact offsets. */
export function numberSourceSentences(text: string): SourceSentence[] {
  return splitSentences(text).map((s, i) => ({ id: `S${i + 1}`, text: s.text, start: s.start, end: s.end }));
}

/**
 * The numbered source for a prompt, one sentence per line: "[S1] …\n[S2] …". Whitespace runs
 * inside a sentence (line breaks of the source) become single spaces so every sentence stays on
 * its line; {@link citeExtractive} tolerates that difference.
 */
export function formatNumberedSource(sentences: readonly SourceSentence[]): string {
  return sentences.map((s) => `[${s.id}] ${s.text.replace(/\s+/g, " ")}`).join("\n");
}

/**
 * The inverse of {@link formatNumberedSource}: the id and text of each "[Sn] …" line, or null
 * when `text` is not a numbered source (some non-empty line does not start with "[Sn] ").
 */
export function parseNumberedSource(text: string): { id: string; text: string }[] | null {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  if (lines.length === 0) return null;
  const out: { id: string; text: string }[] = [];
  for (const line of lines) {
    const m = /^\s*\[(S\d+)\]\s?(.*)$/.exec(line);
    if (!m) return null;
    out.push({ id: m[1]!, text: m[2]!.trim() });
  }
  return out;
}

/** One id or a range: "S3", "S3-S5", "S3–5", "S3 to S5". */
const ID_OR_RANGE = String.raw`[Ss]\d+(?:\s*(?:[-–—]|to)\s*[Ss]?\d+)?`;
/** A citation marker: "[S3]", "[S3, S5]", "[S3; S5]", "[S3-S5]", "[S2, S4–S6 and S9]". */
const MARKER = new RegExp(
  String.raw`\[\s*${ID_OR_RANGE}(?:\s*(?:[,;&]\s*(?:and\s+)?|and\s+)${ID_OR_RANGE})*\s*\]`,
  "g",
);
/** Longest range expanded from a marker such as "[S1-S40]"; longer ranges keep only their ends. */
const MAX_RANGE = 30;

/** The sentence numbers named by one marker, in the order written (ranges expanded). */
function markerNumbers(marker: string): number[] {
  const out: number[] = [];
  for (const m of marker.matchAll(/[Ss](\d+)(?:\s*(?:[-–—]|to)\s*[Ss]?(\d+))?/g)) {
    const from = Number(m[1]);
    if (m[2] === undefined) {
      out.push(from);
      continue;
    }
    const to = Number(m[2]);
    const [lo, hi] = from <= to ? [from, to] : [to, from];
    if (hi - lo > MAX_RANGE) out.push(lo, hi);
    else for (let n = lo; n <= hi; n++) out.push(n);
  }
  return out;
}

/**
 * Removes the [Sx] citation markers from a model's text and turns them into citations.
 *
 * Markers: "[S3]", "[S3, S5]", "[S3; S5]", "[S3-S5]" / "[S3–S5]" / "[S3 to S5]" (ranges expanded),
 * case-insensitive. Ids that are not in `sentences` are dropped (the marker text is removed all
 * the same). The space before a marker goes with it ("rose [S2]." → "rose."), and the result is
 * trimmed.
 *
 * @returns the cleaned text and one citation per cited sentence, in order of first citation, each
 *   with its exact quote and offsets and `anchors`: the offsets in the cleaned text where its
 *   markers stood.
 */
export function extractCitations(
  text: string,
  sentences: readonly SourceSentence[],
): { text: string; citations: Citation[] } {
  const byId = new Map(sentences.map((s) => [s.id.toUpperCase(), s]));
  const found = new Map<string, Citation & { anchors: number[] }>();
  let out = "";
  let last = 0;
  for (const m of text.matchAll(MARKER)) {
    out += text.slice(last, m.index);
    out = out.replace(/[ \t]+$/, "");
    last = m.index + m[0].length;
    const anchor = out.length;
    for (const n of markerNumbers(m[0])) {
      const sentence = byId.get(`S${n}`);
      if (!sentence) continue;
      let citation = found.get(sentence.id);
      if (!citation) {
        citation = { id: sentence.id, quote: sentence.text, start: sentence.start, end: sentence.end, anchors: [] };
        found.set(sentence.id, citation);
      }
      if (!citation.anchors.includes(anchor)) citation.anchors.push(anchor);
    }
    // "[S1] The next …" at the start of a line: drop the space that followed the marker.
    if ((out === "" || out.endsWith("\n")) && /^[ \t]/.test(text.slice(last))) {
      while (last < text.length && (text[last] === " " || text[last] === "\t")) last++;
    } else if (/^[\p{L}\p{N}(]/u.test(text.slice(last)) && out !== "" && !/\s$/.test(out)) {
      out += " "; // "a[S1]b" → "a b"
    }
  }
  out += text.slice(last);
  const lead = out.length - out.trimStart().length;
  const cleaned = out.trim();
  const citations = [...found.values()].map((c) => ({
    ...c,
    anchors: c.anchors.map((a) => Math.min(Math.max(0, a - lead), cleaned.length)),
  }));
  return { text: cleaned, citations };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Citations for an extractive text, whose sentences are copied verbatim from the source: every
 * source sentence found in `summaryText` (whitespace runs may differ; the match must start and end
 * at a sentence boundary: text edge, whitespace or a ⟦…⟧ markup edge) becomes a citation whose
 * anchor is the end of the copy. Overlapping matches keep the longer sentence. Text that is not a
 * copy (a lead-in, a paraphrase) is simply not cited.
 *
 * @returns citations in the order the copies appear in `summaryText`.
 */
export function citeExtractive(summaryText: string, sentences: readonly SourceSentence[]): Citation[] {
  const matches: { sentence: SourceSentence; from: number; to: number }[] = [];
  for (const sentence of sentences) {
    const pattern = sentence.text
      .trim()
      .split(/\s+/)
      .map(escapeRegExp)
      .join(String.raw`\s+`);
    if (!pattern) continue;
    const re = new RegExp(String.raw`(?<=^|[\s⟧])${pattern}(?=$|[\s⟦⟧])`, "g");
    for (const m of summaryText.matchAll(re)) {
      matches.push({ sentence, from: m.index, to: m.index + m[0].length });
    }
  }
  matches.sort((a, b) => b.to - b.from - (a.to - a.from) || a.from - b.from);
  const kept: typeof matches = [];
  for (const m of matches) {
    if (kept.every((k) => m.to <= k.from || m.from >= k.to)) kept.push(m);
  }
  kept.sort((a, b) => a.from - b.from);
  const byId = new Map<string, Citation & { anchors: number[] }>();
  for (const { sentence, to } of kept) {
    const existing = byId.get(sentence.id);
    if (existing) existing.anchors.push(to);
    else {
      byId.set(sentence.id, {
        id: sentence.id,
        quote: sentence.text,
        start: sentence.start,
        end: sentence.end,
        anchors: [to],
      });
    }
  }
  return [...byId.values()];
}

/**
 * A number as written in running text: integers, decimals (".5" too), thousands grouped with
 * commas or (thin/no-break) spaces, an optional trailing percent sign. Not a number: digits glued
 * to letters or to a letter-hyphen ("COVID-19", "IL-6", "T2DM", "S3"), or following a digit/dot.
 * A minus sign is never part of the token, so signs are not compared.
 */
const NUMBER_TOKEN =
  /(?<![\p{L}\p{N}_.])(?<!\p{L}[-‐‑–])(?:\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[ \u00a0]?%)?/gu;
/**
 * Every digit run in a source (lenient: also inside names such as "COVID-19"). A digit run is read
 * as a thousands-grouped number ("1,000", "120 500") only when every group after a separator has
 * exactly three digits and the first group is not glued to a letter, digit or dot: in "vitamin D3
 * 2000 IU" the numbers are 3 and 2000, not "3 200" and 0.
 */
const SOURCE_NUMBER =
  /(?<![\p{L}\p{N}_.])\d{1,3}(?:(?:,|[ \u00a0\u2009\u202f])\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+/gu;

/** The value of a number token as a canonical string: no grouping, no %, "0.50" → "0.5", ".5" → "0.5". */
function canonicalNumber(token: string): string | null {
  const bare = token.replace(/[ \u00a0]?%$/, "").replace(/[, \u00a0\u2009\u202f]/g, "");
  const value = Number(bare.startsWith(".") ? `0${bare}` : bare);
  return Number.isFinite(value) ? String(value) : null;
}

/** Canonical values of every number in `source`, with grouped numbers also counted per group. */
function sourceNumbers(source: string): Set<string> {
  const values = new Set<string>();
  for (const m of source.matchAll(SOURCE_NUMBER)) {
    const whole = canonicalNumber(m[0]);
    if (whole !== null) values.add(whole);
    // "120 500" may be two numbers: register the parts as well.
    for (const part of m[0].split(/[ \u00a0\u2009\u202f]/)) {
      const v = canonicalNumber(part);
      if (v !== null) values.add(v);
    }
  }
  return values;
}

/** Ranges of `text` that are not prose: existing ⟦…⟧ markup and [Sx] citation markers. */
function skippedRanges(text: string): [number, number][] {
  const ranges: [number, number][] = [];
  for (const m of text.matchAll(/⟦[^⟧]*⟧/g)) ranges.push([m.index, m.index + m[0].length]);
  for (const m of text.matchAll(MARKER)) ranges.push([m.index, m.index + m[0].length]);
  return ranges;
}

/**
 * Finds the numbers of a generated text that do not occur in the source and marks them
 * (issue 4: "Numbers that do not appear in the source are not shown as facts").
 *
 * Numbers are compared by value after normalisation: "1,000", "1 000" and "1000" are equal, as
 * are "0.5", ".5" and "0.50"; a percent sign and a minus sign are not compared ("12.5%" is
 * supported by "12.5"). Each bound of a range or confidence interval ("0.60–0.93", "0.52 to 1.05")
 * is checked on its own. A space-grouped token ("120 500") also counts as supported when each of
 * its groups is in the source. Digits inside names ("COVID-19", "IL-6"), citation markers ("[S3]")
 * and existing ⟦…⟧ markup are ignored.
 *
 * @returns `text` with each unsupported number wrapped as "⟦unverified: 12.5%⟧", and the distinct
 *   unsupported tokens as written, in order of appearance.
 */
export function flagUnsupportedNumbers(text: string, sourceText: string): { text: string; unsupported: string[] } {
  const known = sourceNumbers(sourceText);
  const skip = skippedRanges(text);
  const unsupported: string[] = [];
  let out = "";
  let last = 0;
  for (const m of text.matchAll(NUMBER_TOKEN)) {
    const from = m.index;
    const to = from + m[0].length;
    if (skip.some(([a, b]) => from < b && to > a)) continue;
    const value = canonicalNumber(m[0]);
    if (value === null || known.has(value)) continue;
    const groups = m[0].replace(/[ \u00a0]?%$/, "").split(/[ \u00a0\u2009\u202f]/);
    if (groups.length > 1 && groups.every((g) => known.has(canonicalNumber(g) ?? ""))) continue;
    out += text.slice(last, from) + UNVERIFIED_OPEN + m[0] + MARKUP_CLOSE;
    last = to;
    if (!unsupported.includes(m[0])) unsupported.push(m[0]);
  }
  out += text.slice(last);
  return { text: out, unsupported };
}

/** A generated text after grounding. */
export interface GroundedText {
  /** The text without [Sx] markers, unsupported numbers wrapped in ⟦unverified: …⟧. */
  text: string;
  citations: Citation[];
  /** The unsupported number tokens (see {@link flagUnsupportedNumbers}). */
  unsupported: string[];
}

/**
 * Grounds a model's raw text: flags unsupported numbers against `numberSource` (default: the
 * sentences' own text), removes the [Sx] markers into citations ({@link extractCitations}), and,
 * when the text cites nothing, looks for verbatim copies instead ({@link citeExtractive}; the path
 * an extractive model's output takes). Anchors refer to the returned text.
 */
export function groundText(
  raw: string,
  sentences: readonly SourceSentence[],
  numberSource: string = sentences.map((s) => s.text).join(" "),
): GroundedText {
  const flagged = flagUnsupportedNumbers(raw, numberSource);
  const extracted = extractCitations(flagged.text, sentences);
  const citations = extracted.citations.length > 0 ? extracted.citations : citeExtractive(extracted.text, sentences);
  return { text: extracted.text, citations, unsupported: flagged.unsupported };
}
