/**
 * D1 tables for account recovery and paid plans. Re-exported by db/schema.ts.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./schema";

const now = sql`(unixepoch('subsec') * 1000)`;

/**
 * Password-reset tokens. Only the SHA-256 of a token is stored (hex), so a database reader cannot
 * use one; `usedAt` makes a token single-use; `expiresAt` (epoch ms) is 15 minutes after issue.
 */
export const passwordResetTokens = sqliteTable(
  "password_reset_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at", { mode: "number" }).notNull(),
    usedAt: integer("used_at", { mode: "number" }),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("password_reset_tokens_user_idx").on(t.userId)],
);

/** The Stripe Customer of a user, created once at the first checkout and reused after. */
export const stripeCustomers = sqliteTable(
  "stripe_customers",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    customerId: text("customer_id").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [uniqueIndex("stripe_customers_customer_unique").on(t.customerId)],
);

/**
 * Paid subscriptions, one row per provider subscription (Stripe `sub_…` for platform 'web').
 * Written only from verified webhook events; `isPro` is derived from status and period end
 * (app/lib/plan.ts). Times are epoch ms. `eventCreated` (epoch s of the Stripe event that last
 * wrote the row) keeps an older event delivered late from overwriting newer state.
 */
export const subscriptions = sqliteTable(
  "subscriptions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    customerId: text("customer_id").notNull(),
    platform: text("platform").notNull().default("web"),
    status: text("status").notNull(),
    plan: text("plan"),
    priceId: text("price_id"),
    currentPeriodEnd: integer("current_period_end", { mode: "number" }),
    trialEnd: integer("trial_end", { mode: "number" }),
    cancelAtPeriodEnd: integer("cancel_at_period_end", { mode: "boolean" }).notNull().default(false),
    eventCreated: integer("event_created", { mode: "number" }).notNull().default(0),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
    updatedAt: integer("updated_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("subscriptions_user_idx").on(t.userId), index("subscriptions_customer_idx").on(t.customerId)],
);

/** Stripe webhook events already applied, by event id (a replayed delivery changes nothing). */
export const stripeEvents = sqliteTable("stripe_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  receivedAt: integer("received_at", { mode: "number" }).notNull().default(now),
});

export type SubscriptionRow = typeof subscriptions.$inferSelect;
