/**
 * Semantic Scholar Graph API `/paper/search` (relevance search). Field map: API_NOTES.md §5.
 */
import { NO_FILTERS, type SearchFilters, type StudyTypeFilter } from "../filters";
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

/**
 * Fields requested from `/paper/search`. `tldr` is deliberately not requested: a missing abstract
 * stays null rather than being replaced by a machine summary, so "has abstract" filters and AI
 * summaries only ever see real abstracts.
 */
export const S2_FIELDS =
  "title,abstract,authors,year,publicationDate,journal,venue,externalIds,isOpenAccess,openAccessPdf,citationCount,publicationTypes,url";
/** Per-request `limit` ceiling. */
const MAX_LIMIT = 100;
/** Relevance search only serves offset + limit below this (API_NOTES §5). */
const WINDOW_END = 999;

function normalisePaper(paper: unknown): NormalisedStudy | null {
  if (!isRecord(paper)) return null;
  const title = stripMarkup(str(paper.title) ?? "");
  const paperId = str(paper.paperId);
  if (!title || !paperId) return null;
  const ids = isRecord(paper.externalIds) ? paper.externalIds : {};
  const pmid = str(ids.PubMed);
  const pmcNumber = str(ids.PubMedCentral);
  const journal = isRecord(paper.journal) ? str(paper.journal.name) : null;
  const pdf = isRecord(paper.openAccessPdf) ? str(paper.openAccessPdf.url) : null;
  const types = uniqueStrings(arr(paper.publicationTypes).map(str));
  return {
    source: "semanticscholar",
    sourceId: paperId,
    title,
    abstract: stripMarkup(str(paper.abstract) ?? "") || null,
    authors: arr(paper.authors)
      .map((a) => (isRecord(a) ? str(a.name) : null))
      .filter((n): n is string => n !== null),
    journal: journal ?? str(paper.venue),
    publicationDate: toIsoDate(str(paper.publicationDate)) ?? toIsoDate(count(paper.year)),
    pmid: pmid && /^\d+$/.test(pmid) ? pmid : null,
    pmcid: pmcNumber ? (pmcNumber.toUpperCase().startsWith("PMC") ? pmcNumber.toUpperCase() : `PMC${pmcNumber}`) : null,
    doi: normaliseDoi(str(ids.DOI)),
    studyType: classifyStudyType(types, title),
    publicationTypes: types,
    fullTextAvailable: pdf !== null,
    isOpenAccess: paper.isOpenAccess === true || pdf !== null,
    openAccessUrl: pdf,
    citationCount: count(paper.citationCount),
    impactFactor: null,
    url: str(paper.url) ?? `https://www.semanticscholar.org/paper/${paperId}`,
  };
}

/**
 * Normalises Semantic Scholar paper payloads:
 * - `/paper/search` `{total, offset, next?, data?}` (the empty result has no `data` at all);
 * - `/paper/search/match` `{data:[…]}`;
 * - `POST /paper/batch` — a top-level array whose unknown ids are `null` (skipped);
 * - a single `/paper/{id}` object.
 * `abstract` is often null (publisher licensing) and is kept null. Papers without paperId/title
 * are skipped. Errors: an `{error}`/`{message}` body or any other shape → ProviderError `parse`.
 */
export function normaliseSemanticScholar(json: unknown): ProviderResult {
  let papers: unknown[];
  let total: number | null = null;
  if (Array.isArray(json)) {
    papers = json;
  } else if (isRecord(json) && ("data" in json || "total" in json)) {
    if ("data" in json && !Array.isArray(json.data))
      throw new ProviderError("semanticscholar", "parse", "S2 data is not a list");
    papers = arr(json.data);
    total = count(json.total);
  } else if (isRecord(json) && typeof json.paperId === "string") {
    papers = [json];
  } else {
    const reason = isRecord(json) ? (str(json.error) ?? str(json.message)) : null;
    throw new ProviderError(
      "semanticscholar",
      "parse",
      `unexpected Semantic Scholar response${reason ? `: ${reason}` : ""}`,
    );
  }
  const studies = papers.map(normalisePaper).filter((s): s is NormalisedStudy => s !== null);
  return { studies, totalCount: total ?? studies.length };
}

/**
 * Normalises one `/paper/search` page strictly: the answer must be an object with a numeric
 * `total` and, when it has records, a `data` list (the empty result is `{total: 0, offset: 0}`);
 * a `total` beyond `offset` with no records, or records none of which can be read, is garbage.
 * @throws ProviderError `parse` for any other shape (HTML, `{"foo":1}`, a bare list…).
 */
