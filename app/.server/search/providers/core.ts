/**
 * CORE API v3 `search/works`. Field map: API_NOTES.md §4. Everything CORE indexes is harvested
 * from open repositories, so every record counts as open access.
 */
import { classifyStudyType, normalizeDoi, stripMarkup, toIsoDate } from "../normalize";
import { ProviderError, type NormalizedStudy, type ProviderResult, type SearchProvider } from "../types";
import { arr, buildUrl, collectWindow, count, fetchJson, isRecord, str, uniqueStrings } from "./http";

/** CORE's documented per-request `limit` ceiling (API_NOTES §4, unverified). */
const MAX_LIMIT = 100;

function authorNames(value: unknown): string[] {
  return uniqueStrings(
    arr(value).map((a) => (typeof a === "string" ? str(a) : isRecord(a) ? str(a.name) : null)),
  );
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

function normalizeWork(work: unknown, shape: "v2" | "v3"): NormalizedStudy | null {
  if (!isRecord(work)) return null;
  const title = stripMarkup(str(work.title) ?? "");
  const id = str(work.id);
  if (!title || !id) return null;
  const downloadLinks = arr(work.links)
    .filter((l) => isRecord(l) && (l.type === "download" || l.type === "reader"))
    .map((l) => (isRecord(l) ? l.url : null));
  const openAccessUrl = firstUrl(work.downloadUrl, downloadLinks, work.sourceFulltextUrls, work.fullTextIdentifier, work.urls);
  const types = uniqueStrings([str(work.documentType), ...arr(work.types).map(str)]);
  const date =
    toIsoDate(str(work.publishedDate)) ?? toIsoDate(str(work.datePublished)) ?? toIsoDate(str(work.yearPublished) ?? str(work.year));
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
    doi: normalizeDoi(str(work.doi)),
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
 * Records without id/title are skipped. Errors: anything else → ProviderError `parse`.
 */
export function normalizeCoreSearch(json: unknown): ProviderResult {
  if (Array.isArray(json) && json.length > 0 && json.every(isV2Envelope)) {
    const parts = json.map(normalizeCoreSearch);
    return {
      studies: parts.flatMap((p) => p.studies),
      totalCount: parts.reduce((sum, p) => sum + p.totalCount, 0),
    };
  }
  if (isRecord(json) && Array.isArray(json.results)) {
    const studies = json.results.map((w) => normalizeWork(w, "v3")).filter((s): s is NormalizedStudy => s !== null);
    return { studies, totalCount: count(json.totalHits) ?? studies.length };
  }
  if (isRecord(json) && typeof json.status === "string" && ("totalHits" in json || isRecord(json.data))) {
    const records = isRecord(json.data) ? [json.data] : arr(json.data).map((hit) => (isRecord(hit) && isRecord(hit._source) ? hit._source : hit));
    const studies = records.map((w) => normalizeWork(w, "v2")).filter((s): s is NormalizedStudy => s !== null);
    return { studies, totalCount: count(json.totalHits) ?? studies.length };
  }
  throw new ProviderError("core", "parse", "expected a CORE search response (results[] or data[])");
}

/**
 * CORE search: GET `${baseUrl}/search/works/?q=&limit=&offset=` with `Authorization: Bearer`.
 * Windows larger than 100 are fetched in sequential chunks of 100.
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
      const url = buildUrl(deps.baseUrl, "/search/works/", { q: params.query, limit: size, offset });
      const json = await fetchJson("core", deps, url, { headers: { authorization: `Bearer ${apiKey}` } });
      return normalizeCoreSearch(json);
    });
  },
};
