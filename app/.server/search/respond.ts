import type { AppLoadContext } from "@remix-run/cloudflare";
import { getUser } from "../auth/session";
import { AppError, handleApi } from "../http/errors";
import { searchLines } from "../http/ndjson-lines";
import {
  assertSearchAllowed,
  isSearchPageRequest,
  parseSearchRequest,
  prefetchCachedSearches,
  searchStudies,
} from "./service";
import type { SearchResponse } from "./service";
import type { ProviderId } from "./types";

export const NDJSON = "application/x-ndjson";

/**
 * Answers a search request (GET /api/search and /api/search/{provider}).
 *
 * Only requests from the search page itself (isSearchPageRequest) are recorded in the user's
 * history. Plain requests get the SPEC §3 results as JSON. With `Accept: application/x-ndjson` the answer
 * streams one JSON object per line as the search progresses:
 * `{"type":"provider", provider, report, studies}` as each database answers (its records with
 * their stable ids), then `{"type":"done", results}` with the merged de-duplicated page, or
 * `{"type":"error", status, error, message, ...}`. Validation and plan errors are still plain
 * 4xx JSON answers, before any streaming starts.
 */
export async function respondToSearch(
  request: Request,
  context: AppLoadContext,
  fixedProvider?: ProviderId,
): Promise<Response> {
  return handleApi(async () => {
    const app = context.app;
    const input = parseSearchRequest(new URL(request.url).searchParams, fixedProvider);
    const cached = prefetchCachedSearches(app, input);
    const user = await getUser(app, request);
    assertSearchAllowed(user, input.providers);
    // Bookkeeping (cache writes, history) runs after the answer is out, off the critical path.
    const deferred: (() => Promise<unknown>)[] = [];
    const defer = (task: () => Promise<unknown>) => void deferred.push(task);
    const runDeferred = () => Promise.all(deferred.map((task) => task()));
    const recordHistory = isSearchPageRequest(request);
    if (!(request.headers.get("Accept") ?? "").includes(NDJSON)) {
      const results = await searchStudies(app, user, input, { cached, defer, recordHistory });
      app.requestLog?.set({ providers: providerStatuses(results) });
      const response = Response.json(results, { headers: { "Cache-Control": "no-store" } });
      app.waitUntil(runDeferred());
      return response;
    }

    const encoder = new TextEncoder();
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const logged = app.requestLog?.defer();
    const lines = searchLines(
      input.providers.length,
      (chunk) => void writer.write(encoder.encode(chunk)).catch(() => {}),
    );
    const send = lines.send;
    const work = searchStudies(app, user, input, { cached, defer, recordHistory, onProvider: send })
      .then((results) => {
        app.requestLog?.set({ providers: providerStatuses(results) });
        return send({ type: "done", results });
      })
      .catch((error: unknown) => {
        app.requestLog?.set({ streamError: error instanceof AppError ? error.code : "INTERNAL" });
        if (error instanceof AppError) {
          return send({
            type: "error",
            status: error.status,
            error: error.code,
            message: error.message,
            ...error.extra,
          });
        }
        console.error("streamed search failed", error);
        return send({
          type: "error",
          status: 500,
          error: "INTERNAL",
          message: "Something went wrong. Please try again.",
        });
      })
      .finally(() => {
        lines.flush();
        return writer.close().catch(() => {});
      })
      // One macrotask first, so the runtime flushes the last line before the log line and the
      // bookkeeping's CPU work.
      .then(() => new Promise((resolve) => setTimeout(resolve, 0)))
      .then(() => {
        logged?.();
        return runDeferred();
      });
    app.waitUntil(work);
    return new Response(readable, {
      headers: {
        "Content-Type": `${NDJSON}; charset=utf-8`,
        "Cache-Control": "no-store",
        "Content-Encoding": "identity",
      },
    });
  });
}

/** Each database's outcome for the request log, e.g. { pubmed: "ok", core: "timeout" }. */
function providerStatuses(results: Pick<SearchResponse, "providers">): Record<string, string> {
  return Object.fromEntries(Object.entries(results.providers).map(([id, report]) => [id, report?.status ?? "unknown"]));
}
