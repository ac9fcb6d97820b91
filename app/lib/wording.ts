/**
 * Number and article agreement for generated English text (the meta-analysis narrative, the
 * report and the pooling notes): "1 study was", "2 studies were", "an odds ratio".
 */

const IRREGULAR: Record<string, string> = {
  study: "studies",
  analysis: "analyses",
  was: "were",
  is: "are",
  has: "have",
};

/** The plural of a singular noun or verb form: irregular ones, "-y" → "-ies", else "+s". */
export function pluralOf(singular: string): string {
  return IRREGULAR[singular] ?? (/[^aeiou]y$/.test(singular) ? `${singular.slice(0, -1)}ies` : `${singular}s`);
}

/** `n` (digits only: the narrative's number check reads "1,200" as 1.2) and the noun agreeing with it: counted(1, "study") = "1 study", counted(0, "study") = "0 studies". */
export function counted(n: number, singular: string, plural = pluralOf(singular)): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/** The form agreeing with `n`: agree(1, "was") = "was", agree(3, "was") = "were", agree(2, "reports", "report"). */
export function agree(n: number, singular: string, plural = pluralOf(singular)): string {
  return n === 1 ? singular : plural;
}

/** Words starting with a vowel letter but a consonant sound ("a unit", "a one-sided test", "a European"). */
const CONSONANT_SOUND = /^(?:uni|use|usu|uti|eu|one\b|once)/i;
/** Initialisms read letter by letter that start with a vowel sound ("an HR", "an SMD", "an MD"). */
const VOWEL_INITIALISM = /^[FHLMNRSX][A-Z0-9]*\b/;

/** `phrase` with "a" or "an" by its first sound: "an odds ratio", "a risk ratio", "an HR", "a unit". */
export function withArticle(phrase: string): string {
  const p = phrase.trim();
  const vowel = VOWEL_INITIALISM.test(p) && p.length <= 5 ? true : /^[aeiou]/i.test(p) && !CONSONANT_SOUND.test(p);
  return `${vowel ? "an" : "a"} ${p}`;
}
