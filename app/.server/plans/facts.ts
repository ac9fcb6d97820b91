/**
 * What a study reports, read by rules from its numbered sentences (issue 14 plans): each fact keeps
 * the id of the sentence it was read from, so every plan item built on it can cite it. Pure.
 */
import { numberSourceSentences, type SourceSentence } from "../ai/grounding";
import type { PlanItem, PlanSource } from "~/lib/plans";

/** A fact read from one sentence. */
export interface Fact<T> {
  value: T;
  /** The words as the study wrote them. */
  text: string;
  source: string;
}

/** The sentences of a plan's source text: markup (⟦…⟧, [Sx]) removed, numbered S1 … Sn. */
export function planSentences(text: string): SourceSentence[] {
  const clean = text
    .replace(/⟦(?:unverified|framing): ([^⟧]*)⟧/g, "$1")
    .replace(/\[\s*S\d+(?:\s*[,;–-]\s*S?\d+)*\s*\]/g, "")
    .replace(/[ \t]+/g, " ");
  return numberSourceSentences(clean).filter((s) => s.text.trim().length > 3);
}

/** The first match of `pattern` in the sentences, as a fact (value from `read`), or null. */
export function firstFact<T>(
  sentences: readonly SourceSentence[],
  pattern: RegExp,
  read: (m: RegExpExecArray) => T | null,
): Fact<T> | null {
  for (const s of sentences) {
    const re = new RegExp(pattern.source, pattern.flags.replace("g", ""));
    const m = re.exec(s.text);
    if (!m) continue;
    const value = read(m);
    if (value !== null) return { value, text: m[0].trim(), source: s.id };
  }
  return null;
}

/** Every sentence matching `pattern`. */
export function sentencesMatching(sentences: readonly SourceSentence[], pattern: RegExp): SourceSentence[] {
  return sentences.filter((s) => new RegExp(pattern.source, pattern.flags.replace("g", "")).test(s.text));
}

const WORD_NUMBERS: Record<string, number> = {
  one: 1,
  once: 1,
  two: 2,
  twice: 2,
  three: 3,
  thrice: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
};

/** "3", "three", "twice" → 3 / 3 / 2; null otherwise. */
export function readCount(word: string | undefined): number | null {
  if (!word) return null;
  const n = Number(word);
  if (Number.isFinite(n)) return n;
  return WORD_NUMBERS[word.toLowerCase()] ?? null;
}

/** The numbers written in a text, as canonical strings ("70", "0.5"): what a plan item and its cited sentence are compared by. */
export function canonicalNumbers(text: string): string[] {
  return (text.match(/\d+(?:\.\d+)?/g) ?? []).map((n) => String(Number(n)));
}

/**
 * The citation check every plan passes, offline or model-written: an item citing a sentence that
 * does not exist, or stating a number its cited sentence does not contain, is relabelled general
 * guidance (source null), so nothing is presented as the study's that the study does not say.
 * `checked` picks the text whose numbers are compared (default: the item's text).
 */
export function enforceCitation<T extends { source: string | null; general: boolean }>(
  item: T,
  byId: ReadonlyMap<string, SourceSentence>,
  checked: (item: T) => string,
): T {
  if (item.general || item.source === null) return { ...item, source: null, general: true };
  const sentence = byId.get(item.source);
  if (!sentence) return { ...item, source: null, general: true };
  const known = new Set(canonicalNumbers(sentence.text));
  const ok = canonicalNumbers(checked(item)).every((n) => known.has(n));
  return ok ? item : { ...item, source: null, general: true };
}

/** The cited sentences of a plan's items, in id order, as {id, quote}. */
export function citedSources(ids: Iterable<string | null>, byId: ReadonlyMap<string, SourceSentence>): PlanSource[] {
  const unique = [...new Set([...ids].filter((id): id is string => id !== null && byId.has(id)))];
  unique.sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  return unique.map((id) => ({ id, quote: byId.get(id)!.text.trim() }));
}

/** A plan item citing a fact. */
export const cited = (text: string, source: string): PlanItem => ({ text, source, general: false });
/** A plan item of general guidance (the study is silent). */
export const general = (text: string): PlanItem => ({ text, source: null, general: true });
