/**
 * Which terms may explain a screening ranking to the reviewer (the chips "Ranked here for" and
 * the abstract's highlights). Only the explanation uses this: the ranking model's features and
 * weights are untouched (rank.ts, corpus.ts).
 *
 * A term carries evidence when it is a content word of the topic: not a function word
 * (tokenize.ts STOP_WORDS), not a number, unit, statistic, quantifier or reporting/funding word
 * that appears in any abstract whatever its topic ({@link NON_EVIDENCE_TERMS}), and — in a
 * record's explanation — contributing at least {@link MIN_SHARE_OF_TOP} of the record's strongest
 * term, so weak hangers-on (a sponsor's name seen once in an included record) are not shown.
 */
import { STOP_WORDS } from "./tokenize.ts";

/** Terms shown per record ("a handful"). */
export const MAX_EXPLANATION_TERMS = 5;
/** A term's contribution must be at least this share of the record's largest one. */
export const MIN_SHARE_OF_TOP = 0.25;

/**
 * Words found in abstracts of every topic (units, statistics, quantifiers, reporting and funding
 * words), in the tokenizer's lower-case, S-stemmed form (studies → study, patients → patient).
 */
export const NON_EVIDENCE_TERMS: ReadonlySet<string> = new Set(
  // units and measures
  (
    "mg kg g ml l dl mmol mol µg ug mcg iu h hr hrs min mins sec cm mm m km kcal bpm mmhg kda " +
    "day daily week weekly month monthly year yearly hour time per percent " +
    // statistics
    "ci confidence interval p value sd se sem iqr range mean median ratio odd or hr rr md smd vs versus " +
    "significant significantly statistically difference compared comparison respectively total number " +
    "analysis analyse analyze analysed analyzed result conclusion conclude method background objective aim " +
    // quantifiers and generic words
    "every each one two three four five six seven eight nine ten first second third several many much " +
    "also using used use based including included include associated effect effects level group " +
    "study data new well high low higher lower increase increased decrease decreased " +
    "patient participant subject people person individual case year-old " +
    // funding and publishing
    "funded funding fund sponsor sponsored sponsorship grant supported support inc ltd llc gmbh co corp " +
    "company pharmaceutical pharma author published publication journal copyright right reserved elsevier"
  ).split(" "),
);

/** True when `term` (a word, or a bigram "w1 w2") may explain a ranking: every word a content word. */
export function isEvidenceTerm(term: string): boolean {
  const words = term.split(" ");
  return words.every(
    (w) => w.length > 1 && /\p{L}/u.test(w) && !/^\p{N}/u.test(w) && !STOP_WORDS.has(w) && !NON_EVIDENCE_TERMS.has(w),
  );
}

/**
 * The explanation of one record: from its terms' contributions to its score (positive values
 * only, any order), the strongest evidence terms, best first, each at least
 * {@link MIN_SHARE_OF_TOP} of the strongest evidence term, at most {@link MAX_EXPLANATION_TERMS}.
 */
export function explanationTerms(contributions: readonly (readonly [term: string, contribution: number])[]): string[] {
  const evidence = contributions.filter(([t, c]) => c > 0 && isEvidenceTerm(t)).sort((a, b) => b[1] - a[1]);
  const top = evidence[0]?.[1] ?? 0;
  return evidence
    .filter(([, c]) => c >= MIN_SHARE_OF_TOP * top)
    .slice(0, MAX_EXPLANATION_TERMS)
    .map(([t]) => t);
}