export function normaliseSemanticScholarSearch(json: unknown, offset = 0): ProviderResult {
  if (!isRecord(json) || count(json.total) === null) {
    const reason = isRecord(json) ? (str(json.error) ?? str(json.message)) : null;
    throw new ProviderError(
      "semanticscholar",
      "parse",
      `unexpected Semantic Scholar search response${reason ? `: ${reason}` : ""}`,
    );
  }
  const result = normaliseSemanticScholar(json);
  assertUsableRecords("semanticscholar", arr(json.data).length, result.studies.length);
  if (result.studies.length === 0 && count(json.total)! > offset) {
    throw new ProviderError(
      "semanticscholar",
      "parse",
      `Semantic Scholar reported ${count(json.total)} hits but sent no records`,
    );
  }
  return result;
}

/**
 * Semantic Scholar `publicationTypes` per studyType filter. S2 has no systematic-review or
 * observational type: systematic_review asks for `Review` (applyPostFilters then keeps only
 * records classified "Systematic Review"), observational is post-filtered only.
 */
export const S2_PUBLICATION_TYPES: Partial<Record<Exclude<StudyTypeFilter, "all">, string>> = {
  clinical_trial: "ClinicalTrial",
  meta_analysis: "MetaAnalysis",
  systematic_review: "Review",
};

/**
 * The `/paper/search` filter parameters for the filters S2 can express (API_NOTES §5; S2 Graph
 * API "paper relevance search"), in this order:
 * - `publicationDateOrYear=YYYY-MM-DD:YYYY-MM-DD` for the date window; an open end is left empty
 *   ("2020-01-01:" or ":2024-12-31");
 * - `publicationTypes=<S2_PUBLICATION_TYPES>` for studyType;
 * - `openAccessPdf` with an empty value for fullTextOnly (only papers with a public PDF; sent as
 *   `openAccessPdf=` like the recorded search_turing_openAccessPdf-filter request).
 * hasAbstract and journalImpact have no S2 filter and are left to applyPostFilters.
 */
export function semanticScholarFilterParams(filters: SearchFilters = NO_FILTERS): Array<[string, string]> {
  const params: Array<[string, string]> = [];
  if (filters.dateFrom !== null || filters.dateTo !== null) {
    params.push(["publicationDateOrYear", `${filters.dateFrom ?? ""}:${filters.dateTo ?? ""}`]);
  }
  const type = filters.studyType === "all" ? undefined : S2_PUBLICATION_TYPES[filters.studyType];
  if (type) params.push(["publicationTypes", type]);
  if (filters.fullTextOnly) params.push(["openAccessPdf", ""]);
  return params;
}

/**
 * One search URL: `${baseUrl}/paper/search?query=&<semanticScholarFilterParams>&offset=&limit=
 * &fields=<S2_FIELDS>`.
 */
export function semanticScholarSearchUrl(
  baseUrl: string,
  params: Pick<ProviderSearchParams, "query" | "filters">,
  offset: number,
  limit: number,
): string {
  const search = new URLSearchParams([["query", params.query]]);
  for (const [key, value] of semanticScholarFilterParams(params.filters)) search.append(key, value);
  search.append("offset", String(offset));
  search.append("limit", String(limit));
  search.append("fields", S2_FIELDS);
  return `${buildUrl(baseUrl, "/paper/search")}?${search.toString()}`;
}

/**
 * Semantic Scholar search: GET {@link semanticScholarSearchUrl} with optional `x-api-key`.
 * Windows over 100 are fetched in sequential chunks. Relevance search only reaches the first
 * 1,000 hits, so the window is clamped to end at offset 999.
 * Errors: a page starting at or beyond 999 → ProviderError `unavailable`.
 */
export const semanticscholar: SearchProvider = {
  id: "semanticscholar",
  label: "Semantic Scholar",
  requiresApiKey: false,
  async search(deps, params) {
    const offset = (params.page - 1) * params.limit;
    if (offset >= WINDOW_END) {
      throw new ProviderError(
        "semanticscholar",
        "unavailable",
        `Semantic Scholar relevance search only returns the first 1,000 results (requested offset ${offset})`,
      );
    }
    const limit = Math.min(params.limit, WINDOW_END - offset);
    const headers: Record<string, string> = deps.apiKey ? { "x-api-key": deps.apiKey } : {};
    return collectWindow(offset, limit, MAX_LIMIT, async (chunkOffset, size) => {
      const url = semanticScholarSearchUrl(deps.baseUrl, params, chunkOffset, size);
      return normaliseSemanticScholarSearch(await fetchJson("semanticscholar", deps, url, { headers }), chunkOffset);
    });
  },
};
