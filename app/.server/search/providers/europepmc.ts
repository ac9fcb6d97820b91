/**
 * Europe PMC REST `search` (resultType=core, format=json). Field map: API_NOTES.md §3.
 */
import { NO_FILTERS, type SearchFilters, type StudyTypeFilter } from "../filters";
import { classifyStudyType, normaliseDoi, stripMarkup, toIsoDate } from "~/lib/search/normalize";
import {
  ProviderError,
  type NormalisedStudy,
  type ProviderDeps,
  type ProviderResult,
  type ProviderSearchParams,
  type SearchProvider,
} from "../types";
import { arr, assertUsableRecords, buildUrl, count, fetchJson, isRecord, str, uniqueStrings } from "./http";

/** Largest `pageSize` Europe PMC accepts (API_NOTES §3). */
const MAX_PAGE_SIZE = 1000;
/** Cursor requests allowed to skip to a later page: 10 × 1000 ids = results up to #10,000. */
const MAX_SKIP_REQUESTS = 10;

function authorNames(record: Record<string, unknown>): string[] {
  const list = arr(isRecord(record.authorList) ? record.authorList.author : undefined);
  const names = list
    .map((a) => {
      if (!isRecord(a)) return null;
      const last = str(a.lastName);
      return str(a.fullName) ?? (last ? `${last} ${str(a.initials) ?? ""}`.trim() : null) ?? str(a.collectiveName);
    })
    .filter((n): n is string => n !== null);
  if (names.length > 0) return names;
  // resultType=lite only has "Lu D, Liu Y, Ma P."
  const authorString = str(record.authorString);
  return authorString
    ? authorString
        .replace(/\.$/, "")
        .split(/,\s*/)
        .map((n) => n.trim())
        .filter((n) => n !== "")
    : [];
}

function publicationTypes(record: Record<string, unknown>): string[] {
  const core = arr(isRecord(record.pubTypeList) ? record.pubTypeList.pubType : undefined).map(str);
  const lite = (str(record.pubType) ?? "").split(/;\s*/).map((t) => str(t));
  return uniqueStrings([...core, ...lite]);
}

interface FullTextUrl {
  code: string;
  style: string;
  url: string;
}

/** Prefers open-access PDF, then OA HTML, then free (availabilityCode "F") PDF/HTML. */
function pickOpenAccessUrl(urls: FullTextUrl[]): string | null {
  for (const [code, style] of [
    ["OA", "pdf"],
    ["OA", "html"],
    ["F", "pdf"],
    ["F", "html"],
  ]) {
    const hit = urls.find((u) => u.code === code && u.style === style);
    if (hit) return hit.url;
  }
  return urls.find((u) => u.code === "OA" || u.code === "F")?.url ?? null;
}

