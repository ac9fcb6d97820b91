import { sql } from "drizzle-orm";
import { userActivity } from "../../../db/schema";
import type { AppServices } from "../context";

/** A user's last-seen time is rewritten at most this often (ms), so reads stay cheap. */
export const ACTIVITY_RESOLUTION_MS = 60 * 60 * 1000;

/**
 * Records that `userId` used the product with a valid session at `now` (epoch ms): one upsert
 * that only writes when the stored time is older than {@link ACTIVITY_RESOLUTION_MS}. Atomic (a
 * single statement), so concurrent requests cannot lose a newer time.
 */
export async function recordActivity(
  { db }: Pick<AppServices, "db">,
  { userId, now = Date.now() }: { userId: string; now?: number },
): Promise<void> {
  await db
    .insert(userActivity)
    .values({ userId, lastSeenAt: now })
    .onConflictDoUpdate({
      target: userActivity.userId,
      set: { lastSeenAt: now },
      setWhere: sql`${userActivity.lastSeenAt} < ${now - ACTIVITY_RESOLUTION_MS}`,
    });
}

/** Users whose activity this isolate recorded, with when (epoch ms); oldest forgotten first. */
const recorded = new Map<string, number>();
const MAX_RECORDED_USERS = 10_000;

/**
 * {@link recordActivity} for a request's user, skipped when this isolate recorded the user's
 * activity less than {@link ACTIVITY_RESOLUTION_MS} ago: the upsert would change nothing, and
 * even a no-op upsert is a write on D1's single primary (issue 17: requests such as a cached
 * search write nothing). Another isolate may still write once per hour, which the upsert's
 * condition makes harmless.
 */
export async function noteActivity(
  app: Pick<AppServices, "db">,
  userId: string,
  now: number = Date.now(),
): Promise<void> {
  const last = recorded.get(userId);
  if (last !== undefined && now - last < ACTIVITY_RESOLUTION_MS) return;
  recorded.delete(userId);
  recorded.set(userId, now);
  while (recorded.size > MAX_RECORDED_USERS) recorded.delete(recorded.keys().next().value!);
  try {
    await recordActivity(app, { userId, now });
  } catch (error) {
    recorded.delete(userId);
    throw error;
  }
}
