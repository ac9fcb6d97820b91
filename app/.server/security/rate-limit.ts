import { and, eq, gt, inArray, lt, lte, sql } from "drizzle-orm";
import { rateLimits } from "../../../db/schema";
import type { Database } from "../db/client";
import { AppError } from "../http/errors";

/**
 * One limit: at most `limit` hits per key within `windowSeconds`. The window opens at a key's
 * first hit and closes `windowSeconds` later (then the next hit opens a new one).
 */
export interface RateLimitRule {
  /** Key prefix naming what is limited and by what, e.g. "login:ip". */
  readonly scope: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

/**
 * The app's limits. Per IP blunts one machine; per account (the normalised e-mail) blunts
 * credential stuffing from many addresses. Password reset and share-link creation use the same
 * module with their own rules here.
 */
export const RATE_LIMITS = {
  loginPerIp: { scope: "login:ip", limit: 20, windowSeconds: 15 * 60 },
  loginPerAccount: { scope: "login:account", limit: 10, windowSeconds: 15 * 60 },
  registerPerIp: { scope: "register:ip", limit: 10, windowSeconds: 60 * 60 },
  passwordResetPerIp: { scope: "password-reset:ip", limit: 10, windowSeconds: 60 * 60 },
  passwordResetPerAccount: { scope: "password-reset:account", limit: 3, windowSeconds: 60 * 60 },
  shareLinkPerIp: { scope: "share-link:ip", limit: 60, windowSeconds: 60 * 60 },
  shareLinkPerAccount: { scope: "share-link:account", limit: 30, windowSeconds: 60 * 60 },
  /** A review outcome's extraction reads every included study (Europe PMC fetches on a cache miss). */
  reviewExtractionPerAccount: { scope: "review-extraction:account", limit: 240, windowSeconds: 60 * 60 },
} as const satisfies Record<string, RateLimitRule>;

/** One counted hit: which counter, in which window, and where it stands after this hit. */
export interface RateLimitHit {
  key: string;
  windowStart: number;
  count: number;
  limit: number;
  /** Epoch ms when the window closes. */
  resetsAt: number;
}

/** A rule applied to a subject (an IP address, an e-mail, an account id). */
export interface RateLimitCheck {
  rule: RateLimitRule;
  subject: string;
}

/** Share of hits that also prune expired counters (keeps the table at live keys only). */
const PRUNE_PROBABILITY = 0.02;

/** The stored key of a check: `${scope}:${subject}` (subject trimmed and lower-cased). */
export function rateLimitKey({ rule, subject }: RateLimitCheck): string {
  return `${rule.scope}:${subject.trim().toLowerCase()}`;
}

function upsertHit(db: Database, check: RateLimitCheck, now: number) {
  const expired = sql`${rateLimits.expiresAt} <= excluded.window_start`;
  return db
    .insert(rateLimits)
    .values({ key: rateLimitKey(check), windowStart: now, count: 1, expiresAt: now + check.rule.windowSeconds * 1000 })
    .onConflictDoUpdate({
      target: rateLimits.key,
      // SQLite evaluates every SET expression against the row as it was before this update.
      set: {
        count: sql`CASE WHEN ${expired} THEN 1 ELSE ${rateLimits.count} + 1 END`,
        windowStart: sql`CASE WHEN ${expired} THEN excluded.window_start ELSE ${rateLimits.windowStart} END`,
        expiresAt: sql`CASE WHEN ${expired} THEN excluded.expires_at ELSE ${rateLimits.expiresAt} END`,
      },
    })
    .returning({
      key: rateLimits.key,
      windowStart: rateLimits.windowStart,
      count: rateLimits.count,
      expiresAt: rateLimits.expiresAt,
    });
}

/**
 * Counts one hit on each check's counter, atomically: a single `INSERT … ON CONFLICT DO UPDATE …
 * RETURNING` per key (all keys in one D1 batch), so parallel requests each see their own count and
 * exactly `limit` of them are allowed per window, in `wrangler dev`, the Workers test pool and
 * deployed alike (D1 runs one writer per database). Never read-then-write.
 * @returns the hits, for {@link assertWithinLimits} and {@link releaseRateLimits}.
 */
export async function countRateLimitHits(
  deps: { db: Database; waitUntil?: (p: Promise<unknown>) => void },
  checks: readonly RateLimitCheck[],
  now: number = Date.now(),
): Promise<RateLimitHit[]> {
  if (checks.length === 0) return [];
  const [first, ...rest] = checks.map((check) => upsertHit(deps.db, check, now));
  const results = await deps.db.batch([first!, ...rest]);
  const hits = results.map((rows, i) => {
    const row = rows[0]!;
    return {
      key: row.key,
      windowStart: row.windowStart,
      count: row.count,
      limit: checks[i]!.rule.limit,
      resetsAt: row.expiresAt,
    };
  });
  if (deps.waitUntil && Math.random() < PRUNE_PROBABILITY) {
    deps.waitUntil(
      deps.db
        .delete(rateLimits)
        .where(lt(rateLimits.expiresAt, now))
        .catch((error: unknown) => console.error("rate-limit prune failed", error)),
    );
  }
  return hits;
}

/**
 * Throws 429 RATE_LIMITED when any hit is over its limit, with `retryAfter` (seconds until the
 * last exceeded window closes) in the body and as the `Retry-After` header (see AppError).
 */
export function assertWithinLimits(hits: readonly RateLimitHit[], now: number = Date.now()): void {
  const over = hits.filter((h) => h.count > h.limit);
  if (over.length === 0) return;
  const resetsAt = Math.max(...over.map((h) => h.resetsAt));
  throw rateLimitedError(Math.max(1, Math.ceil((resetsAt - now) / 1000)));
}

/** The 429 answer of every limit in the app: RATE_LIMITED with `retryAfter` seconds. */
export function rateLimitedError(retryAfterSeconds: number): AppError {
  return new AppError("RATE_LIMITED", "Too many attempts. Please try again later.", 429, {
    retryAfter: retryAfterSeconds,
  });
}

/**
 * Counts one hit per check and throws 429 RATE_LIMITED (with Retry-After) when any is over its limit.
 * @returns the hits, so a caller can give them back on success ({@link releaseRateLimits}).
 */
export async function enforceRateLimits(
  deps: { db: Database; waitUntil?: (p: Promise<unknown>) => void },
  checks: readonly RateLimitCheck[],
): Promise<RateLimitHit[]> {
  const now = Date.now();
  const hits = await countRateLimitHits(deps, checks, now);
  assertWithinLimits(hits, now);
  return hits;
}

/**
 * Gives back hits that should not count (e.g. a successful login: only failures are limited).
 * Atomic decrement, only in the same window (a window that has since restarted keeps its count).
 */
export async function releaseRateLimits(
  { db }: { db: Database },
  hits: readonly Pick<RateLimitHit, "key" | "windowStart">[],
): Promise<void> {
  if (hits.length === 0) return;
  const [first, ...rest] = hits.map((hit) =>
    db
      .update(rateLimits)
      .set({ count: sql`max(${rateLimits.count} - 1, 0)` })
      .where(and(eq(rateLimits.key, hit.key), eq(rateLimits.windowStart, hit.windowStart))),
  );
  await db.batch([first!, ...rest]);
}

/**
 * The counters of `checks` as they stand at `now` (read only): count 0 and no window for a key
 * whose window has closed or not begun.
 */
export async function readRateLimits(
  { db }: { db: Database },
  checks: readonly RateLimitCheck[],
  now: number = Date.now(),
): Promise<{ key: string; count: number; windowStart: number | null; resetsAt: number | null }[]> {
  const keys = checks.map(rateLimitKey);
  if (keys.length === 0) return [];
  const rows = await db
    .select()
    .from(rateLimits)
    .where(and(inArray(rateLimits.key, keys), gt(rateLimits.expiresAt, now), lte(rateLimits.windowStart, now)));
  return keys.map((key) => {
    const row = rows.find((r) => r.key === key);
    return row
      ? { key, count: row.count, windowStart: row.windowStart, resetsAt: row.expiresAt }
      : { key, count: 0, windowStart: null, resetsAt: null };
  });
}
