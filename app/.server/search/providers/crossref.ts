/**
 * Crossref REST API `/works` search. Field map: fixtures/providers/API_NOTES.md §2.
 */
import { classifyStudyType, normalizeDoi, stripMarkup, toIsoDate } from "../normalize";
import { ProviderError, type NormalizedStudy, type ProviderResult, type SearchProvider } from "../types";
import { arr, count, fetchJson, buildUrl, isRecord, str, uniqueStrings } from "./http";

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

function normalizeItem(item: unknown): NormalizedStudy | null {
  if (!isRecord(item)) return null;
  const title = stripMarkup(firstString(item.title) ?? "");
  if (!title) return null;
  const doi = normalizeDoi(str(item.DOI));
  const abstract = stripMarkup(str(item.abstract) ?? "") || null;
  const publicationTypes = uniqueStrings([str(item.type), str(item.subtype)]);
  const isOpenAccess = isCreativeCommons(item);
  const openAccessUrl = isOpenAccess ? openAccessLink(item, doi) : null;
  return {
    source: "crossref",
    sourceId: doi ?? str(item.URL) ?? title,
    title,
    abstract,
    authors: arr(item.author).map(authorName).filter((n): n is string => n !== null),
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
 * Errors: any other body (e.g. `{status:"failed",…}`) → ProviderError `parse`.
 */
export function normalizeCrossrefWorks(json: unknown): ProviderResult {
  if (!isRecord(json) || !isRecord(json.message) || json.status === "failed" || json.status === "error") {
    throw new ProviderError("crossref", "parse", "expected a Crossref works message");
  }
  const message = json.message;
  if (json["message-type"] === "work") {
    const study = normalizeItem(message);
    return { studies: study ? [study] : [], totalCount: study ? 1 : 0 };
  }
  if (!Array.isArray(message.items)) throw new ProviderError("crossref", "parse", "Crossref message without items[]");
  const studies = message.items.map(normalizeItem).filter((s): s is NormalizedStudy => s !== null);
  return { studies, totalCount: count(message["total-results"]) ?? studies.length };
}

/**
 * Crossref search: GET `/works?query=&rows=&offset=&mailto=` (polite pool when deps.email is
 * set). offset = (page-1)*limit; Crossref answers offsets up to about 10,000 only.
 */
export const crossref: SearchProvider = {
  id: "crossref",
  label: "Crossref",
  requiresApiKey: false,
  async search(deps, params) {
    const url = buildUrl(deps.baseUrl, "/works", {
      query: params.query,
      rows: Math.min(params.limit, MAX_ROWS),
      offset: (params.page - 1) * params.limit,
      mailto: deps.email,
    });
    return normalizeCrossrefWorks(await fetchJson("crossref", deps, url));
  },
};
