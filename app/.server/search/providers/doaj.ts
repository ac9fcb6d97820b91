/**
 * DOAJ article search (`/search/articles/{query}`). Field map: API_NOTES.md §6. DOAJ only lists
 * open-access journals, so every record is open access.
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
import { arr, assertUsableRecords, buildUrl, count, fetchJson, isRecord, str } from "./http";

/** DOAJ `pageSize` ceiling and deepest reachable record (settings.py, API_NOTES §6). */
const MAX_PAGE_SIZE = 100;
const MAX_RECORDS = 1000;

function normaliseArticle(record: unknown): NormalisedStudy | null {
  if (!isRecord(record) || !isRecord(record.bibjson)) return null;
  const bib = record.bibjson;
  const id = str(record.id);
  const title = stripMarkup(str(bib.title) ?? "");
  if (!id || !title) return null;
  const identifiers = arr(bib.identifier).filter(isRecord);
  const doiId = identifiers.find((i) => str(i.type)?.toLowerCase() === "doi");
  const links = arr(bib.link).filter(isRecord);
  const fulltext =
    links.find((l) => str(l.type)?.toLowerCase() === "fulltext" && str(l.url)) ?? links.find((l) => str(l.url));
  const openAccessUrl = fulltext ? str(fulltext.url) : null;
  const journal = isRecord(bib.journal) ? str(bib.journal.title) : null;
  return {
    source: "doaj",
    sourceId: id,
    title,
    abstract: stripMarkup(str(bib.abstract) ?? "") || null,
    authors: arr(bib.author)
      .map((a) => (isRecord(a) ? str(a.name) : null))
      .filter((n): n is string => n !== null),
    journal,
    publicationDate: toIsoDate(str(bib.year), str(bib.month)),
    pmid: null,
    pmcid: null,
    doi: normaliseDoi(doiId ? str(doiId.id) : null),
    studyType: classifyStudyType([], title),
    publicationTypes: [],
    fullTextAvailable: openAccessUrl !== null,
    isOpenAccess: true,
    openAccessUrl,
    citationCount: null,
    impactFactor: null,
    url: `https://doaj.org/article/${id}`,
  };
}

/**
 * Normalises a DOAJ article search response `{total, page, pageSize, results[{id, bibjson}]}`
 * (v2–v4 share it); a single `/articles/{id}` record is accepted as a one-item list. `month` may
 * be "4" or "March". Records without id/title are skipped.
 * Errors: any other body → ProviderError `parse`. With `strict` (the search path, which asks for full records), an answer whose records
 * are all unreadable → ProviderError `parse` (assertUsableRecords).
 */
export function normaliseDoajSearch(json: unknown, { strict = false }: { strict?: boolean } = {}): ProviderResult {
  if (isRecord(json) && Array.isArray(json.results)) {
    const studies = json.results.map(normaliseArticle).filter((s): s is NormalisedStudy => s !== null);
    if (strict) assertUsableRecords("doaj", json.results.length, studies.length);
    return { studies, totalCount: count(json.total) ?? studies.length };
  }
  if (isRecord(json) && isRecord(json.bibjson)) {
    const study = normaliseArticle(json);
    return { studies: study ? [study] : [], totalCount: study ? 1 : 0 };
  }
  throw new ProviderError("doaj", "parse", "expected a DOAJ search response with results[]");
}

/**
 * The `{search_query}` path segment (before URL-encoding) in DOAJ's Elasticsearch query-string
 * syntax (API_NOTES §6; DOAJ API docs "search_query"). Without upstream filters the query is sent
 * unchanged; with a date window it becomes `(q) AND bibjson.year:[YYYY TO YYYY]` — whole years,
 * `*` for an open end — which applyPostFilters narrows to the exact dates.
 * Not sent upstream: fullTextOnly (every DOAJ article is open access; applyPostFilters still
 * requires the full-text link), studyType (DOAJ has no publication type), hasAbstract and
 * journalImpact.
 */
export function buildDoajQuery(query: string, filters: SearchFilters = NO_FILTERS): string {
  if (filters.dateFrom === null && filters.dateTo === null) return query;
  const from = filters.dateFrom?.slice(0, 4) ?? "*";
  const to = filters.dateTo?.slice(0, 4) ?? "*";
  return `(${query}) AND bibjson.year:[${from} TO ${to}]`;
}

/** One search URL: `${baseUrl}/search/articles/${encodeURIComponent(buildDoajQuery)}?page=&pageSize=`. */
export function doajSearchUrl(
  baseUrl: string,
  params: Pick<ProviderSearchParams, "query" | "filters">,
  page: number,
  pageSize: number,
): string {
  return buildUrl(baseUrl, `/search/articles/${encodeURIComponent(buildDoajQuery(params.query, params.filters))}`, {
    page,
    pageSize,
  });
}

/**
 * DOAJ search: GET {@link doajSearchUrl}. DOAJ pages are fixed-size, so the window
 * `[(page-1)*limit, +limit)` is covered with pages of min(limit, 100) fetched sequentially and
 * sliced; the window is clamped to DOAJ's first 1,000 records.
 * Errors: a page starting at or beyond record 1,000 → ProviderError `unavailable`.
 */
export const doaj: SearchProvider = {
  id: "doaj",
  label: "DOAJ",
  requiresApiKey: false,
  async search(deps, params) {
    const start = (params.page - 1) * params.limit;
    if (start >= MAX_RECORDS) {
      throw new ProviderError(
        "doaj",
        "unavailable",
        `DOAJ only returns the first 1,000 results (requested offset ${start})`,
      );
    }
    const end = Math.min(start + params.limit, MAX_RECORDS);
    const pageSize = Math.min(params.limit, MAX_PAGE_SIZE);
    const studies: NormalisedStudy[] = [];
    let totalCount = 0;
    const firstPage = Math.floor(start / pageSize);
    const lastPage = Math.floor((end - 1) / pageSize);
    for (let page = firstPage; page <= lastPage; page++) {
      const result = normaliseDoajSearch(
        await fetchJson("doaj", deps, doajSearchUrl(deps.baseUrl, params, page + 1, pageSize)),
        { strict: true },
      );
      totalCount = result.totalCount;
      const pageStart = page * pageSize;
      studies.push(...result.studies.slice(Math.max(0, start - pageStart), end - pageStart));
      if (result.studies.length < pageSize || pageStart + pageSize >= totalCount) break;
    }
    return { studies, totalCount };
  },
};
