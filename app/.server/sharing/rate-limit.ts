import { AppError } from "../http/errors";

/** Share links one owner (user, guest device or IP) may create per window. */
export const SHARE_CREATE_LIMIT = 30;
/** Length of a rate-limit window (ms). */
export const SHARE_WINDOW_MS = 60 * 60 * 1000;

/**
 * Counts one share-link creation for `key` in the current fixed window, atomically: a single
 * D1 upsert inserts 1 or increments only while the count is below `limit`, and SQLite returns no
 * row when the conflict update's WHERE is false, so concurrent requests can never overspend (no
 * read-then-write). Rows of the key's earlier windows are pruned in the same batch.
 *
 * @param key "user:{id}", "device:{id}" or "ip:{address}".
 * @throws AppError 429 RATE_LIMITED `{retryAfter}` (seconds until the window ends) at the limit.
 */
export async function hitShareRateLimit(
  db: D1Database,
  key: string,
  { limit = SHARE_CREATE_LIMIT, windowMs = SHARE_WINDOW_MS, now = Date.now() }: { limit?: number; windowMs?: number; now?: number } = {},
): Promise<{ count: number; remaining: number }> {
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const [upsert] = await db.batch<{ count: number }>([
    db
      .prepare(
        `INSERT INTO share_rate_limits (key, window_start, count) VALUES (?1, ?2, 1)
         ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1 WHERE count < ?3
         RETURNING count`,
      )
      .bind(key, windowStart, limit),
    db.prepare("DELETE FROM share_rate_limits WHERE key = ?1 AND window_start < ?2").bind(key, windowStart),
  ]);
  const row = upsert?.results[0];
  if (!row) {
    const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    throw new AppError("RATE_LIMITED", "Too many share links created. Please try again later.", 429, { retryAfter });
  }
  return { count: row.count, remaining: Math.max(0, limit - row.count) };
}
