/**
 * The one stemmer and token normaliser of the extraction core (pure, no I/O): arm names, outcome
 * phrases, row labels and summary sentences are compared through these functions.
 *
 * Stemming is the Porter algorithm (M. F. Porter, "An algorithm for suffix stripping", Program
 * 1980) from the `stemmer` package, after two normalisations it does not do: British spellings
 * are folded to American ones ("randomised" → "randomized", "haemoglobin" → "hemoglobin",
 * "oedema" → "edema", "tumour" → "tumor") and Latin plurals of organisms and terms meet their
 * singular ("lactobacilli" → "lactobacillus").
 */
import { stemmer } from "stemmer";

/** Folds British spellings to American ones (lower-case input). */
export function americanSpelling(word: string): string {
  return word
    .replace(/haem/g, "hem")
    .replace(/oedema/g, "edema")
    .replace(/anaem/g, "anem")
    .replace(/oestr/g, "estr")
    .replace(/tumour/g, "tumor")
    .replace(/behaviour/g, "behavior")
    .replace(/(\w{3})is(ation|ations|e|ed|es|ing)$/, "$1iz$2");
}

/**
 * Stem of one word: lower case, American spelling, Latin plural "-i" → "-us" (words of 7+
 * letters ending consonant + "i"), then Porter. Words with digits ("hba1c", "il-6") are only
 * lower-cased.
 */
export function stem(word: string): string {
  const cached = stemCache.get(word);
  if (cached !== undefined) return cached;
  let w = word.toLowerCase();
  if (!/\d/.test(w) && w.length > 2) {
    w = americanSpelling(w);
    if (w.length > 6 && /[^aeiou]i$/.test(w)) w = `${w.slice(0, -1)}us`;
    w = stemmer(w);
  }
  if (stemCache.size > 50000) stemCache.clear();
  stemCache.set(word, w);
  return w;
}

/** Stems by word as written (Porter is ~5 µs a word; reports repeat their words). */
const stemCache = new Map<string, string>();

/** Words of a phrase (letters, digits, inner hyphens and apostrophes; numbers as written with a decimal point). */
export function words(text: string): string[] {
  return text.match(/[A-Za-z\u00c0-\u024f][A-Za-z0-9\u00c0-\u024f'-]*|\d+(?:\.\d+)?/g) ?? [];
}

/**
 * Normalised tokens of a phrase: words split at inner hyphens, stemmed, without those in `stop`
 * (checked on the lower-case word and on its stem). The one token normaliser for matching
 * phrases; callers pass the stop list of their task.
 */
export function normalisedTokens(text: string, stop: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    for (const part of w.split("-")) {
      if (!part) continue;
      const lower = part.toLowerCase();
      const t = stem(part);
      if (t && !stop.has(lower) && !stop.has(t)) out.push(t);
    }
  }
  return out;
}