function normaliseRecord(record: unknown): NormalisedStudy | null {
  if (!isRecord(record)) return null;
  const title = stripMarkup(str(record.title) ?? "");
  const id = str(record.id);
  if (!title || !id) return null;
  const source = str(record.source) ?? "MED";
  const journalInfo = isRecord(record.journalInfo) ? record.journalInfo : {};
  const journal = isRecord(journalInfo.journal) ? journalInfo.journal : {};
  const fullTextUrls: FullTextUrl[] = arr(
    isRecord(record.fullTextUrlList) ? record.fullTextUrlList.fullTextUrl : undefined,
  )
    .filter(isRecord)
    .map((u) => ({
      code: str(u.availabilityCode) ?? "",
      style: (str(u.documentStyle) ?? "").toLowerCase(),
      url: str(u.url) ?? "",
    }))
    .filter((u) => u.url !== "");
  const pmcid = str(record.pmcid);
  const isOpenAccess = record.isOpenAccess === "Y" || fullTextUrls.some((u) => u.code === "OA");
  const openAccessUrl =
    pickOpenAccessUrl(fullTextUrls) ?? (isOpenAccess && pmcid ? `https://europepmc.org/articles/${pmcid}` : null);
  const types = publicationTypes(record);
  const date =
    toIsoDate(str(record.firstPublicationDate)) ??
    toIsoDate(str(record.electronicPublicationDate)) ??
    toIsoDate(str(journalInfo.printPublicationDate)) ??
    toIsoDate(str(record.pubYear));
  return {
    source: "europepmc",
    sourceId: `${source}/${id}`,
    title,
    abstract: stripMarkup(str(record.abstractText) ?? "") || null,
    authors: authorNames(record),
    journal: str(journal.title) ?? str(journal.medlineAbbreviation) ?? str(record.journalTitle),
    publicationDate: date,
    pmid: str(record.pmid),
    pmcid: pmcid ? pmcid.toUpperCase() : null,
    doi: normaliseDoi(str(record.doi)),
    studyType: classifyStudyType(types, title),
    publicationTypes: types,
    fullTextAvailable: openAccessUrl !== null,
    isOpenAccess,
    openAccessUrl,
    citationCount: count(record.citedByCount),
    impactFactor: null,
    url: `https://europepmc.org/article/${source}/${id}`,
  };
}

/**
 * Normalises a Europe PMC search response (`{hitCount, nextCursorMark?, resultList:{result[]}}`,
 * core or lite). isOpenAccess is the "Y"/"N" flag, or true when a full-text URL is coded "OA";
 * openAccessUrl prefers OA pdf/html then free ("F") links. Records without id/title are skipped.
 * Errors: a body without hitCount/resultList → ProviderError `parse`. With `strict` (the search path, which asks for full records), an answer whose records
 * are all unreadable → ProviderError `parse` (assertUsableRecords). Strict also
 * refuses a positive hitCount without a resultList.
 */
export function normaliseEuropePmcSearch(json: unknown, { strict = false }: { strict?: boolean } = {}): ProviderResult {
  if (!isRecord(json) || count(json.hitCount) === null) {
    throw new ProviderError("europepmc", "parse", "expected a Europe PMC search response with hitCount");
  }
  if (strict && count(json.hitCount)! > 0 && !isRecord(json.resultList)) {
    throw new ProviderError("europepmc", "parse", "Europe PMC reported hits but sent no resultList");
  }
  const results = arr(isRecord(json.resultList) ? json.resultList.result : undefined);
  const studies = results.map(normaliseRecord).filter((s): s is NormalisedStudy => s !== null);
  if (strict) assertUsableRecords("europepmc", results.length, studies.length);
  return { studies, totalCount: count(json.hitCount) ?? 0 };
}

/**
 * Europe PMC `PUB_TYPE` labels per studyType filter. The values are Europe PMC's pubType labels
 * (MeSH publication types such as "Randomized Controlled Trial", plus the JATS article type
 * "systematic-review" seen in the recorded core results); matching is case-insensitive.
 */
export const EUROPEPMC_PUB_TYPES: Record<Exclude<StudyTypeFilter, "all">, readonly string[]> = {
  clinical_trial: ["clinical trial", "randomized controlled trial"],
  meta_analysis: ["meta-analysis"],
  systematic_review: ["systematic review", "systematic-review"],
  observational: ["observational study"],
};

/**
 * The `query` for a search in Europe PMC's query syntax (API_NOTES §3; Europe PMC "Search
 * syntax reference"). Without upstream filters the query is sent unchanged; otherwise it is
 * wrapped in parentheses and ANDed with, in this order:
 * - date window: `FIRST_PDATE:[YYYY-MM-DD TO YYYY-MM-DD]` (first publication date, the date the
 *   normaliser reads first); an open end becomes 1000-01-01 or 3000-12-31;
 * - study type: `PUB_TYPE:"label"`, several labels ORed in parentheses ({@link EUROPEPMC_PUB_TYPES});
 * - fullTextOnly: `OPEN_ACCESS:Y`;
 * - hasAbstract: `HAS_ABSTRACT:Y`.
 * journalImpact is left to applyPostFilters.
 */
