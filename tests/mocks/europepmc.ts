/**
 * Europe PMC replay: `/search` (GET), matched on the path suffix. Pure and synchronous.
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
export const EUROPEPMC_REPLAY_FIXTURES = {
  /** COVID-19, resultType=core: hitCount 767814, 25 records. */
  search: "europepmc/search_core_COVID-19_pageSize25.json",
  /** resultType=idlist page (used by the provider to walk cursorMark for page > 1): 25 ids. */
  idlist: "europepmc/search_idlist_cancer_json.json",
  /** Real empty result: hitCount 0. */
  empty: "europepmc/search_empty_result_set.json",
} as const;

/** `query` containing zzfail → 500, zzempty → empty result, resultType=idlist → id page, else the core COVID-19 page. */
export function createEuropePmcReplay(fixtures: FixtureReader): Replay {
  return (request) => {
    const url = new URL(request.url);
    if (!url.pathname.endsWith("/search")) return null;
    const query = url.searchParams.get("query");
    if (hasWord(query, FAIL_WORD)) return simulatedFailure("europepmc");
    if (hasWord(query, EMPTY_WORD)) return recorded(fixtures, EUROPEPMC_REPLAY_FIXTURES.empty);
    if (url.searchParams.get("resultType") === "idlist") return recorded(fixtures, EUROPEPMC_REPLAY_FIXTURES.idlist);
    return recorded(fixtures, EUROPEPMC_REPLAY_FIXTURES.search);
  };
}
