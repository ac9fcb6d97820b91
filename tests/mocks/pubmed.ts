/**
 * PubMed E-utilities replay: esearch.fcgi and efetch.fcgi, matched on the path suffix so any
 * base URL prefix works. Pure and synchronous.
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
export const PUBMED_REPLAY_FIXTURES = {
  /** "cancer", last 60 days: Count 42249, 100 ids. */
  esearch: "pubmed/esearch_pubmed_cancer_reldate60_retmax100_usehistory.xml",
  /** Real no-results reply (db=protein; same eSearchResult schema as PubMed). */
  esearchEmpty: "pubmed/esearch_protein_no-results_abcXYZ.xml",
  /** Two full PubmedArticle records (PMIDs 11748933, 11700088), whatever ids are asked for. */
  efetch: "pubmed/efetch_pubmed_11748933_11700088.xml",
} as const;

/**
 * esearch: `term` containing zzfail → 500, zzempty → the recorded empty reply, else the "cancer"
 * recording. efetch (GET or POST; the body is not read) → the two-article recording.
 */
export function createPubmedReplay(fixtures: FixtureReader): Replay {
  return (request) => {
    const url = new URL(request.url);
    if (url.pathname.endsWith("/esearch.fcgi")) {
      const term = url.searchParams.get("term");
      if (hasWord(term, FAIL_WORD)) return simulatedFailure("pubmed");
      return recorded(
        fixtures,
        hasWord(term, EMPTY_WORD) ? PUBMED_REPLAY_FIXTURES.esearchEmpty : PUBMED_REPLAY_FIXTURES.esearch,
      );
    }
    if (url.pathname.endsWith("/efetch.fcgi")) return recorded(fixtures, PUBMED_REPLAY_FIXTURES.efetch);
    return null;
  };
}