export function buildEuropePmcQuery(query: string, filters: SearchFilters = NO_FILTERS): string {
  const clauses: string[] = [];
  if (filters.dateFrom !== null || filters.dateTo !== null) {
    clauses.push(`FIRST_PDATE:[${filters.dateFrom ?? "1000-01-01"} TO ${filters.dateTo ?? "3000-12-31"}]`);
  }
  if (filters.studyType !== "all") {
    const types = EUROPEPMC_PUB_TYPES[filters.studyType].map((t) => `PUB_TYPE:"${t}"`);
    clauses.push(types.length === 1 ? types[0] : `(${types.join(" OR ")})`);
  }
  if (filters.fullTextOnly) clauses.push("OPEN_ACCESS:Y");
  if (filters.hasAbstract) clauses.push("HAS_ABSTRACT:Y");
  return clauses.length === 0 ? query : [`(${query})`, ...clauses].join(" AND ");
}

/**
 * One search URL: `${baseUrl}/search?query=<buildEuropePmcQuery>&resultType=&format=json
 * &pageSize=&cursorMark=&email=` (email only when given).
 */
export function europePmcSearchUrl(
  deps: Pick<ProviderDeps, "baseUrl" | "email">,
  params: Pick<ProviderSearchParams, "query" | "filters">,
  resultType: "core" | "idlist",
  pageSize: number,
  cursorMark: string,
): string {
  return buildUrl(deps.baseUrl, "/search", {
    query: buildEuropePmcQuery(params.query, params.filters),
    resultType,
    format: "json",
    pageSize,
    cursorMark,
    email: deps.email,
  });
}

/**
 * Europe PMC search ({@link europePmcSearchUrl}; the filters go into every request, cursor walks
 * included). There is no page parameter, only cursorMark paging, so for page > 1 the
 * provider first walks the cursor with cheap `resultType=idlist` requests (pageSize up to 1000)
 * until (page-1)*limit records are skipped, then fetches the wanted page with resultType=core.
 * Cursors are independent of resultType (the recorded idlist, lite and core "cancer" pages return
 * the same nextCursorMark). Skipping is capped at 10 requests (results up to #10,000): beyond
 * that → ProviderError `unavailable`. Past the last hit → no studies, totalCount = hitCount.
 */
export const europepmc: SearchProvider = {
  id: "europepmc",
  label: "Europe PMC",
  requiresApiKey: false,
  async search(deps, params) {
    const pageSize = Math.min(params.limit, MAX_PAGE_SIZE);
    let toSkip = (params.page - 1) * params.limit;
    let cursor = "*";
    let requests = 0;
    while (toSkip > 0) {
      if (requests >= MAX_SKIP_REQUESTS) {
        throw new ProviderError("europepmc", "unavailable", "Europe PMC paging is limited to the first 10,000 results");
      }
      const size = Math.min(toSkip, MAX_PAGE_SIZE);
      const page = await fetchJson("europepmc", deps, europePmcSearchUrl(deps, params, "idlist", size, cursor));
      requests += 1;
      const hitCount = isRecord(page) ? count(page.hitCount) : null;
      if (hitCount === null)
        throw new ProviderError("europepmc", "parse", "expected a Europe PMC search response with hitCount");
      const next = isRecord(page) ? str(page.nextCursorMark) : null;
      const received = arr(isRecord(page) && isRecord(page.resultList) ? page.resultList.result : undefined).length;
      if (!next || next === cursor || received < size) return { studies: [], totalCount: hitCount };
      cursor = next;
      toSkip -= size;
    }
    const json = await fetchJson("europepmc", deps, europePmcSearchUrl(deps, params, "core", pageSize, cursor));
    return normaliseEuropePmcSearch(json, { strict: true });
  },
};
