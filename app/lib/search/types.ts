import type { Citation } from "../grounding";

/**
 * The literature search's wire types, shared by the server (app/.server/search: providers,
 * fan-out, filters, the search service) and the browser (search page, results, stored searches):
 * the normalised record every provider returns, the SPEC §9 filters, a study as the API returns
 * it, and the response and per-database stream events of GET /api/search.
 */

export const PROVIDER_IDS = ["pubmed", "crossref", "europepmc", "core", "semanticscholar", "doaj"] as const;

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

/** SPEC §9 filter values. */
export const DATE_RANGES = ["any", "last_year", "last_5_years", "last_10_years", "custom"] as const;
export const STUDY_TYPE_FILTERS = [
  "all",
  "clinical_trial",
  "meta_analysis",
  "systematic_review",
  "observational",
] as const;
export const JOURNAL_IMPACTS = ["any", "high", "medium", "low"] as const;

export type DateRange = (typeof DATE_RANGES)[number];
export type StudyTypeFilter = (typeof STUDY_TYPE_FILTERS)[number];
export type JournalImpact = (typeof JOURNAL_IMPACTS)[number];

/**
 * Search filters after validation, with the date range resolved to a concrete window so that
 * providers never read the clock. Dates are inclusive ISO calendar dates (YYYY-MM-DD).
 */
export interface SearchFilters {
  dateRange: DateRange;
  dateFrom: string | null;
  dateTo: string | null;
  studyType: StudyTypeFilter;
  /** high: impact > 10; medium: 5–10; low: < 5 (SPEC §9). */
  journalImpact: JournalImpact;
  /** fullTextOnly=free_only: only records with a free full text (open access). */
  fullTextOnly: boolean;
  /** hasAbstract=required: whitespace-collapsed abstract longer than 10 characters. */
  hasAbstract: boolean;
}

export type ProviderStatus = "ok" | "failed" | "timeout" | "unavailable";

/** How one database fared in one search (reported to the client as `providers[id]`). */
export interface ProviderReport {
  status: ProviderStatus;
  /** Records this provider contributed after filtering (0 unless ok). */
  count: number;
  /** Hits the provider reports in total for the query: PRISMA "records identified" (0 unless ok). */
  totalCount: number;
  /** Wall time of the provider call in milliseconds. */
  ms: number;
  /** True when the answer came from the search cache. */
  cached: boolean;
  /** Human-readable reason when status is not ok. */
  error: string | null;
}

/** The search results shape of SPEC §3 plus per-provider reports. */
export interface SearchResponse {
  studies: ApiStudy[];
  totalCount: number;
  page: number;
  limit: number;
  totalPages: number;
  source: ProviderId | "multi";
  message: string;
  serviceUnavailable: boolean;
  providers: Partial<Record<ProviderId, ProviderReport>>;
  /** Records merged away as duplicates across (and within) databases: PRISMA "duplicates removed". */
  duplicatesRemoved: number;
  /** The filters as applied (resolved date window included). */
  filters: SearchFilters;
}

/** One database's results, emitted as soon as that database has answered and they have ids. */
export interface ProviderEvent {
  type: "provider";
  provider: ProviderId;
  report: ProviderReport;
  studies: ApiStudy[];
}

/** A study as the API returns it (SPEC §3 Study). */
export interface ApiStudy {
  id: number;
  title: string;
  abstract: string | null;
  authors: string[];
  journal: string | null;
  publicationDate: string | null;
  pmid: string | null;
  pmcid: string | null;
  doi: string | null;
  source: string;
  /** Every database this record was found in during the search that returned it. */
  sources: ProviderId[];
  studyType: string;
  fullTextAvailable: boolean;
  isOpenAccess: boolean;
  openAccessUrl: string | null;
  url: string | null;
  impactFactor: number | null;
  relevanceScore: number | null;
  relevanceReason: string | null;
  aiSummary: string | null;
  /** Name of the model that wrote aiSummary (the UI always shows it). */
  aiSummaryModel: string | null;
  /**
   * The abstract sentences aiSummary rests on (quotes with offsets into the abstract, anchors
   * into aiSummary); null when there is no summary or it was stored without citations.
   */
  aiSummaryCitations: Citation[] | null;
  citationCount: number | null;
  fullTextAnalysis: string | null;
  /**
   * Present only on a record a search showed that has no row yet: the server's seal over it
   * (app/.server/studies/seal.ts). The client sends the study with its seal to POST
   * /api/studies/store before its first action on it.
   */
  seal?: string;
}
