import type { SearchFilters } from "./filters";
import type { ProviderId, ProviderResult } from "./types";

/** How long a provider's answer is reused for identical parameters (KV minimum is 60 s). */
export const SEARCH_CACHE_TTL_SECONDS = 300;
const VERSION = "v1";

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The cache key of one provider call: the provider plus its normalised parameters (query
 * lower-cased with whitespace collapsed, page, limit and the resolved filters), hashed so the
 * key stays far below KV's 512-byte limit.
 */
export async function searchCacheKey(
  provider: ProviderId,
  params: { query: string; page: number; limit: number; filters: SearchFilters },
): Promise<string> {
  const normalized = JSON.stringify([
    params.query.toLowerCase().replace(/\s+/g, " ").trim(),
    params.page,
    params.limit,
    params.filters,
  ]);
  return `search:${VERSION}:${provider}:${await sha256Hex(normalized)}`;
}

/** How long this isolate keeps a provider answer in memory (ms): as long as KV's edge cacheTtl. */
const MEMORY_TTL_MS = 60_000;
/** Most records held by the in-memory tier (about 2 KB each, so ≤ ~8 MB per isolate). */
const MEMORY_MAX_RECORDS = 4_000;
const memory = new Map<string, { value: ProviderResult; expires: number }>();
let memoryRecords = 0;

function forget(key: string): void {
  const entry = memory.get(key);
  if (!entry) return;
  memory.delete(key);
  memoryRecords -= entry.value.studies.length;
}

/** Keeps `value` in this isolate's memory tier (newest last; the oldest go first when full). */
function remember(key: string, value: ProviderResult, now: number): void {
  forget(key);
  if (value.studies.length > MEMORY_MAX_RECORDS) return;
  memory.set(key, { value, expires: now + MEMORY_TTL_MS });
  memoryRecords += value.studies.length;
  while (memoryRecords > MEMORY_MAX_RECORDS) forget(memory.keys().next().value!);
}

/**
 * A cached provider answer, or null on a miss or an unreadable entry. Never throws. Hot keys are
 * answered from this isolate's memory for up to a minute (the same freshness as KV's edge
 * cacheTtl), so a popular search costs no KV read; the answer is shared and must not be mutated.
 */
export async function readCachedSearch(kv: KVNamespace, key: string, now: number = Date.now()): Promise<ProviderResult | null> {
  const entry = memory.get(key);
  if (entry && entry.expires > now) return entry.value;
  if (entry) forget(key);
  try {
    // Hot keys are served from the data centre's cache for up to a minute (KV's minimum is 30 s).
    const hit = await kv.get<ProviderResult>(key, { type: "json", cacheTtl: 60 });
    if (!(hit && Array.isArray(hit.studies) && typeof hit.totalCount === "number")) return null;
    remember(key, hit, now);
    return hit;
  } catch {
    return null;
  }
}

/** Stores a provider answer for {@link SEARCH_CACHE_TTL_SECONDS}; failures only log. */
export async function writeCachedSearch(kv: KVNamespace, key: string, value: ProviderResult): Promise<void> {
  remember(key, value, Date.now());
  try {
    await kv.put(key, JSON.stringify(value), { expirationTtl: SEARCH_CACHE_TTL_SECONDS });
  } catch (error) {
    console.warn("search cache write failed", error);
  }
}
