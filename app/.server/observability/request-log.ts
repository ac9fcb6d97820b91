/**
 * Structured request logs: one JSON line per /api call, written with console.info so Workers Logs
 * (wrangler.toml `[observability]`) index its fields. A line looks like
 * `{"level":"info","event":"api","requestId":"…","method":"GET","route":"/api/search","status":200,
 *   "durationMs":412,"user":"3f2a…","providers":{"pubmed":"ok","crossref":"timeout"}}`.
 * No query strings, bodies or raw user ids are logged: `user` is the first 16 hex digits of
 * SHA-256("metamind-user:" + userId).
 */

/** Fields a handler may add to its request's log line. */
export interface RequestLogFields {
  /** Per-database outcome of a search, e.g. { pubmed: "ok", core: "error" }. */
  providers?: Record<string, string>;
  [key: string]: unknown;
}

/** The log line of one request, filled in while the request runs and written once. */
export interface RequestLog {
  readonly requestId: string;
  /** Records the signed-in user (logged only as a hash). */
  setUser(userId: string): void;
  /** Adds fields to the line. */
  set(fields: RequestLogFields): void;
  /**
   * Defers the line until the returned callback runs (a streamed answer logs when its stream ends,
   * with `durationMs` to the end and `headersMs` to the response headers). Call it exactly once.
   */
  defer(): () => void;
  /** Sets the status; writes the line now unless deferred. Returns the pending write, if any. */
  finish(status: number): Promise<void>;
}

/** What a log line is written to (console.info in the Worker; a capture in tests). */
export type LogSink = (line: string) => void;

export interface RequestLogInit {
  requestId: string;
  method: string;
  /** The route pattern (e.g. "/api/studies/:id"), never the concrete path. */
  route: string;
  /** Milliseconds clock; Date.now by default (in Workers it advances across I/O). */
  now?: () => number;
  sink?: LogSink;
}

/**
 * The first 16 hex digits of SHA-256("metamind-user:" + userId): stable per user across requests,
 * so one user's calls can be followed, without the id itself in the logs.
 */
export async function hashUserId(userId: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`metamind-user:${userId}`));
  return [...new Uint8Array(digest).slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A new request id: the caller's X-Request-Id when it is a short token, else a random UUID. */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("X-Request-Id");
  return given && /^[A-Za-z0-9._:-]{8,128}$/.test(given) ? given : crypto.randomUUID();
}

/** Starts the log line of one request; see {@link RequestLog}. */
export function createRequestLog(init: RequestLogInit): RequestLog {
  const now = init.now ?? Date.now;
  const sink = init.sink ?? ((line: string) => console.info(line));
  const started = now();
  const fields: RequestLogFields = {};
  let userId: string | null = null;
  let status = 0;
  let headersMs: number | null = null;
  let deferred = false;
  let ended = false;
  let written = false;

  const write = async () => {
    if (written) return;
    written = true;
    const durationMs = now() - started;
    const user = userId ? await hashUserId(userId) : null;
    sink(
      JSON.stringify({
        level: status >= 500 ? "error" : status >= 400 ? "warn" : "info",
        event: "api",
        requestId: init.requestId,
        method: init.method,
        route: init.route,
        status,
        durationMs,
        ...(headersMs !== null ? { headersMs } : {}),
        user,
        ...fields,
      }),
    );
  };

  return {
    requestId: init.requestId,
    setUser(id) {
      userId = id;
    },
    set(more) {
      Object.assign(fields, more);
    },
    defer() {
      deferred = true;
      return () => {
        ended = true;
        if (status !== 0) void write();
      };
    },
    finish(code) {
      status = code;
      if (deferred && !ended) {
        headersMs = now() - started;
        return Promise.resolve();
      }
      return write();
    },
  };
}
