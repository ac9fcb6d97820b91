/**
 * Crossref replay: `/works` list search, matched on the path suffix. Pure and synchronous.
 */
import { EMPTY_WORD, FAIL_WORD, hasWord, recorded, type FixtureReader, type Replay } from "./replay-utils.ts";

/** The recordings served (paths relative to fixtures/providers). */
export const CROSSREF_REPLAY_FIXTURES = {
  /** query=ecology, rows=30, cursor page 1: total-results 452242, 30 items. */
  search: "crossref/search_query-ecology_rows30_cursor-page1.json",
  /** query=adfaaf: total-results 0. */
  empty: "crossref/search_empty_query-adfaaf.json",
  /** Crossref's real HTTP 500 exception body (served with status 500). */
  failure: "crossref/error_500_invalid_cursor.json",
} as const;

/** `query` (or any `query.*` field) containing zzfail → recorded 500, zzempty → empty list, else the ecology page. */
export function createCrossrefReplay(fixtures: FixtureReader): Replay {
  return (request) => {
    const url = new URL(request.url);
    if (!/\/works\/?$/.test(url.pathname)) return null;
    const query = [...url.searchParams]
      .filter(([key]) => key === "query" || key.startsWith("query."))
      .map(([, v]) => v)
      .join(" ");
    if (hasWord(query, FAIL_WORD)) return recorded(fixtures, CROSSREF_REPLAY_FIXTURES.failure);
    return recorded(
      fixtures,
      hasWord(query, EMPTY_WORD) ? CROSSREF_REPLAY_FIXTURES.empty : CROSSREF_REPLAY_FIXTURES.search,
    );
  };
}
