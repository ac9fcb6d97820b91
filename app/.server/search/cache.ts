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

/** A cached provider answer, or null on a miss or an unreadable entry. Never throws. */
export async function readCachedSearch(kv: KVNamespace, key: string): Promise<ProviderResult | null> {
  try {
    // Hot keys are served from the data centre's cache for up to a minute (KV's minimum is 30 s).
    const hit = await kv.get<ProviderResult>(key, { type: "json", cacheTtl: 60 });
    return hit && Array.isArray(hit.studies) && typeof hit.totalCount === "number" ? hit : null;
  } catch {
    return null;
  }
}

/** Stores a provider answer for {@link SEARCH_CACHE_TTL_SECONDS}; failures only log. */
export async function writeCachedSearch(kv: KVNamespace, key: string, value: ProviderResult): Promise<void> {
  try {
    await kv.put(key, JSON.stringify(value), { expirationTtl: SEARCH_CACHE_TTL_SECONDS });
  } catch (error) {
    console.warn("search cache write failed", error);
  }
}
