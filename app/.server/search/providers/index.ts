/**
 * Registry of the six search providers and their production API roots.
 */
import type { ProviderId, SearchProvider } from "../types";
import { core } from "./core";
import { crossref } from "./crossref";
import { doaj } from "./doaj";
import { europepmc } from "./europepmc";
import { pubmed } from "./pubmed";
import { semanticscholar } from "./semanticscholar";

/** Every provider module, keyed by its id. */
export const PROVIDERS: Record<ProviderId, SearchProvider> = {
  pubmed,
  crossref,
  europepmc,
  core,
  semanticscholar,
  doaj,
};

/**
 * Production API roots (ProviderDeps.baseUrl); providers append their documented paths, e.g.
 * `${DEFAULT_BASE_URLS.pubmed}/esearch.fcgi`. Sources: API_NOTES.md §1–§6.
 */
export const DEFAULT_BASE_URLS: Record<ProviderId, string> = {
  pubmed: "https://eutils.ncbi.nlm.nih.gov/entrez/eutils",
  crossref: "https://api.crossref.org",
  europepmc: "https://www.ebi.ac.uk/europepmc/webservices/rest",
  core: "https://api.core.ac.uk/v3",
  semanticscholar: "https://api.semanticscholar.org/graph/v1",
  doaj: "https://doaj.org/api",
};

export { core, crossref, doaj, europepmc, pubmed, semanticscholar };
export { normaliseCoreSearch } from "./core";
export { normaliseCrossrefWorks } from "./crossref";
export { normaliseDoajSearch } from "./doaj";
export { normaliseEuropePmcSearch } from "./europepmc";
export { normalisePubmedXml, parsePubmedEsearch } from "./pubmed";
export { normaliseSemanticScholar } from "./semanticscholar";
