import type { ProviderEvent, SearchResponse } from "~/lib/search/types";
import { queueOwnerHeaders } from "~/browser/offline-sync";
import { SEARCH_PAGE_HEADER, SEARCH_PAGE_HEADER_VALUE } from "~/lib/search-params";
import { noteSealedStudies } from "~/browser/sealed-registry";

/** A failed search, with the server's code and (for 503) the per-database reports. */
export class SearchError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
    readonly body: (Partial<SearchResponse> & { feature?: string; error?: string; message?: string }) | null,
  ) {
    super(message);
    this.name = "SearchError";
  }
}

/**
 * Runs GET /api/search with `Accept: application/x-ndjson` and reports each database's results as
 * they arrive (`onProvider`), resolving with the merged page. Lines are split on "\n" across
 * chunk boundaries. Sends {@link SEARCH_PAGE_HEADER}, so the search goes to the user's history.
 * @throws SearchError for 4xx/5xx answers and streamed error events; AbortError when aborted.
 */
export async function streamSearch(
  params: URLSearchParams,
  { onProvider, signal }: { onProvider?: (event: ProviderEvent) => void; signal?: AbortSignal } = {},
): Promise<SearchResponse> {
  const response = await fetch(`/api/search?${params}`, {
    credentials: "include",
    headers: { Accept: "application/x-ndjson", [SEARCH_PAGE_HEADER]: SEARCH_PAGE_HEADER_VALUE, ...queueOwnerHeaders() },
    signal,
  });
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => null)) as SearchError["body"];
    throw new SearchError(body?.message ?? response.statusText, response.status, body?.error ?? null, body);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let done: SearchResponse | null = null;
  const handle = (line: string) => {
    if (!line.trim()) return;
    const event = JSON.parse(line) as
      | ProviderEvent
      | { type: "done"; results: SearchResponse }
      | ({ type: "error"; status: number; error: string; message: string } & Partial<SearchResponse>);
    if (event.type === "provider") {
      noteSealedStudies(event.studies);
      onProvider?.(event);
    } else if (event.type === "done") {
      noteSealedStudies(event.results.studies);
      done = event.results;
    } else throw new SearchError(event.message, event.status, event.error, event);
  };
  for (;;) {
    const { value, done: finished } = await reader.read();
    if (finished) break;
    buffer += value;
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      handle(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf("\n");
    }
  }
  handle(buffer);
  if (!done) throw new SearchError("The search ended unexpectedly", 502, null, null);
  return done;
}
