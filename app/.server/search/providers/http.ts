/**
 * Request plumbing shared by the provider modules: URL building, fetch with error mapping to
 * {@link ProviderError}, JSON parsing and offset-window paging. Provider-agnostic; no globals.
 */
import {
  AnswerTooLargeError,
  ANSWER_TOO_LARGE,
  DEFAULT_UPSTREAM_MAX_BYTES,
  readBodyCapped,
} from "../../http/upstream-body";
import { ProviderError, type NormalisedStudy, type ProviderDeps, type ProviderId, type ProviderResult } from "../types";

export type QueryParams = Record<string, string | number | null | undefined>;

/**
 * Joins `baseUrl` (trailing slashes removed) with `path` and the non-empty `params`
 * (form-encoded by URLSearchParams, so spaces become "+").
 */
export function buildUrl(baseUrl: string, path: string, params: QueryParams = {}): string {
  const root = baseUrl.replace(/\/+$/, "");
  const qs = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") qs.set(key, String(value));
  }
  const query = qs.toString();
  return `${root}${path}${query ? `?${query}` : ""}`;
}

/**
 * A short readable excerpt of a response body for error messages: HTML reduced to its text,
 * whitespace collapsed, at most `max` characters.
 */
export function bodySnippet(body: string, max = 200): string {
  let text = body;
  if (/<(?:!doctype|html|head|body)\b/i.test(text)) {
    text = text
      .replace(/<(style|script)\b[\s\S]*?<\/\1\s*>/gi, " ")
      .replace(/<\?[\s\S]*?\?>|<![\s\S]*?>/g, " ")
      .replace(/<[^>]+>/g, " ");
  }
  text = text.replace(/\s+/g, " ").trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function isAbort(err: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}

/** Time kept in hand for the retried request after a Retry-After wait, in milliseconds. */
export const RETRY_MARGIN_MS = 200;

/**
 * Milliseconds to wait according to a `Retry-After` header value (RFC 9110 §10.2.3): either
 * delay-seconds ("120" → 120000) or an HTTP-date ("Wed, 21 Oct 2015 07:28:00 GMT"), measured
 * from `now` (epoch ms) and floored at 0 for dates already past. Returns null when the header
 * is absent or neither form.
 */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // HTTP-dates always contain a day or month name; this keeps Date.parse off bare numbers.
  if (!/[A-Za-z]/.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

/** Resolves after `ms`; rejects with the signal's reason as soon as `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * One request: the response and its body text, read as a stream of at most `deps.maxBytes`
 * (default {@link DEFAULT_UPSTREAM_MAX_BYTES}), with failures mapped: a larger body →
 * ProviderError `parse` "answer too large"; network failures → `http`; aborts re-thrown.
 */
async function send(
  provider: ProviderId,
  deps: ProviderDeps,
  url: string,
  init: RequestInit,
): Promise<{ response: Response; body: string }> {
  try {
    const response = await deps.fetch(url, { ...init, signal: deps.signal });
    const body = await readBodyCapped(response, deps.maxBytes ?? DEFAULT_UPSTREAM_MAX_BYTES, { signal: deps.signal });
    return { response, body };
  } catch (err) {
    if (isAbort(err, deps.signal)) throw err;
    if (err instanceof AnswerTooLargeError) throw new ProviderError(provider, "parse", ANSWER_TOO_LARGE);
    const reason = err instanceof Error ? err.message : String(err);
    throw new ProviderError(provider, "http", `network error: ${reason}`);
  }
}

function rateLimited(provider: ProviderId, response: Response, reason: string): ProviderError {
  const header = response.headers.get("retry-after");
  const retryAfter = header === null ? "no Retry-After" : `Retry-After: ${header.trim()}`;
  return new ProviderError(provider, "http", `429: rate limit exceeded (${retryAfter}); ${reason}`, 429);
}

/**
 * Performs a request with `deps.fetch` and `deps.signal` and returns the body text.
 *
 * 429 politeness: when the upstream answers 429 with a Retry-After (seconds or HTTP-date) whose
 * wait, plus {@link RETRY_MARGIN_MS}, ends before `deps.deadline`, the wait is slept (abortable
 * through deps.signal) and the same request is sent once more. Otherwise — no Retry-After, no
 * deadline, a wait that does not fit, or a second 429 — the call fails with ProviderError `http`,
 * status 429, whose message names the rate limit and the Retry-After value.
 *
 * Errors: other non-OK statuses → ProviderError `http` ("<status>: <snippet>", status); network
 * failure → ProviderError `http` without status; a body over `deps.maxBytes` → ProviderError
 * `parse` "answer too large" (the stream is cancelled at the cap). Aborts (deps.signal, also during a Retry-After
 * wait) are re-thrown unchanged so callers can tell a cancellation/timeout from a provider failure.
 */
export async function fetchText(
  provider: ProviderId,
  deps: ProviderDeps,
  url: string,
  init: RequestInit = {},
): Promise<string> {
  let { response, body } = await send(provider, deps, url, init);
  if (response.status === 429) {
    const waitMs = retryAfterMs(response.headers.get("retry-after"), Date.now());
    if (waitMs === null) throw rateLimited(provider, response, "not retried");
    if (deps.deadline === undefined || Date.now() + waitMs + RETRY_MARGIN_MS > deps.deadline) {
      throw rateLimited(provider, response, "not retried: the wait does not fit before the search deadline");
    }
    if (waitMs > 0) await sleep(waitMs, deps.signal);
    ({ response, body } = await send(provider, deps, url, init));
    if (response.status === 429) throw rateLimited(provider, response, "still rate limited after one retry");
  }
  if (!response.ok) {
    const snippet = bodySnippet(body) || response.statusText || "no body";
    throw new ProviderError(provider, "http", `${response.status}: ${snippet}`, response.status);
  }
  return body;
}

/** Parses a JSON body; anything else (HTML error page, truncated text) → ProviderError `parse`. */
export function parseJson(provider: ProviderId, body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new ProviderError(provider, "parse", `expected JSON, got: ${bodySnippet(body, 120) || "empty body"}`);
  }
}

/**
 * Refuses an answer of the right outer shape whose records are all unreadable (a proxy's or a
 * broken upstream's garbage), so it is reported failed instead of "ok, 0 results".
 * @param rawCount records the answer holds; @param usable records normalised from them.
 * @throws ProviderError `parse` when rawCount > 0 and usable is 0.
 */
export function assertUsableRecords(provider: ProviderId, rawCount: number, usable: number): void {
  if (rawCount > 0 && usable === 0) {
    throw new ProviderError(provider, "parse", `none of the ${rawCount} records in the answer could be read`);
  }
}

/** Fetches a JSON document (see {@link fetchText} for errors). */
export async function fetchJson(
  provider: ProviderId,
  deps: ProviderDeps,
  url: string,
  init: RequestInit = {},
): Promise<unknown> {
  const headers = new Headers(init.headers);
  if (!headers.has("accept")) headers.set("accept", "application/json");
  return parseJson(provider, await fetchText(provider, deps, url, { ...init, headers }));
}

/**
 * Collects records `[offset, offset + limit)` from an offset-paged API whose requests are capped
 * at `maxPerRequest` records, issuing sequential chunk requests. Stops early when a chunk is
 * empty or the provider's total is reached. Any chunk error propagates.
 */
export async function collectWindow(
  offset: number,
  limit: number,
  maxPerRequest: number,
  fetchChunk: (offset: number, size: number) => Promise<ProviderResult>,
): Promise<ProviderResult> {
  const studies: NormalisedStudy[] = [];
  let totalCount = 0;
  let position = offset;
  const end = offset + limit;
  while (position < end) {
    const size = Math.min(maxPerRequest, end - position);
    const chunk = await fetchChunk(position, size);
    totalCount = chunk.totalCount;
    studies.push(...chunk.studies);
    if (chunk.studies.length === 0 || position + size >= totalCount) break;
    position += size;
  }
  return { studies, totalCount };
}

/** Narrowing helpers for walking untyped JSON. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A trimmed non-empty string, or null (numbers are stringified). */
export function str(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

/** A finite non-negative integer (numeric strings accepted), or null. */
export function count(value: unknown): number | null {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? Math.floor(n) : null;
}

/** The value as an array: arrays unchanged, null/undefined → [], anything else → [value]. */
export function arr(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return value === undefined || value === null ? [] : [value];
}

/** Order-preserving de-duplication of non-empty strings. */
export function uniqueStrings(values: Iterable<string | null | undefined>): string[] {
  const seen = new Set<string>();
  for (const v of values) if (v) seen.add(v);
  return [...seen];
}
