import type { SearchFilters } from "./filters";
import type { ProviderId, ProviderResult } from "./types";

/** How long a provider's answer is reused for identical parameters (KV minimum is 60 s). */
export const SEARCH_CACHE_TTL_SECONDS = 300;
const VERSION = "v2";

/** The parameters one provider call is made with (a multi-database search gives each the same). */
export interface CachedSearchParams {
  query: string;
  page: number;
  limit: number;
  filters: SearchFilters;
}

/**
 * One search's cached answers: every database that answered for these parameters, with its
 * filtered answer and when it was fetched (epoch ms). One KV value per parameter set, so a search
 * costs one cache read and at most one write however many databases it asks.
 */
export interface SearchCacheEntry {
  providers: Partial<Record<ProviderId, { result: ProviderResult; at: number }>>;
}

/** A search's cache key and what KV (or this isolate's memory) held under it. */
export interface CachedSearch {
  key: string;
  entry: SearchCacheEntry | null;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The cache key of a parameter set: the query lower-cased with whitespace collapsed, page, limit
 * and the resolved filters, hashed so the key stays far below KV's 512-byte limit. The databases
 * are not part of it: their answers share the entry (see {@link SearchCacheEntry}).
 */
export async function searchCacheKey(params: CachedSearchParams): Promise<string> {
  const normalised = JSON.stringify([
    params.query.toLowerCase().replace(/\s+/g, " ").trim(),
    params.page,
    params.limit,
    params.filters,
  ]);
  return `search:${VERSION}:${await sha256Hex(normalised)}`;
}

/** How long this isolate keeps an entry in memory (ms): as long as KV's edge cacheTtl. */
const MEMORY_TTL_MS = 60_000;
/** Most records held by the in-memory tier (about 2 KB each, so ≤ ~8 MB per isolate). */
const MEMORY_MAX_RECORDS = 4_000;
const memory = new Map<string, { entry: SearchCacheEntry; records: number; expires: number }>();
let memoryRecords = 0;

function recordsOf(entry: SearchCacheEntry): number {
  let n = 0;
  for (const answer of Object.values(entry.providers)) n += answer?.result.studies.length ?? 0;
  return n;
}

function forget(key: string): void {
  const held = memory.get(key);
  if (!held) return;
  memory.delete(key);
  memoryRecords -= held.records;
}

/** Keeps `entry` in this isolate's memory tier (newest last; the oldest go first when full). */
function remember(key: string, entry: SearchCacheEntry, now: number): void {
  forget(key);
  const records = recordsOf(entry);
  if (records > MEMORY_MAX_RECORDS) return;
  memory.set(key, { entry, records, expires: now + MEMORY_TTL_MS });
  memoryRecords += records;
  while (memoryRecords > MEMORY_MAX_RECORDS) forget(memory.keys().next().value!);
}

function isEntry(value: unknown): value is SearchCacheEntry {
  if (!value || typeof value !== "object") return false;
  const providers = (value as { providers?: unknown }).providers;
  if (!providers || typeof providers !== "object") return false;
  return Object.values(providers).every(
    (a: { result?: ProviderResult; at?: unknown } | null) =>
      !!a &&
      typeof a.at === "number" &&
      !!a.result &&
      Array.isArray(a.result.studies) &&
      typeof a.result.totalCount === "number",
  );
}

/**
 * The entry cached under `key`, or null on a miss or an unreadable entry. Never throws. Hot keys
 * are answered from this isolate's memory for up to a minute (the same freshness as KV's edge
 * cacheTtl), so a popular search costs no KV read; the entry is shared and must not be mutated.
 */
export async function readSearchCache(
  kv: KVNamespace,
  key: string,
  now: number = Date.now(),
): Promise<SearchCacheEntry | null> {
  const held = memory.get(key);
  if (held && held.expires > now) return held.entry;
  if (held) forget(key);
  try {
    // Hot keys are served from the data centre's cache for up to a minute (KV's minimum is 30 s).
    const hit = await kv.get<unknown>(key, { type: "json", cacheTtl: 60 });
    if (!isEntry(hit)) return null;
    remember(key, hit, now);
    return hit;
  } catch {
    return null;
  }
}

/** Whether an answer fetched at `at` (epoch ms) is younger than {@link SEARCH_CACHE_TTL_SECONDS}. */
function isFresh(at: number, now: number): boolean {
  return now - at < SEARCH_CACHE_TTL_SECONDS * 1000;
}

/** One database's answer from `entry` when it is younger than {@link SEARCH_CACHE_TTL_SECONDS}, else null. */
export function cachedAnswer(
  entry: SearchCacheEntry | null,
  provider: ProviderId,
  now: number = Date.now(),
): ProviderResult | null {
  const answer = entry?.providers[provider];
  return answer && isFresh(answer.at, now) ? answer.result : null;
}

/**
 * Stores the fresh answers of one search together with the still-fresh answers `previous` held
 * (one KV write, expiring {@link SEARCH_CACHE_TTL_SECONDS} after it), and keeps the result in
 * memory. Two searches writing the same key at once keep the later one's databases: a cache, so
 * the other's are fetched again next time. Failures only log.
 */
export async function writeSearchCache(
  kv: KVNamespace,
  key: string,
  previous: SearchCacheEntry | null,
  fresh: ReadonlyMap<ProviderId, ProviderResult>,
  now: number = Date.now(),
): Promise<void> {
  const providers: SearchCacheEntry["providers"] = {};
  for (const [id, answer] of Object.entries(previous?.providers ?? {}) as [
    ProviderId,
    { result: ProviderResult; at: number },
  ][]) {
    if (isFresh(answer.at, now)) providers[id] = answer;
  }
  for (const [id, result] of fresh) providers[id] = { result, at: now };
  const entry: SearchCacheEntry = { providers };
  remember(key, entry, now);
  try {
    await kv.put(key, JSON.stringify(entry), { expirationTtl: SEARCH_CACHE_TTL_SECONDS });
  } catch (error) {
    console.warn("search cache write failed", error);
  }
}
