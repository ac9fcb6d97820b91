/**
 * Access to the shared recorded provider responses (../shared/fixtures/providers relative to the
 * repository root). Node only. Fixtures are never copied into the project; tests that need them
 * skip when the folder is absent (see {@link hasSharedFixtures}).
 * Erasable TypeScript only: also imported by tests/mocks/replay-server.ts under plain Node.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Absolute path of fixtures/providers: `../shared/fixtures/providers` relative to the repo root
 * (this file lives in <repo>/tests/), or $METAMIND_FIXTURES_DIR when set.
 */
export const SHARED_FIXTURES_DIR: string = (
  process.env.METAMIND_FIXTURES_DIR || fileURLToPath(new URL("../../shared/fixtures/providers/", import.meta.url))
).replace(/\/+$/, "");

/** Message for describe.skip / it.skip when the shared fixtures are missing. */
export const MISSING_FIXTURES_MESSAGE = `shared provider fixtures not found at ${SHARED_FIXTURES_DIR} (expected ../shared/fixtures/providers next to the repo)`;

/** True when the shared fixture folder exists (checked via its API_NOTES.md). */
export function hasSharedFixtures(): boolean {
  return existsSync(`${SHARED_FIXTURES_DIR}/API_NOTES.md`);
}

/**
 * Reads one fixture as UTF-8 text. `relPath` is relative to fixtures/providers, e.g.
 * "pubmed/esearch_pubmed_biopython.xml". Throws when the file does not exist.
 */
export function readFixture(relPath: string): string {
  return readFileSync(`${SHARED_FIXTURES_DIR}/${relPath.replace(/^\/+/, "")}`, "utf8");
}

/** Parses a JSON fixture. */
export function readJsonFixture(relPath: string): unknown {
  return JSON.parse(readFixture(relPath));
}

/** {@link readFixture} as a FixtureReader for tests/mocks: null instead of throwing when absent. */
export function fixtureReader(relPath: string): string | null {
  const clean = relPath.replace(/^\/+/, "");
  if (clean.split("/").includes("..")) return null;
  const full = `${SHARED_FIXTURES_DIR}/${clean}`;
  return existsSync(full) ? readFileSync(full, "utf8") : null;
}

/** One request seen by {@link recordingFetch}. */
export interface RecordedCall {
  url: string;
  method: string;
  headers: Headers;
  /** Request body as text (null for GET). */
  body: string | null;
  signal: AbortSignal | null;
}

/**
 * A fake `fetch` that records every call and answers with `respond(call, index)`.
 * Use `calls` to assert URLs, query parameters, headers and bodies.
 */
export function recordingFetch(respond: (call: RecordedCall, index: number) => Response | Promise<Response>): {
  fetch: typeof fetch;
  calls: RecordedCall[];
} {
  const calls: RecordedCall[] = [];
  const fake = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const method = request.method.toUpperCase();
    const call: RecordedCall = {
      url: request.url,
      method,
      headers: request.headers,
      body: method === "GET" || method === "HEAD" ? null : await request.text(),
      signal: init?.signal ?? null,
    };
    calls.push(call);
    return respond(call, calls.length - 1);
  };
  return { fetch: fake as typeof fetch, calls };
}

/** A Response carrying a fixture body, e.g. `fixtureResponse("crossref/error_400_sample-over-100.json", 400)`. */
export function fixtureResponse(relPath: string, status = 200, contentType?: string): Response {
  const type =
    contentType ??
    (relPath.endsWith(".xml")
      ? "text/xml; charset=UTF-8"
      : relPath.endsWith(".json")
        ? "application/json"
        : relPath.endsWith(".html")
          ? "text/html; charset=utf-8"
          : "text/plain");
  return new Response(readFixture(relPath), { status, headers: { "content-type": type } });
}

/** Suite title that states why it is skipped when the shared fixtures are absent. */
export function fixtureSuiteName(name: string): string {
  return hasSharedFixtures() ? name : `${name} — skipped: ${MISSING_FIXTURES_MESSAGE}`;
}
