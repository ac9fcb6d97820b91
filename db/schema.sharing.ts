/**
 * D1 tables for sharing (issue 14). Re-exported by db/schema.ts.
 *
 * - `shared_items`: the index of every public link (health answer, workout, meal plan) whose
 *   payload lives in KV under `shared:{id}`. It keeps the owner (a user, or a guest device) so the
 *   owner can list and unshare their links and deleting an account deletes them (the table has
 *   `user_id`, so app/.server/library/account.ts deletes its rows with the account; the KV payloads
 *   are deleted by app/.server/sharing/store.ts beforehand).
 * Creating links is rate-limited by the app's atomic limiter (app/.server/security/rate-limit.ts,
 * RATE_LIMITS.shareLinkPerAccount / shareLinkPerIp).
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./schema";

const now = sql`(unixepoch('subsec') * 1000)`;

export const sharedItems = sqliteTable(
  "shared_items",
  {
    /** The public id: 32 hex characters (128 random bits). */
    id: text("id").primaryKey(),
    kind: text("kind", { enum: ["answer", "workout", "meal-plan"] }).notNull(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    /** A guest's verified device id (when there is no user). */
    deviceKey: text("device_key"),
    /** The client's own id of the item (SPEC §3: the saved answer's id), to find a link again. */
    clientId: text("client_id"),
    title: text("title").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    index("shared_items_user_idx").on(t.userId, t.createdAt),
    index("shared_items_device_idx").on(t.deviceKey, t.createdAt),
  ],
);
