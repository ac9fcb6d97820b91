/**
 * Semantic Scholar replay: `/paper/search`, matched on the path suffix. Pure and synchronous.
 * The served body is a real `/paper/search` recording, but it was made with `fields=title`, so
 * the studies carry only paperId and title (no authors, DOI, abstract).
 */
import {
  EMPTY_WORD,
  FAIL_WORD,
  hasWord,
  recorded,
  simulatedFailure,
  type FixtureReader,
  type Replay,
} from "./replay-utils.ts";

/** The recordings served (paths relative to fixtures/providers). */
export const SEMANTICSCHOLAR_REPLAY_FIXTURES = {
  /** query=kubernetes, fields=title: total 3028, 100 papers. */
  search: "semanticscholar/search_kubernetes.json",
  /** Real empty result `{"total": 0, "offset": 0}` (no data key). */
  empty: "semanticscholar/search_empty_result_set.json",
} as const;

/** `query` containing zzfail → 500, zzempty → empty result, else the kubernetes page. */
export function createSemanticScholarReplay(fixtures: FixtureReader): Replay {
  return (request) => {
    const url = new URL(request.url);
    if (!url.pathname.endsWith("/paper/search")) return null;
    const query = url.searchParams.get("query");
    if (hasWord(query, FAIL_WORD)) return simulatedFailure("semanticscholar");
    return recorded(
      fixtures,
      hasWord(query, EMPTY_WORD) ? SEMANTICSCHOLAR_REPLAY_FIXTURES.empty : SEMANTICSCHOLAR_REPLAY_FIXTURES.search,
    );
  };
}
