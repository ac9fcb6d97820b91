import type { SearchResponse } from "~/lib/search/types";
import { toFormState, type SearchFormState } from "~/lib/search-params";

/**
 * The last search, kept in localStorage so /search comes back as it was (SPEC §4 Search): the
 * form, the page and the results. A new search stores page 1 with no results, then its results.
 * Every function here swallows storage failures (private mode, quota, corrupt JSON).
 */

export const SEARCH_STATE_KEY = "metamind:search-state:v1";

/** Results larger than this (serialised characters) are not stored; the form and page are. */
export const MAX_STORED_RESULTS_CHARS = 2_000_000;

export interface StoredSearchState {
  form: SearchFormState;
  page: number;
  results: SearchResponse | null;
}

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch (error) {
    console.warn("localStorage is unavailable", error);
    return null;
  }
}

function write(store: Storage, value: unknown): boolean {
  try {
    store.setItem(SEARCH_STATE_KEY, JSON.stringify(value));
    return true;
  } catch (error) {
    console.warn("Could not store the search state", error);
    return false;
  }
}

export function saveSearchState(state: { form: SearchFormState; page: number; results?: SearchResponse | null }): void {
  const store = storage();
  if (!store) return;
  const base = { form: state.form, page: state.page };
  let results: string | null = null;
  if (state.results) {
    try {
      results = JSON.stringify(state.results);
    } catch (error) {
      console.warn("Search results are not serialisable; storing the form only", error);
    }
  }
  if (results !== null && results.length <= MAX_STORED_RESULTS_CHARS) {
    if (write(store, { ...base, results: state.results })) return;
  }
  write(store, { ...base, results: null });
}

function isSearchResponse(value: unknown): value is SearchResponse {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Partial<SearchResponse>;
  return Array.isArray(r.studies) && typeof r.totalPages === "number" && typeof r.totalCount === "number";
}

/** The stored search, or null when there is none or it cannot be read. */
export function loadSearchState(): StoredSearchState | null {
  const store = storage();
  if (!store) return null;
  let parsed: unknown;
  try {
    const raw = store.getItem(SEARCH_STATE_KEY);
    if (!raw) return null;
    parsed = JSON.parse(raw);
  } catch (error) {
    console.warn("Ignoring an unreadable stored search", error);
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const { form, page, results } = parsed as Record<string, unknown>;
  if (typeof form !== "object" || form === null) return null;
  return {
    form: toFormState(form as Record<string, unknown>),
    page: typeof page === "number" && Number.isInteger(page) && page > 0 ? page : 1,
    results: isSearchResponse(results) ? results : null,
  };
}

export function clearSearchState(): void {
  try {
    storage()?.removeItem(SEARCH_STATE_KEY);
  } catch (error) {
    console.warn("Could not clear the stored search", error);
  }
}
