import { sanitizeFormFields, toPageUrl, toFormState, type SearchFormState } from "~/lib/search-params";

/**
 * The Search History dialog's Reload (SPEC §2): on /search it fires a window event carrying the
 * parameters; elsewhere it parks them in sessionStorage and navigates to /search, whose page
 * picks them up with `consumePendingReload()` on mount.
 */

export const SEARCH_RELOAD_EVENT = "metamind:search-reload";
const PENDING_KEY = "metamind:pending-search-reload";

export type SearchReloadParams = Partial<SearchFormState>;

export function requestSearchReload(params: SearchReloadParams): void {
  if (window.location.pathname.replace(/\/+$/, "") === "/search") {
    window.dispatchEvent(new CustomEvent<SearchReloadParams>(SEARCH_RELOAD_EVENT, { detail: params }));
    return;
  }
  try {
    sessionStorage.setItem(PENDING_KEY, JSON.stringify(params));
  } catch (error) {
    console.warn("sessionStorage is unavailable; reloading the search through the URL", error);
    window.location.assign(toPageUrl(toFormState(params), 1));
    return;
  }
  window.location.assign("/search");
}

/** The parameters of a Reload made from another page, once; null when there is none. */
export function consumePendingReload(): SearchReloadParams | null {
  let raw: string | null;
  try {
    raw = sessionStorage.getItem(PENDING_KEY);
    sessionStorage.removeItem(PENDING_KEY);
  } catch (error) {
    console.warn("sessionStorage is unavailable", error);
    return null;
  }
  if (!raw) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === "object" && parsed !== null ? sanitizeFormFields(parsed as Record<string, unknown>) : null;
  } catch (error) {
    console.warn("Ignoring a malformed pending search reload", error);
    return null;
  }
}

/** Calls `handler` with the (validated) parameters of each Reload made on /search. */
export function onSearchReload(handler: (params: SearchReloadParams) => void): () => void {
  const listener = (event: Event) => {
    const detail = (event as CustomEvent<unknown>).detail;
    if (typeof detail === "object" && detail !== null) handler(sanitizeFormFields(detail as Record<string, unknown>));
  };
  window.addEventListener(SEARCH_RELOAD_EVENT, listener);
  return () => window.removeEventListener(SEARCH_RELOAD_EVENT, listener);
}
