/**
 * D1 tables for security controls. Re-exported by db/schema.ts (drizzle-kit reads that file).
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Fixed-window rate-limit counters, one row per limited key (e.g. `login:ip:203.0.113.7`,
 * `login:account:ada@example.org`). Incremented only by one atomic upsert … RETURNING (see
 * app/.server/security/rate-limit.ts), never read-then-written. `expiresAt` (epoch ms) is when
 * the row's window ends; expired rows are pruned.
 */
export const rateLimits = sqliteTable(
  "rate_limits",
  {
    key: text("key").primaryKey(),
    windowStart: integer("window_start", { mode: "number" }).notNull(),
    count: integer("count", { mode: "number" }).notNull(),
    expiresAt: integer("expires_at", { mode: "number" }).notNull(),
  },
  (t) => [index("rate_limits_expires_idx").on(t.expiresAt)],
);
