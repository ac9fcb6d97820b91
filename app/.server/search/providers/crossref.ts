/**
 * Crossref REST API `/works` search. Field map: fixtures/providers/API_NOTES.md §2.
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
import { arr, assertUsableRecords, count, fetchJson, buildUrl, isRecord, str, uniqueStrings } from "./http";

/** Crossref's `rows` ceiling per request (API_NOTES §2). */
const MAX_ROWS = 1000;

function firstString(value: unknown): string | null {
  for (const item of arr(value)) {
    const s = str(item);
    if (s) return s;
  }
  return null;
}

/** First of published → published-print → published-online → issued with a usable year. */
function crossrefDate(item: Record<string, unknown>): string | null {
  for (const key of ["published", "published-print", "published-online", "issued"]) {
    const parts = arr(isRecord(item[key]) ? (item[key] as Record<string, unknown>)["date-parts"] : undefined)[0];
    if (!Array.isArray(parts)) continue;
    const [y, m, d] = parts as unknown[];
    const iso = toIsoDate(
      typeof y === "number" || typeof y === "string" ? y : null,
      typeof m === "number" || typeof m === "string" ? m : null,
      typeof d === "number" || typeof d === "string" ? d : null,
    );
    if (iso) return iso;
  }
  return null;
}

function authorName(author: unknown): string | null {
  if (!isRecord(author)) return null;
  const family = str(author.family);
  const given = str(author.given);
  if (family) return given ? `${given} ${family}` : family;
  return str(author.name);
}

/**
 * Open access when any `license[]` URL is a Creative Commons licence (Crossref has no OA flag;
 * API_NOTES §2). Embargo start dates are not checked.
 */
