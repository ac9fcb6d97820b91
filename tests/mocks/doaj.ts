/**
 * DOAJ replay: `/search/articles/{query}`, matched on the path (the query is a path segment).
 * Pure and synchronous.
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
export const DOAJ_REPLAY_FIXTURES = {
  /** license:CC-BY, pageSize 10: total 5412874, 10 articles. */
  search: "doaj/v2_search_articles_license-CC-BY_pageSize10.json",
} as const;

/**
 * query containing zzfail → 500, zzempty → an empty envelope, else the CC-BY page.
 * No empty DOAJ search was ever recorded, so the zzempty body is the only synthesised body in
 * the replays: the documented envelope `{total:0, page, pageSize, query, results:[]}`, marked
 * with `x-replay-fixture: none (synthesised)`.
 */
export function createDoajReplay(fixtures: FixtureReader): Replay {
  return (request) => {
    const url = new URL(request.url);
    const marker = url.pathname.indexOf("/search/articles/");
    if (marker < 0) return null;
    let query = url.pathname.slice(marker + "/search/articles/".length);
    try {
      query = decodeURIComponent(query);
    } catch {
      // Undecodable path: match trigger words on the raw text.
    }
    if (hasWord(query, FAIL_WORD)) return simulatedFailure("doaj");
    if (hasWord(query, EMPTY_WORD)) {
      const page = Number(url.searchParams.get("page")) || 1;
      const pageSize = Number(url.searchParams.get("pageSize")) || 10;
      return new Response(JSON.stringify({ total: 0, page, pageSize, query, results: [] }), {
        status: 200,
        headers: { "content-type": "application/json", "x-replay-fixture": "none (synthesised)" },
      });
    }
    return recorded(fixtures, DOAJ_REPLAY_FIXTURES.search);
  };
}
