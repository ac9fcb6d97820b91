/**
 * Shared pieces of the upstream replays: fixture reader type, trigger words and "serve a
 * recording with its recorded status and content-type".
 * Erasable TypeScript only (runs under plain Node via tests/mocks/replay-server.ts).
 */

/** Reads a file relative to fixtures/providers (e.g. "crossref/search_empty_query-adfaaf.json"); null when absent. */
export type FixtureReader = (relPath: string) => string | null;

/** Answers one upstream request with a recorded response, or null when the path is not handled. */
export type Replay = (request: Request) => Response | null;

/** Query word that makes a replay answer HTTP 500. */
export const FAIL_WORD = "zzfail";
/** Query word that makes a replay serve the provider's recorded empty result. */
export const EMPTY_WORD = "zzempty";
/** Query word the replay server (not the pure replays) answers after REPLAY_SLOW_MS. */
export const SLOW_WORD = "zzslow";

/** Case-insensitive "does the query contain this trigger word". */
export function hasWord(query: string | null | undefined, word: string): boolean {
  return typeof query === "string" && query.toLowerCase().includes(word);
}

interface RecordedMeta {
  status: number;
  contentType: string | null;
}

const provenanceCache = new WeakMap<FixtureReader, Map<string, Record<string, unknown> | null>>();

function provenanceFiles(fixtures: FixtureReader, provider: string): Record<string, unknown> | null {
  let perReader = provenanceCache.get(fixtures);
  if (!perReader) {
    perReader = new Map();
    provenanceCache.set(fixtures, perReader);
  }
  if (!perReader.has(provider)) {
    let files: Record<string, unknown> | null = null;
    const text = fixtures(`${provider}/provenance.json`);
    if (text !== null) {
      try {
        const parsed: unknown = JSON.parse(text);
        const candidate =
          typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>).files : null;
        files = typeof candidate === "object" && candidate !== null ? (candidate as Record<string, unknown>) : null;
      } catch {
        files = null;
      }
    }
    perReader.set(provider, files);
  }
  return perReader.get(provider) ?? null;
}

function contentTypeByExtension(relPath: string): string {
  if (relPath.endsWith(".xml")) return "text/xml; charset=UTF-8";
  if (relPath.endsWith(".json")) return "application/json";
  if (relPath.endsWith(".html")) return "text/html; charset=utf-8";
  return "text/plain; charset=utf-8";
}

/**
 * Status and content-type recorded for a fixture in `<provider>/provenance.json`
 * (response_status, response_headers_subset["content-type"], any header case, string or list).
 */
function recordedMeta(fixtures: FixtureReader, relPath: string): RecordedMeta {
  const [provider, ...rest] = relPath.split("/");
  const entry = provenanceFiles(fixtures, provider)?.[rest.join("/")];
  if (typeof entry !== "object" || entry === null) return { status: 200, contentType: null };
  const record = entry as Record<string, unknown>;
  const status = typeof record.response_status === "number" ? record.response_status : 200;
  let contentType: string | null = null;
  const headers = record.response_headers_subset;
  if (typeof headers === "object" && headers !== null) {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
      if (name.toLowerCase() !== "content-type") continue;
      const first = Array.isArray(value) ? value[0] : value;
      if (typeof first === "string") contentType = first;
    }
  }
  return { status, contentType };
}

/**
 * Serves a recorded body unchanged, with the status and content-type its provenance records
 * (content-type falls back to the file extension when the recorder kept no headers).
 * A missing fixture → 500 "replay fixture not found: <path>".
 */
export function recorded(fixtures: FixtureReader, relPath: string): Response {
  const body = fixtures(relPath);
  if (body === null) {
    return new Response(`replay fixture not found: ${relPath}`, {
      status: 500,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
  const meta = recordedMeta(fixtures, relPath);
  return new Response(body, {
    status: meta.status,
    headers: {
      "content-type": meta.contentType ?? contentTypeByExtension(relPath),
      "x-replay-fixture": relPath,
    },
  });
}

/** The `zzfail` answer for providers without a recorded 5xx body. */
export function simulatedFailure(provider: string): Response {
  return new Response(`${FAIL_WORD}: simulated ${provider} upstream failure`, {
    status: 500,
    headers: { "content-type": "text/plain; charset=utf-8", "x-replay-fixture": "none (simulated)" },
  });
}
