/**
 * Smart Search's relevance rule, shared by the filter (app/.server/ai/relevance.ts) and the note
 * under the results: scores are 0–10; a result is relevant at {@link RELEVANCE_THRESHOLD} or more.
 */

/** Studies scoring below this (0–10 scale) are not counted as relevant. */
export const RELEVANCE_THRESHOLD = 3;
/** Smart Search keeps at least this many top-scoring studies, whatever their scores. */
export const MIN_RELEVANT_STUDIES = 5;

/**
 * The sentence under Smart Search's results. `kept` are the studies it returned (scored,
 * best first), `total` the results it scored. It never calls a study 'kept' for relevance when
 * it scored below the threshold: the top studies shown only because too few passed are named
 * as such, e.g. "None of the 2 results scored 3/10 or more for relevance; showing both, best
 * first".
 */
export function smartSearchNote(
  kept: readonly { relevanceScore?: number | null }[],
  total: number,
  model: string | null,
): string {
  const by = model ? ` · ranked by ${model}` : "";
  const passing = kept.filter((s) => (s.relevanceScore ?? 0) >= RELEVANCE_THRESHOLD).length;
  const results = total === 1 ? "result" : "results";
  if (passing === kept.length) {
    return `Smart Search kept ${passing} of ${total} ${results} (relevance ${RELEVANCE_THRESHOLD}/10 or more), best first${by}`;
  }
  if (total === 1)
    return `The only result scored below ${RELEVANCE_THRESHOLD}/10 for relevance; showing it anyway${by}`;
  const shown = kept.length === total ? (total === 2 ? "both" : `all ${total}`) : `the ${kept.length} best-scoring`;
  const lead = passing === 0 ? `None of the ${total} ${results}` : `Only ${passing} of the ${total} ${results}`;
  return `${lead} scored ${RELEVANCE_THRESHOLD}/10 or more for relevance; showing ${shown}, best first${by}`;
}
