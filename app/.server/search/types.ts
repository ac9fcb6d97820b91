import type { SearchFilters } from "./filters";
import type { NormalisedStudy, ProviderId } from "../../lib/search/types";

/**
 * Shared shapes for the literature-search layer: one provider module per database behind
 * {@link SearchProvider}, all returning {@link NormalisedStudy} records.
 */

export {
  PROVIDER_IDS,
  STUDY_TYPES,
  type NormalisedStudy,
  type ProviderId,
  type StudyType,
} from "../../lib/search/types";

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
