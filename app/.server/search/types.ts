import type { SearchFilters } from "./filters";

/**
 * Shared shapes for the literature-search layer: one provider module per database behind
 * {@link SearchProvider}, all returning {@link NormalisedStudy} records.
 */

export const PROVIDER_IDS = [
  "pubmed",
  "crossref",
  "europepmc",
  "core",
  "semanticscholar",
  "doaj",
] as const;

export type ProviderId = (typeof PROVIDER_IDS)[number];

/** The spec's study-type classification (SPEC §3 Study.studyType). */
export const STUDY_TYPES = [
  "Clinical Trial",
  "Meta-Analysis",
  "Systematic Review",
  "Observational Study",
  "Research Article",
] as const;

export type StudyType = (typeof STUDY_TYPES)[number];

/**
 * One record from one provider, normalised to the spec's Study fields (SPEC §3) minus the
 * fields that only exist once persisted (id, aiSummary, relevance…).
 */
export interface NormalisedStudy {
  source: ProviderId;
  /** The provider's own identifier (PMID, DOI, Europe PMC id, CORE id, S2 paperId, DOAJ id). */
  sourceId: string;
  title: string;
  /** Plain text: markup (JATS, HTML, MathML) stripped, whitespace collapsed; null when absent. */
  abstract: string | null;
  /** Display names, e.g. "Smith J" or "Jane Smith", in the provider's order. */
  authors: string[];
  journal: string | null;
  /** ISO-8601 prefix: "YYYY", "YYYY-MM" or "YYYY-MM-DD"; null when unknown. */
  publicationDate: string | null;
  pmid: string | null;
  pmcid: string | null;
  /** Lower-case bare DOI ("10.1000/xyz"), no resolver prefix; null when absent. */
  doi: string | null;
  studyType: StudyType;
  /** The provider's raw publication-type labels, kept for later filtering. */
  publicationTypes: string[];
  fullTextAvailable: boolean;
  isOpenAccess: boolean;
  openAccessUrl: string | null;
  citationCount: number | null;
  impactFactor: number | null;
  /** A landing page for the record, when the provider gives one. */
  url: string | null;
}

export interface ProviderSearchParams {
  /** Trimmed, non-empty user query. */
  query: string;
  /** 1-based page number. */
  page: number;
  /** Records per page (1–500). */
  limit: number;
  /**
   * Validated filters (./filters.ts). Providers translate what their query language can express;
   * the search service applies `applyPostFilters` to every result, so a filter means the same everywhere.
   * Absent = no filters.
   */
  filters?: SearchFilters;
}

export interface ProviderResult {
  studies: NormalisedStudy[];
  /** Total hits the provider reports for the query (may exceed what can be paged). */
  totalCount: number;
}

/** Everything a provider needs from the outside world, passed per call (no module state). */
export interface ProviderDeps {
  fetch: typeof fetch;
  /** API root the documented paths hang off, e.g. https://eutils.ncbi.nlm.nih.gov/entrez/eutils */
  baseUrl: string;
  apiKey?: string;
  /** Contact e-mail for polite pools (NCBI email, Crossref mailto, Europe PMC email). */
  email?: string;
  /** NCBI `tool` name. */
  tool?: string;
  signal?: AbortSignal;
  /**
   * Epoch milliseconds by which the provider must have answered. A 429 reply is retried once
   * after its Retry-After wait only when that wait (plus a 200 ms margin) ends before this;
   * absent = no time budget is known, so a 429 is never retried.
   */
  deadline?: number;
  /** Largest answer body read, in bytes (default 16 MiB, UPSTREAM_MAX_BYTES); larger → 'answer too large'. */
  maxBytes?: number;
}

export interface SearchProvider {
  id: ProviderId;
  /** Human label, e.g. "PubMed", "Semantic Scholar". */
  label: string;
  /** Whether the provider can run without further configuration (CORE needs a key). */
  requiresApiKey: boolean;
  search(deps: ProviderDeps, params: ProviderSearchParams): Promise<ProviderResult>;
}

/**
 * A provider call that failed. `kind` tells the fan-out how to report it:
 * `http` (non-OK status), `parse` (body was not the documented shape), `unavailable`
 * (not configured, e.g. CORE without CORE_API_KEY).
 */
export class ProviderError extends Error {
  constructor(
    readonly provider: ProviderId,
    readonly kind: "http" | "parse" | "unavailable",
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}
