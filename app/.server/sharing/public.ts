/**
 * Loaders of the public share pages (/answer/{id}, /workout/{id}, /meal-plan/{id}): the item from
 * KV, or the 404 page, and the cache headers that let Cloudflare's edge and browsers keep it.
 */
import type { SharedItem, SharedKind } from "~/lib/sharing";
import type { AppServices } from "../context";
import { getSharedItem } from "./store";

/**
 * Cache-Control of a public page: browsers keep it 5 minutes and shared caches (Cloudflare's
 * edge) 1 hour, serving a stale copy for a day while revalidating. An unshared link can thus stay
 * visible from a cache for up to an hour. The pages carry no per-user content (the root loader
 * leaves the user out on these paths), so a shared cache can serve them to anyone.
 */
export const PUBLIC_SHARE_CACHE_CONTROL = "public, max-age=300, s-maxage=3600, stale-while-revalidate=86400";

/** The paths whose pages are public and cacheable (the root loader must not load the user there). */
export const PUBLIC_SHARE_PATH = /^\/(?:answer|workout|meal-plan)\/[^/]+\/?$/;

/**
 * The shared item of a public page.
 * @throws Response 404 (rendered as the '404 Page Not Found' page) for an unknown or malformed id.
 */
export async function loadSharedPage<K extends SharedKind>(
  app: Pick<AppServices, "bindings">,
  { kind, id }: { kind: K; id: string | undefined },
): Promise<Extract<SharedItem, { kind: K }>> {
  const item = id ? await getSharedItem(app.bindings.KV, { id, kind }) : null;
  if (!item)
    throw new Response(null, {
      status: 404,
      statusText: "Not Found",
      headers: { "Cache-Control": "public, max-age=60" },
    });
  return item as Extract<SharedItem, { kind: K }>;
}
