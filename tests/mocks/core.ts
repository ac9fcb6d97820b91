/**
 * CORE replay: `search/works` (GET, with or without the trailing slash), matched on the path
 * suffix. Only CORE **v2** responses were ever recorded, so the bodies are v2 envelopes; the CORE
 * provider's normaliser accepts both v2 and v3. Pure and synchronous.
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
export const CORE_REPLAY_FIXTURES = {
  /** v2 search "ecology": totalHits 1326248, 10 records. */
  search: "core/v2_search_ecology_page1_pageSize10.json",
  /** v2 batch reply with one "Not found" envelope (totalHits 0, data null). */
  empty: "core/v2_search_POST_empty_result.json",
} as const;

/** `q` containing zzfail → 500, zzempty → empty reply, else the ecology page. The API key is not checked. */
export function createCoreReplay(fixtures: FixtureReader): Replay {
  return (request) => {
    const url = new URL(request.url);
    if (!/\/search\/works\/?$/.test(url.pathname)) return null;
    const query = url.searchParams.get("q");
    if (hasWord(query, FAIL_WORD)) return simulatedFailure("core");
    return recorded(fixtures, hasWord(query, EMPTY_WORD) ? CORE_REPLAY_FIXTURES.empty : CORE_REPLAY_FIXTURES.search);
  };
}
