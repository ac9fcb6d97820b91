/**
 * The Worker-level cache of public share pages (Cloudflare's Cache API, `caches.default`): a page
 * rendered once from its KV payload is served from the data centre's cache until its
 * Cache-Control s-maxage runs out, without running Remix again. Only plain GETs of
 * /answer|workout|meal-plan/{32-hex id} without a query string are cached, and only 200 responses
 * whose Cache-Control is public (the pages carry no per-user content; see root.tsx).
 */

/** The cacheable public share paths. */
export const CACHEABLE_SHARE_PATH = /^\/(?:answer|workout|meal-plan)\/[0-9a-f]{32}$/;

/** Whether a request may be answered from / stored in the share-page cache. */
export function isCacheableShareRequest(request: Request): boolean {
  if (request.method !== "GET") return false;
  const url = new URL(request.url);
  return url.search === "" && CACHEABLE_SHARE_PATH.test(url.pathname);
}

/**
 * Serves a cacheable share page from `cache` or renders it with `render` and stores a copy
 * (through `waitUntil`) when it is a 200 with a public Cache-Control. Other requests go straight
 * to `render`.
 */
export async function withShareCache(
  request: Request,
  cache: Cache | undefined,
  waitUntil: (p: Promise<unknown>) => void,
  render: () => Promise<Response>,
): Promise<Response> {
  if (!cache || !isCacheableShareRequest(request)) return render();
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await render();
  if (
    response.status === 200 &&
    /\bpublic\b/.test(response.headers.get("Cache-Control") ?? "") &&
    !response.headers.has("Set-Cookie")
  ) {
    waitUntil(
      cache.put(request, response.clone()).catch((error: unknown) => console.error("share page not cached", error)),
    );
  }
  return response;
}

/** Removes a share page from this data centre's cache (after unsharing). */
export async function evictSharePage(cache: Cache | undefined, url: string): Promise<void> {
  if (!cache) return;
  await cache.delete(new Request(url, { method: "GET" }));
}
