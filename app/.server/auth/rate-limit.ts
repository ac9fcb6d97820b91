import { AppError } from "../http/errors";

/**
 * Fixed-window rate limit in KV. Counts one hit for `key`; when the window already holds `limit`
 * hits it throws 429 RATE_LIMITED with a Retry-After. KV is eventually consistent, so the limit
 * is approximate across locations, which is enough to blunt password guessing.
 */
export async function hitRateLimit(
  kv: KVNamespace,
  key: string,
  { limit, windowSeconds }: { limit: number; windowSeconds: number },
): Promise<void> {
  const windowStart = Math.floor(Date.now() / 1000 / windowSeconds) * windowSeconds;
  const storageKey = `ratelimit:${key}:${windowStart}`;
  const count = Number((await kv.get(storageKey)) ?? "0");
  if (count >= limit) {
    const retryAfter = windowStart + windowSeconds - Math.floor(Date.now() / 1000);
    throw new AppError("RATE_LIMITED", "Too many attempts. Please try again later.", 429, {
      retryAfter,
    });
  }
  await kv.put(storageKey, String(count + 1), { expirationTtl: Math.max(60, windowSeconds) });
}

/** The client's address as Cloudflare reports it ("local" when absent, as in tests). */
export function clientIp(request: Request): string {
  return request.headers.get("CF-Connecting-IP") ?? "local";
}
