/**
 * PubMed via NCBI E-utilities: esearch.fcgi (ids + total) then efetch.fcgi by POST (PubMed XML).
 * Field map and quirks: fixtures/providers/API_NOTES.md §1.
 */
import { NO_FILTERS, type SearchFilters, type StudyTypeFilter } from "../filters";
import { classifyStudyType, decodeEntities, normaliseDoi, stripMarkup, toIsoDate } from "~/lib/search/normalize";
import {
  ProviderError,
  type NormalisedStudy,
  type ProviderDeps,
  type ProviderResult,
  type ProviderSearchParams,
  type SearchProvider,
} from "../types";
import { arr, assertUsableRecords, bodySnippet, buildUrl, fetchText, isRecord, parseJson, uniqueStrings } from "./http";
import { parseXmlTree, type XmlTreeOptions } from "./xml-tree";

/** NCBI `tool` value when the app does not pass one. */
export const DEFAULT_NCBI_TOOL = "metamind";

/**
 * How E-utilities XML is read: the elements that are always lists, and the stop tags — titles
 * and abstracts kept as raw inner XML so inline `<i>`, `<sup>`, `<b>` and MathML survive and go
 * through {@link stripMarkup}. Entities are decoded by our own {@link decodeEntities} (the reader
 * leaves them as written) so numeric references such as `&#x207b;` work.
 */
export const PUBMED_XML: XmlTreeOptions = {
  arrayTags: new Set([
    "PubmedArticle",
    "PubmedBookArticle",
    "Author",
    "AbstractText",
    "ArticleId",
    "ELocationID",
    "PublicationType",
    "Id",
    "ArticleDate",
  ]),
  stopTags: new Set(["ArticleTitle", "VernacularTitle", "AbstractText"]),
};

/** The document's elements as objects (see parseXmlTree); the caller checks for its root element. */
function parseXml(xml: string): Record<string, unknown> {
  return parseXmlTree(xml, PUBMED_XML);
}

/** Text content of a parsed node ("#text" of an element with attributes), entities decoded. */
function text(node: unknown): string {
  if (typeof node === "string") return decodeEntities(node).trim();
  if (typeof node === "number") return String(node);
  if (isRecord(node)) return text(node["#text"]);
  return "";
}

function attr(node: unknown, name: string): string {
  return isRecord(node) && typeof node[`@_${name}`] === "string" ? (node[`@_${name}`] as string) : "";
}