function isCreativeCommons(item: Record<string, unknown>): boolean {
  return arr(item.license).some((lic) => isRecord(lic) && /creativecommons\.org\//i.test(str(lic.URL) ?? ""));
}

/**
 * Best free full-text link for an OA work: a PDF, then an HTML `link[]` (skipping Elsevier's
 * key-only text-mining API), else the DOI resolver.
 */
function openAccessLink(item: Record<string, unknown>, doi: string | null): string | null {
  const links = arr(item.link).filter(isRecord);
  const usable = (type: string) =>
    links.find((l) => {
      const url = str(l.URL);
      return url && (str(l["content-type"]) ?? "").startsWith(type) && !/\/\/api\.elsevier\.com\//i.test(url);
    });
  const best = usable("application/pdf") ?? usable("text/html");
  return str(best?.URL) ?? (doi ? `https://doi.org/${doi}` : null);
}

/** Preprints (`posted-content`) have no container-title; the server is `institution[0].name` ("bioRxiv"). */
function preprintServer(item: Record<string, unknown>): string | null {
  const institution = arr(item.institution).find(isRecord);
  return item.type === "posted-content" && institution ? str(institution.name) : null;
}

function normaliseItem(item: unknown): NormalisedStudy | null {
  if (!isRecord(item)) return null;
  const title = stripMarkup(firstString(item.title) ?? "");
  if (!title) return null;
  const doi = normaliseDoi(str(item.DOI));
  const abstract = stripMarkup(str(item.abstract) ?? "") || null;
  const publicationTypes = uniqueStrings([str(item.type), str(item.subtype)]);
  const isOpenAccess = isCreativeCommons(item);
  const openAccessUrl = isOpenAccess ? openAccessLink(item, doi) : null;
  return {
    source: "crossref",
    sourceId: doi ?? str(item.URL) ?? title,
    title,
    abstract,
    authors: arr(item.author)
      .map(authorName)
      .filter((n): n is string => n !== null),
    journal: firstString(item["container-title"]) ?? preprintServer(item),
    publicationDate: crossrefDate(item),
    pmid: null,
    pmcid: null,
    doi,
    studyType: classifyStudyType(publicationTypes, title),
    publicationTypes,
    fullTextAvailable: openAccessUrl !== null,
    isOpenAccess,
    openAccessUrl,
    citationCount: count(item["is-referenced-by-count"]),
    impactFactor: null,
    url: doi ? `https://doi.org/${doi}` : str(item.URL),
  };
}

/**
 * Normalises a Crossref `/works` response: `{status:"ok", message-type:"work-list",
 * message:{total-results, items[]}}`; a single `/works/{doi}` reply (`message-type:"work"`) is
 * accepted as a one-item list. Items without a title are skipped.
 * Errors: any other body (e.g. `{status:"failed",…}`) → ProviderError `parse`. With `strict` (the search path, which asks for full records), an answer whose records
 * are all unreadable → ProviderError `parse` (assertUsableRecords).
 */
export function normaliseCrossrefWorks(json: unknown, { strict = false }: { strict?: boolean } = {}): ProviderResult {
  if (!isRecord(json) || !isRecord(json.message) || json.status === "failed" || json.status === "error") {
    throw new ProviderError("crossref", "parse", "expected a Crossref works message");
  }
  const message = json.message;
  if (json["message-type"] === "work") {
    const study = normaliseItem(message);
    return { studies: study ? [study] : [], totalCount: study ? 1 : 0 };
  }
  if (!Array.isArray(message.items)) throw new ProviderError("crossref", "parse", "Crossref message without items[]");
  const studies = message.items.map(normaliseItem).filter((s): s is NormalisedStudy => s !== null);
  if (strict) assertUsableRecords("crossref", message.items.length, studies.length);
  return { studies, totalCount: count(message["total-results"]) ?? studies.length };
}

/**
 * The `filter` parameter for the filters Crossref can express (API_NOTES §2; Crossref REST API
 * docs, "Filter names"), comma-separated in this order, or null when none applies:
 * - `from-pub-date:YYYY-MM-DD` / `until-pub-date:YYYY-MM-DD` for the date window (either end may
 *   be open);
 * - `has-license:true` for fullTextOnly: Crossref has no free-full-text filter, but this provider
 *   only counts a work as open access when its `license[]` holds a Creative Commons URL, so a
 *   licence is a necessary condition; applyPostFilters keeps only the CC-licensed ones;
 * - `has-abstract:true` for hasAbstract.
 * studyType (Crossref `type` is only journal-article, posted-content…) and journalImpact are left
 * to applyPostFilters.
 */
export function crossrefFilter(filters: SearchFilters = NO_FILTERS): string | null {
  const parts: string[] = [];
  if (filters.dateFrom !== null) parts.push(`from-pub-date:${filters.dateFrom}`);
  if (filters.dateTo !== null) parts.push(`until-pub-date:${filters.dateTo}`);
  if (filters.fullTextOnly) parts.push("has-license:true");
  if (filters.hasAbstract) parts.push("has-abstract:true");
  return parts.length > 0 ? parts.join(",") : null;
}

/**
 * The search URL: `${baseUrl}/works?query=&filter=<crossrefFilter>&rows=&offset=&mailto=`, with
 * rows = min(limit, 1000), offset = (page-1)*limit, `filter` only when a filter applies and
 * `mailto` (polite pool) only with an e-mail.
 */
export function crossrefSearchUrl(baseUrl: string, params: ProviderSearchParams, email?: string): string {
  return buildUrl(baseUrl, "/works", {
    query: params.query,
    filter: crossrefFilter(params.filters),
    rows: Math.min(params.limit, MAX_ROWS),
    offset: (params.page - 1) * params.limit,
    mailto: email,
  });
}

/**
 * Crossref search: GET {@link crossrefSearchUrl} (polite pool when deps.email is set). Crossref
 * answers offsets up to about 10,000 only.
 */
export const crossref: SearchProvider = {
  id: "crossref",
  label: "Crossref",
  requiresApiKey: false,
  async search(deps, params) {
    return normaliseCrossrefWorks(
      await fetchJson("crossref", deps, crossrefSearchUrl(deps.baseUrl, params, deps.email)),
      { strict: true },
    );
  },
};
