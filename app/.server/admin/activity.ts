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
