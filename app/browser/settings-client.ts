import { OfflineQueuedError, queuedReplyOf, queueOwnerHeaders } from "~/browser/offline-sync";
import { clearSearchState } from "~/browser/search-storage";

/** SPEC §3 User settings on the client. */
export interface SettingsState {
  emailNotifications: boolean;
  defaultSearchProvider: string;
  defaultExportFormat: string;
  searchResultsPerPage: number;
  saveSearchHistory: boolean;
}

/** Settings whose change clears the stored search (SPEC §4 Settings). */
const SEARCH_SHAPING: ReadonlySet<keyof SettingsState> = new Set(["defaultSearchProvider", "searchResultsPerPage"]);

/**
 * PATCHes some settings. When the default database or the results per page change, the stored
 * search (params, page, results) is cleared so /search starts from the new defaults.
 * Returns the saved settings; throws OfflineQueuedError when the service worker queued the change
 * (offline: settings-sync sends it on reconnect), Error("{status}: {body}") on failure.
 */
export async function saveSettings(
  patch: Partial<SettingsState>,
  fetcher: typeof fetch = fetch,
): Promise<SettingsState> {
  if (Object.keys(patch).some((k) => SEARCH_SHAPING.has(k as keyof SettingsState))) clearSearchState();
  const res = await fetcher("/api/user/settings", {
    method: "PATCH",
    credentials: "include",
    headers: { "Content-Type": "application/json", ...queueOwnerHeaders() },
    body: JSON.stringify(patch),
  });
  const queued = await queuedReplyOf(res);
  if (queued) throw new OfflineQueuedError(queued);
  if (!res.ok) throw new Error(`${res.status}: ${(await res.text()) || res.statusText}`);
  return (await res.json()) as SettingsState;
}

/** SPEC §2 Account Information: the first name, else the part of the e-mail before the @. */
export function displayName(user: { firstName: string | null; email: string }): string {
  return user.firstName?.trim() || user.email.split("@")[0]!;
}