function child(node: unknown, ...path: string[]): unknown {
  let current = node;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** Raw inner XML of a stop node (string, or "#text" when the element has attributes). */
function rawMarkup(node: unknown): string {
  if (typeof node === "string") return node;
  if (isRecord(node) && typeof node["#text"] === "string") return node["#text"];
  return "";
}

/**
 * Parses an esearch response (retmode=xml, or the JSON `esearchresult` form) into the total hit
 * count and the ids of the requested page. Errors: an `<ERROR>` reply → ProviderError `http`;
 * anything that is not an eSearchResult → ProviderError `parse`.
 */
export function parsePubmedEsearch(body: string): { count: number; ids: string[] } {
  const trimmed = body.trimStart();
  if (trimmed.startsWith("{")) {
    const json = parseJson("pubmed", body);
    const result = child(json, "esearchresult");
    if (!isRecord(result)) throw new ProviderError("pubmed", "parse", "esearch JSON without esearchresult");
    if (typeof result.ERROR === "string") throw new ProviderError("pubmed", "http", `esearch: ${result.ERROR}`);
    if (!/^\d+$/.test(String(result.count ?? "")))
      throw new ProviderError("pubmed", "parse", "esearch JSON without a count");
    const ids = arr(result.idlist)
      .map((id) => String(id))
      .filter((id) => /^\d+$/.test(id));
    return { count: Number(result.count) || 0, ids };
  }
  const doc = parseXml(body);
  const result = doc.eSearchResult;
  if (!isRecord(result)) {
    throw new ProviderError(
      "pubmed",
      "parse",
      `expected eSearchResult XML, got: ${bodySnippet(body, 120) || "empty body"}`,
    );
  }
  const error = text(result.ERROR);
  if (error && result.Count === undefined) throw new ProviderError("pubmed", "http", `esearch: ${error}`);
  if (!/^\d+$/.test(text(result.Count))) throw new ProviderError("pubmed", "parse", "esearch XML without a Count");
  const ids = arr(child(result, "IdList", "Id"))
    .map(text)
    .filter((id) => /^\d+$/.test(id));
  return { count: Number(text(result.Count)) || 0, ids };
}

function authorName(author: unknown): string | null {
  if (attr(author, "ValidYN") === "N") return null;
  const collective = text(child(author, "CollectiveName"));
  if (collective) return collective;
  const last = text(child(author, "LastName"));
  const initials = text(child(author, "Initials"));
  const fore = text(child(author, "ForeName"));
  if (!last) return fore || null;
  return `${last} ${initials || fore}`.trim();
}

function abstractText(article: unknown): string | null {
  const sections = arr(child(article, "Abstract", "AbstractText"))
    .map((section) => {
      const body = stripMarkup(rawMarkup(section));
      const label = attr(section, "Label").trim();
      if (!body) return "";
      return label ? `${label}: ${body}` : body;
    })
    .filter((s) => s !== "");
  return sections.length > 0 ? sections.join("\n\n") : null;
}

function dateParts(node: unknown): string | null {
  if (!isRecord(node)) return null;
  const medline = text(node.MedlineDate);
  if (medline) return toIsoDate(medline);
  return toIsoDate(text(node.Year) || null, text(node.Month) || null, text(node.Day) || null);
}

/**
 * Journal-issue PubDate; when that has no month (e.g. "2018") and the electronic ArticleDate
 * falls in the same year, the more precise ArticleDate is used.
 */
function publicationDate(article: unknown): string | null {
  const issue = dateParts(child(article, "Journal", "JournalIssue", "PubDate"));
  const electronic =
    arr(child(article, "ArticleDate"))
      .map(dateParts)
      .find((d) => d !== null) ?? null;
  if (!issue) return electronic;
  if (issue.length === 4 && electronic && electronic.startsWith(issue)) return electronic;
  return issue;
}

function normaliseArticle(entry: unknown): NormalisedStudy | null {
  const citation = child(entry, "MedlineCitation");
  const article = child(citation, "Article");
  const pmid = text(child(citation, "PMID"));
  if (!pmid || !isRecord(article)) return null;
  const title = stripMarkup(rawMarkup(article.ArticleTitle)) || stripMarkup(rawMarkup(article.VernacularTitle));
  if (!title) return null;

  // Only the article's own PubmedData/ArticleIdList: ReferenceList entries carry ArticleIds too.
  const ids = arr(child(entry, "PubmedData", "ArticleIdList", "ArticleId"));
  const idOf = (type: string) => ids.find((id) => attr(id, "IdType") === type);
  const elocationDoi = arr(article.ELocationID).find(
    (loc) => attr(loc, "EIdType") === "doi" && attr(loc, "ValidYN") !== "N",
  );
  const doi = normaliseDoi(text(idOf("doi"))) ?? normaliseDoi(text(elocationDoi));
  const pmcRaw = text(idOf("pmc"));
  const pmcid = /^PMC\d+$/i.test(pmcRaw) ? pmcRaw.toUpperCase() : null;
  const publicationTypes = uniqueStrings(arr(child(article, "PublicationTypeList", "PublicationType")).map(text));
  const journal =
    text(child(article, "Journal", "Title")) ||
    text(child(article, "Journal", "ISOAbbreviation")) ||
    text(child(citation, "MedlineJournalInfo", "MedlineTA")) ||
    null;
  const openAccessUrl = pmcid ? `https://www.ncbi.nlm.nih.gov/pmc/articles/${pmcid}/` : null;

  return {
    source: "pubmed",
    sourceId: pmid,
    title,
    abstract: abstractText(article),
    authors: arr(child(article, "AuthorList", "Author"))
      .map(authorName)
      .filter((name): name is string => name !== null),
    journal,
    publicationDate: publicationDate(article),
    pmid,
    pmcid,
    doi,
    studyType: classifyStudyType(publicationTypes, title),
    publicationTypes,
    fullTextAvailable: pmcid !== null,
    isOpenAccess: pmcid !== null,
    openAccessUrl,
    citationCount: null,
    impactFactor: null,
    url: `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`,
  };
}

/**
 * Normalises an efetch PubMed XML document (`<PubmedArticleSet>`). `totalCount` is the number of
 * normalised articles (efetch has no hit total; the provider takes it from esearch).
 * Book records (PubmedBookArticle) and articles without PMID/title are skipped.
 * Errors: a body without a PubmedArticleSet root (HTML page, garbage) → ProviderError `parse`. With `strict` (the search path, which asks for full records), an answer whose records
 * are all unreadable → ProviderError `parse` (assertUsableRecords).
 */
export function normalisePubmedXml(xml: string, { strict = false }: { strict?: boolean } = {}): ProviderResult {
  const doc = parseXml(xml);
  const set = doc.PubmedArticleSet;
  if (set === undefined || (set !== "" && !isRecord(set))) {
    throw new ProviderError(
      "pubmed",
      "parse",
      `expected PubmedArticleSet XML, got: ${bodySnippet(xml, 120) || "empty body"}`,
    );
  }
  const articles = arr(child(set, "PubmedArticle"));
  const studies = articles.map(normaliseArticle).filter((s): s is NormalisedStudy => s !== null);
  if (strict) assertUsableRecords("pubmed", articles.length, studies.length);
  return { studies, totalCount: studies.length };
}

/**
 * PubMed publication-type clauses per studyType filter ([pt] tags, PubMed Help "Publication
 * Type"). [pt] searches include the narrower types (e.g. Clinical Trial, Phase III).
 */
export const PUBMED_STUDY_TYPE_CLAUSES: Record<Exclude<StudyTypeFilter, "all">, string> = {
  clinical_trial: "(clinical trial[pt] OR randomized controlled trial[pt])",
  meta_analysis: "meta-analysis[pt]",
  systematic_review: "systematic review[pt]",
  observational: "observational study[pt]",
};

/**
 * The esearch `term` for a query and filters, in PubMed's search syntax (API_NOTES §1 field tags;
 * PubMed Help "Search Field Descriptions and Tags"). Without upstream filters the query is sent
 * unchanged; otherwise it is wrapped in parentheses and ANDed with, in this order:
 * - date window: `("YYYY/MM/DD"[dp] : "YYYY/MM/DD"[dp])` — [dp] is the publication date (print
 *   or electronic); an open end becomes 1000/01/01 or 3000/12/31;
 * - study type: {@link PUBMED_STUDY_TYPE_CLAUSES};
 * - fullTextOnly: `free full text[sb]` (free full text at PMC or the publisher);
 * - hasAbstract: `hasabstract`.
 * journalImpact has no PubMed equivalent and is left to applyPostFilters, which also narrows the
 * upstream clauses to the exact spec meaning (e.g. a free-full-text record without a PMCID has no
 * openAccessUrl here and is dropped by fullTextOnly).
 */
export function buildPubmedTerm(query: string, filters: SearchFilters = NO_FILTERS): string {
  const clauses: string[] = [];
  if (filters.dateFrom !== null || filters.dateTo !== null) {
    const from = (filters.dateFrom ?? "1000-01-01").replace(/-/g, "/");
    const to = (filters.dateTo ?? "3000-12-31").replace(/-/g, "/");
    clauses.push(`("${from}"[dp] : "${to}"[dp])`);
  }
  if (filters.studyType !== "all") clauses.push(PUBMED_STUDY_TYPE_CLAUSES[filters.studyType]);
  if (filters.fullTextOnly) clauses.push("free full text[sb]");
  if (filters.hasAbstract) clauses.push("hasabstract");
  return clauses.length === 0 ? query : [`(${query})`, ...clauses].join(" AND ");
}

function ncbiCommon(deps: ProviderDeps): Record<string, string | undefined> {
  return { tool: deps.tool || DEFAULT_NCBI_TOOL, email: deps.email, api_key: deps.apiKey };
}

/**
 * The esearch URL: `${baseUrl}/esearch.fcgi?db=pubmed&term=<buildPubmedTerm>&retstart=&retmax=
 * &retmode=xml&tool=&email=&api_key=` with retstart = (page-1)*limit and retmax = limit.
 */
export function pubmedEsearchUrl(deps: ProviderDeps, params: ProviderSearchParams): string {
  return buildUrl(deps.baseUrl, "/esearch.fcgi", {
    db: "pubmed",
    term: buildPubmedTerm(params.query, params.filters),
    retstart: (params.page - 1) * params.limit,
    retmax: params.limit,
    retmode: "xml",
    ...ncbiCommon(deps),
  });
}

/**
 * PubMed search: esearch (GET, {@link pubmedEsearchUrl}) then efetch (POST form body, so long id
 * lists never hit the 414 URI limit). `tool`, `email` and `api_key` go on every request. An empty
 * id list returns without calling efetch. Results keep esearch's relevance order; totalCount is
 * esearch's Count (after the upstream filters).
 */
export const pubmed: SearchProvider = {
  id: "pubmed",
  label: "PubMed",
  requiresApiKey: false,
  async search(deps, params) {
    const { count, ids } = parsePubmedEsearch(await fetchText("pubmed", deps, pubmedEsearchUrl(deps, params)));
    if (ids.length === 0) return { studies: [], totalCount: count };

    const form = new URLSearchParams({ db: "pubmed", id: ids.join(","), retmode: "xml" });
    for (const [key, value] of Object.entries(ncbiCommon(deps))) if (value) form.set(key, value);
    const xml = await fetchText("pubmed", deps, buildUrl(deps.baseUrl, "/efetch.fcgi"), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    });
    const order = new Map(ids.map((id, index) => [id, index]));
    const fetched = normalisePubmedXml(xml, { strict: true }).studies;
    if (fetched.length === 0) {
      throw new ProviderError("pubmed", "parse", `efetch returned none of the ${ids.length} requested records`);
    }
    const studies = fetched.sort(
      (a, b) => (order.get(a.sourceId) ?? ids.length) - (order.get(b.sourceId) ?? ids.length),
    );
    return { studies, totalCount: count };
  },
};
