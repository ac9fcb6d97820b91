/**
 * CORE API v3 `search/works`. Field map: API_NOTES.md §4. Everything CORE indexes is harvested
 * from open repositories, so every record counts as open access.
 */
import { NO_FILTERS, type SearchFilters } from "../filters";
import { classifyStudyType, normaliseDoi, stripMarkup, toIsoDate } from "~/lib/search/normalize";
import {
  ProviderError,
  type NormalisedStudy,
  type ProviderResult,
  type ProviderSearchParams,
  type SearchProvider,
} from "../types";
import {
  arr,
  assertUsableRecords,
  buildUrl,
  collectWindow,
  count,
  fetchJson,
  isRecord,
  str,
  uniqueStrings,
} from "./http";

/** CORE's documented per-request `limit` ceiling (API_NOTES §4, unverified). */
const MAX_LIMIT = 100;

function authorNames(value: unknown): string[] {
  return uniqueStrings(arr(value).map((a) => (typeof a === "string" ? str(a) : isRecord(a) ? str(a.name) : null)));
}

function journalTitle(work: Record<string, unknown>): string | null {
  for (const j of arr(work.journals)) {
    const title = isRecord(j) ? str(j.title) : str(j);
    if (title) return title;
  }
  return null;
}

function firstUrl(...candidates: unknown[]): string | null {
  for (const candidate of candidates) {
    for (const value of arr(candidate)) {
      const url = str(value);
      if (url && /^https?:\/\//i.test(url)) return url;
    }
  }
  return null;
}

function normaliseWork(work: unknown, shape: "v2" | "v3"): NormalisedStudy | null {
  if (!isRecord(work)) return null;
  const title = stripMarkup(str(work.title) ?? "");
  const id = str(work.id);
  if (!title || !id) return null;
  const downloadLinks = arr(work.links)
    .filter((l) => isRecord(l) && (l.type === "download" || l.type === "reader"))
    .map((l) => (isRecord(l) ? l.url : null));
  const openAccessUrl = firstUrl(
    work.downloadUrl,
    downloadLinks,
    work.sourceFulltextUrls,
    work.fullTextIdentifier,
    work.urls,
  );
  const types = uniqueStrings([str(work.documentType), ...arr(work.types).map(str)]);
  const date =
    toIsoDate(str(work.publishedDate)) ??
    toIsoDate(str(work.datePublished)) ??
    toIsoDate(str(work.yearPublished) ?? str(work.year));
  const pmid = str(work.pubmedId);
  return {
    source: "core",
    sourceId: id,
    title,
    abstract: stripMarkup(str(work.abstract) ?? str(work.description) ?? "") || null,
    authors: authorNames(work.authors),
    journal: journalTitle(work) ?? str(work.publisher),
    publicationDate: date,
    pmid: pmid && /^\d+$/.test(pmid) ? pmid : null,
    pmcid: null,
    doi: normaliseDoi(str(work.doi)),
    studyType: classifyStudyType(types, title),
    publicationTypes: types,
    fullTextAvailable: openAccessUrl !== null,
    isOpenAccess: true,
    openAccessUrl,
    citationCount: count(work.citationCount),
    impactFactor: null,
    url: shape === "v3" ? `https://core.ac.uk/works/${id}` : `https://core.ac.uk/display/${id}`,
  };
}

function isV2Envelope(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && typeof value.status === "string" && "totalHits" in value;
}

/**
 * Normalises a CORE search response. Accepts:
 * - v3 (what the provider calls): `{totalHits, limit, offset, results[]}` with `authors[{name}]`;
 * - v2 (the only real recordings, retired API): `{status, totalHits, data[{_source{…}}] | null}`,
 *   the batch form (an array of such envelopes; studies concatenated, totals summed) and
 *   `{status:"OK", data:{…}}` single articles. v2 `authors` are plain strings and the abstract is
 *   `description`.
 * Records without id/title are skipped. Errors: anything else → ProviderError `parse`. With `strict` (the search path, which asks for full records), an answer whose records
 * are all unreadable → ProviderError `parse` (assertUsableRecords).
 */
export function normaliseCoreSearch(json: unknown, { strict = false }: { strict?: boolean } = {}): ProviderResult {
  if (Array.isArray(json) && json.length > 0 && json.every(isV2Envelope)) {
    const parts = json.map((part) => normaliseCoreSearch(part, { strict }));
    return {
      studies: parts.flatMap((p) => p.studies),
      totalCount: parts.reduce((sum, p) => sum + p.totalCount, 0),
    };
  }
  if (isRecord(json) && Array.isArray(json.results)) {
    const studies = json.results.map((w) => normaliseWork(w, "v3")).filter((s): s is NormalisedStudy => s !== null);
    if (strict) assertUsableRecords("core", json.results.length, studies.length);
    return { studies, totalCount: count(json.totalHits) ?? studies.length };
  }
  if (isRecord(json) && typeof json.status === "string" && ("totalHits" in json || isRecord(json.data))) {
    const records = isRecord(json.data)
      ? [json.data]
      : arr(json.data).map((hit) => (isRecord(hit) && isRecord(hit._source) ? hit._source : hit));
    const studies = records.map((w) => normaliseWork(w, "v2")).filter((s): s is NormalisedStudy => s !== null);
    if (strict) assertUsableRecords("core", records.length, studies.length);
    return { studies, totalCount: count(json.totalHits) ?? studies.length };
  }
  throw new ProviderError("core", "parse", "expected a CORE search response (results[] or data[])");
}

/**
 * The `q` for a search in CORE v3's query language (Elasticsearch query-string style; API_NOTES
 * §4 lists `yearPublished>=2020` and `_exists_:` among its operators; https://api.core.ac.uk/docs/v3).
 * Without upstream filters the query is sent unchanged; otherwise it is wrapped in parentheses
 * and ANDed with, in this order:
 * - date window: `yearPublished>=YYYY` and/or `yearPublished<=YYYY` — whole years, a superset of
 *   the window that applyPostFilters narrows to the exact dates;
 * - hasAbstract: `_exists_:abstract`. Elasticsearch also counts an empty string as existing, so
 *   this is only a necessary condition; applyPostFilters applies the spec's >10-character rule.
 * Not sent upstream: fullTextOnly (every CORE record is open access, but no single field holds
 * the download link the normaliser looks for), studyType (`documentType` is research/thesis/…,
 * not a study design) and journalImpact — all left to applyPostFilters.
 */
export function buildCoreQuery(query: string, filters: SearchFilters = NO_FILTERS): string {
  const clauses: string[] = [];
  if (filters.dateFrom !== null) clauses.push(`yearPublished>=${filters.dateFrom.slice(0, 4)}`);
  if (filters.dateTo !== null) clauses.push(`yearPublished<=${filters.dateTo.slice(0, 4)}`);
  if (filters.hasAbstract) clauses.push("_exists_:abstract");
  return clauses.length === 0 ? query : [`(${query})`, ...clauses].join(" AND ");
}

/** One search URL: `${baseUrl}/search/works/?q=<buildCoreQuery>&limit=&offset=`. */
export function coreSearchUrl(
  baseUrl: string,
  params: Pick<ProviderSearchParams, "query" | "filters">,
  offset: number,
  limit: number,
): string {
  return buildUrl(baseUrl, "/search/works/", { q: buildCoreQuery(params.query, params.filters), limit, offset });
}

/**
 * CORE search: GET {@link coreSearchUrl} with `Authorization: Bearer`. Windows larger than 100
 * are fetched in sequential chunks of 100.
 * Errors: no deps.apiKey → ProviderError `unavailable` ("CORE_API_KEY is not configured")
 * before any request.
 */
export const core: SearchProvider = {
  id: "core",
  label: "CORE",
  requiresApiKey: true,
  async search(deps, params) {
    const apiKey = deps.apiKey?.trim();
    if (!apiKey) throw new ProviderError("core", "unavailable", "CORE_API_KEY is not configured");
    return collectWindow((params.page - 1) * params.limit, params.limit, MAX_LIMIT, async (offset, size) => {
      const url = coreSearchUrl(deps.baseUrl, params, offset, size);
      const json = await fetchJson("core", deps, url, { headers: { authorization: `Bearer ${apiKey}` } });
      return normaliseCoreSearch(json, { strict: true });
    });
  },
};
