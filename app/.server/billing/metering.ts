import { createCookie } from "@remix-run/cloudflare";
import { and, eq, sql } from "drizzle-orm";
import { aiUsage, type UserRow } from "../../../db/schema";
import { clientIp } from "../security/client-ip";
import {
  countRateLimitHits,
  readRateLimits,
  releaseRateLimits,
  type RateLimitCheck,
  type RateLimitRule,
} from "../security/rate-limit";
import type { AppServices } from "../context";
import { AppError } from "../http/errors";
import { getAiUsage, usagePeriod } from "./usage";

/**
 * Server-side metering of AI actions (SPEC §1 plans, §6 roles, §8 limits; issue 4 "Plans and
 * metering"):
 *
 * - Professional: unlimited; every use is still counted in `ai_usage` for statistics.
 * - Free: all AI analyses share one counter per UTC calendar month (`ai_usage.period` "YYYY-MM"),
 *   limited to env.AI_SUMMARIES_PER_MONTH. A use is counted atomically when it is reserved and given
 *   back if the action fails, so it "counts once, after success only" and concurrent requests can
 *   never overspend.
 * - Guests: GUEST_TRIAL_LIMIT uses per guest feature per 24-hour window, counted under both a
 *   signed device cookie (`mm_device`) and the client IP; either counter over the limit refuses.
 *   The counters are the shared atomic D1 limiter's (app/.server/security/rate-limit.ts): each
 *   use is one upsert … RETURNING, so concurrent requests can never overspend.
 * - `proOnly` actions: 403 PRO_REQUIRED for everyone but Professional.
 */

/** The plan-level feature names reported in 403 bodies (`feature`) and the upgrade prompt. */
export type PlanFeature = "ai_summaries" | "specialized_analysis" | "full_text_analysis";
/** The guest trial counters (SPEC §3 Guest usage counters). */
export type GuestFeature =
  "aiSummaries" | "specializedAnalysis" | "metaAnalysis" | "workoutGeneration" | "fullTextAnalysis" | "simpleSearch";

export const GUEST_FEATURES: readonly GuestFeature[] = [
  "aiSummaries",
  "specializedAnalysis",
  "metaAnalysis",
  "workoutGeneration",
  "fullTextAnalysis",
  "simpleSearch",
];

/** A metered AI action: the plan feature it counts against and the guest counter it uses. */
export interface MeteredAction {
  planFeature: PlanFeature;
  guestFeature: GuestFeature;
  /** Only Professional may use it (403 PRO_REQUIRED for Free users and guests). */
  proOnly?: boolean;
}

/** One reserved use of a metered action; settle it exactly once (later calls are no-ops). */
export interface Reservation {
  /** Call once the action succeeded (its result is stored). */
  commit(): Promise<void>;
  /** Call when the action failed or was abandoned: the reserved use is given back. */
  release(): Promise<void>;
  /** Set-Cookie headers to add to the response (the guest device cookie), possibly empty. */
  headers: Headers;
  /** Uses left after this one in the current window (null = unlimited). */
  remaining: number | null;
  /**
   * The same reservation as plain JSON, for settling it later in another invocation (a queued
   * job): pass it to {@link settleReservationTicket}.
   */
  ticket: ReservationTicket;
}

/**
 * A reservation as data. `user`: a signed-in user's use in `period` ("YYYY-MM"); `limited` users
 * have it counted already (release gives it back), unlimited (Professional) users get it counted
 * on commit. `guest`: the rate-limit counters (`keys`, each in the window that started at
 * `windowStarts[i]`) counted already, and the device id the use belongs to.
 */
export type ReservationTicket =
  | { kind: "user"; userId: string; period: string; limited: boolean }
  | { kind: "guest"; deviceId: string; keys: string[]; windowStarts: number[] };

/** Uses per guest feature per window. */
export const GUEST_TRIAL_LIMIT = 5;
/** Length of a guest window in milliseconds; a window starts at its first use. */
export const GUEST_WINDOW_MS = 24 * 60 * 60 * 1000;
export const DEVICE_COOKIE = "mm_device";
const DEVICE_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;

const FEATURE_LABELS: Record<PlanFeature, string> = {
  ai_summaries: "AI summaries",
  specialized_analysis: "Specialized analysis",
  full_text_analysis: "Full-text analysis",
};

type MeteringApp = Pick<AppServices, "db" | "env" | "bindings">;

/**
 * Reserves one use of a metered AI action for the requester before the action runs. Call it after
 * the request's own validation (a 400/404 must not consume a use), then `commit()` after the
 * result is stored or `release()` when the action fails or the client goes away.
 *
 * @param ctx.user the signed-in user, or null for a guest.
 * @param ctx.now the instant used for the month / 24-hour window (default: now).
 * @returns the reservation; add `reservation.headers` (Set-Cookie for new guest devices) to the
 *   response.
 * @throws AppError 403 `{error:'PRO_REQUIRED', feature, message}` for proOnly actions without
 *   Professional; 403 `{error:'LIMIT_REACHED', feature, message, limit, used}` for a Free user at
 *   the monthly limit; 403 `{error:'LIMIT_REACHED', feature, guestFeature, trial:true, limit:5,
 *   used:5, message:'Trial Limit Reached'}` for a guest at the trial limit.
 */
export async function reserveAiUse(
  app: MeteringApp,
  ctx: { user: UserRow | null; request: Request; now?: Date },
  action: MeteredAction,
): Promise<Reservation> {
  const now = ctx.now ?? new Date();
  const isPro = ctx.user?.plan === "pro";
  if (action.proOnly && !isPro) {
    throw new AppError(
      "PRO_REQUIRED",
      `${FEATURE_LABELS[action.planFeature]} requires Professional subscription`,
      403,
      { feature: action.planFeature },
    );
  }
  if (!ctx.user) return reserveGuestUse(app, ctx.request, action, now);
  return reserveUserUse(app, ctx.user.id, isPro ? null : app.env.AI_SUMMARIES_PER_MONTH, action, now);
}

/** Makes settle-once commit/release functions around a release action. */
function settleOnce(giveBack: () => Promise<void>): Pick<Reservation, "commit" | "release"> {
  let settled = false;
  return {
    commit: async () => {
      settled = true;
    },
    release: async () => {
      if (settled) return;
      settled = true;
      await giveBack();
    },
  };
}

async function reserveUserUse(
  app: MeteringApp,
  userId: string,
  limit: number | null,
  action: MeteredAction,
  now: Date,
): Promise<Reservation> {
  const period = usagePeriod(now);
  const refuse = async (): Promise<never> => {
    const used = await getAiUsage(app, { userId, now });
    throw new AppError("LIMIT_REACHED", `You've used all ${limit} free AI analyses this month`, 403, {
      feature: action.planFeature,
      limit,
      used,
    });
  };
  // Unlimited (Professional): nothing to reserve, so nothing delays the action; the use is
  // counted for statistics when it succeeds.
  if (limit === null) {
    const ticket: ReservationTicket = { kind: "user", userId, period, limited: false };
    let settled = false;
    return {
      commit: async () => {
        if (settled) return;
        settled = true;
        await settleReservationTicket(app, ticket, "commit", now);
      },
      release: async () => {
        settled = true;
      },
      headers: new Headers(),
      remaining: null,
      ticket,
    };
  }
  // A limit of 0 would still let the first insert through; refuse without writing.
  if (limit <= 0) return refuse();
  // One statement: insert 1, or increment only while below the limit. SQLite returns no row when
  // the conflict update's WHERE is false, so an empty result means "at the limit".
  const [row] = await app.db
    .insert(aiUsage)
    .values({ userId, period, count: 1, updatedAt: now.getTime() })
    .onConflictDoUpdate({
      target: [aiUsage.userId, aiUsage.period],
      set: { count: sql`${aiUsage.count} + 1`, updatedAt: now.getTime() },
      setWhere: sql`${aiUsage.count} < ${limit}`,
    })
    .returning({ count: aiUsage.count });
  if (!row) return refuse();
  const ticket: ReservationTicket = { kind: "user", userId, period, limited: true };
  return {
    ...settleOnce(() => settleReservationTicket(app, ticket, "release", now)),
    headers: new Headers(),
    remaining: Math.max(0, limit - row.count),
    ticket,
  };
}

function deviceCookie(secret: string) {
  return createCookie(DEVICE_COOKIE, {
    httpOnly: true,
    secure: true,
    sameSite: "lax",
    path: "/",
    maxAge: DEVICE_COOKIE_MAX_AGE_S,
    secrets: [secret],
  });
}

/** The verified device id from the signed cookie, or null (missing, tampered or malformed). */
async function readDeviceId(app: MeteringApp, request: Request): Promise<string | null> {
  try {
    const value: unknown = await deviceCookie(app.env.SESSION_SECRET).parse(request.headers.get("Cookie"));
    return typeof value === "string" && /^[A-Za-z0-9-]{16,64}$/.test(value) ? value : null;
  } catch {
    return null;
  }
}

/** The guest trial rule of one feature: GUEST_TRIAL_LIMIT uses per GUEST_WINDOW_MS. */
function guestRule(feature: GuestFeature): RateLimitRule {
  return { scope: `guest-usage:${feature}`, limit: GUEST_TRIAL_LIMIT, windowSeconds: GUEST_WINDOW_MS / 1000 };
}

/** The counters a guest use is counted under: the client IP and, when known, the device. */
function guestChecks(feature: GuestFeature, deviceId: string | null, ip: string): RateLimitCheck[] {
  const rule = guestRule(feature);
  const checks: RateLimitCheck[] = [{ rule, subject: `ip:${ip}` }];
  if (deviceId) checks.push({ rule, subject: `device:${deviceId}` });
  return checks;
}

async function reserveGuestUse(
  app: MeteringApp,
  request: Request,
  action: MeteredAction,
  now: Date,
): Promise<Reservation> {
  const headers = new Headers();
  let deviceId = await readDeviceId(app, request);
  if (!deviceId) {
    deviceId = crypto.randomUUID();
    headers.append("Set-Cookie", await deviceCookie(app.env.SESSION_SECRET).serialize(deviceId));
  }
  const checks = guestChecks(action.guestFeature, deviceId, clientIp(request, app.env));
  const hits = await countRateLimitHits(app, checks, now.getTime());
  if (hits.some((h) => h.count > GUEST_TRIAL_LIMIT)) {
    // Refused: give every counted hit back, so refusals never use up the other counter.
    await releaseRateLimits(app, hits);
    throw new AppError("LIMIT_REACHED", "Trial Limit Reached", 403, {
      feature: action.planFeature,
      guestFeature: action.guestFeature,
      trial: true,
      limit: GUEST_TRIAL_LIMIT,
      used: GUEST_TRIAL_LIMIT,
    });
  }
  const ticket: ReservationTicket = {
    kind: "guest",
    deviceId,
    keys: hits.map((h) => h.key),
    windowStarts: hits.map((h) => h.windowStart),
  };
  return {
    ...settleOnce(() => settleReservationTicket(app, ticket, "release", now)),
    headers,
    remaining: GUEST_TRIAL_LIMIT - Math.max(...hits.map((h) => h.count)),
    ticket,
  };
}

/**
 * Settles a reservation from its {@link ReservationTicket}, e.g. in a queue consumer long after the
 * request that reserved it. `commit`: counts the use where it is counted on success (Professional
 * statistics); `release`: gives back a use counted at reservation (Free users' monthly counter,
 * guests' counters, the latter only in the same windows: a window that has since restarted
 * keeps its count). Settle a ticket once; the caller records that it did.
 */
export async function settleReservationTicket(
  app: MeteringApp,
  ticket: ReservationTicket,
  outcome: "commit" | "release",
  now: Date = new Date(),
): Promise<void> {
  if (ticket.kind === "user") {
    if (outcome === "commit" && !ticket.limited) {
      await app.db
        .insert(aiUsage)
        .values({ userId: ticket.userId, period: ticket.period, count: 1, updatedAt: now.getTime() })
        .onConflictDoUpdate({
          target: [aiUsage.userId, aiUsage.period],
          set: { count: sql`${aiUsage.count} + 1`, updatedAt: now.getTime() },
        });
    } else if (outcome === "release" && ticket.limited) {
      await app.db
        .update(aiUsage)
        .set({ count: sql`max(${aiUsage.count} - 1, 0)` })
        .where(and(eq(aiUsage.userId, ticket.userId), eq(aiUsage.period, ticket.period)));
    }
    return;
  }
  if (outcome === "commit") return;
  await releaseRateLimits(
    app,
    ticket.keys.map((key, i) => ({ key, windowStart: ticket.windowStarts[i]! })),
  );
}

/**
 * The verified guest device id of a request (the signed `mm_device` cookie), or null when it is
 * missing, tampered or malformed. Identifies a guest's own resources (e.g. meta-analysis jobs).
 */
export function guestDeviceId(app: MeteringApp, request: Request): Promise<string | null> {
  return readDeviceId(app, request);
}

/** One guest feature's usage in the current window. */
export interface GuestFeatureUsage {
  /** Uses in the current window: the larger of the device and IP counters. */
  used: number;
  limit: number;
  /** ISO instant when the counter that gives `used` resets; null when nothing is used. */
  resetsAt: string | null;
}

/**
 * The guest trial usage of this device and IP per guest feature (the larger of the two counters,
 * as enforcement uses). Reads only; sets no cookie (a request without a device cookie reports the
 * IP counters).
 */
export async function getGuestUsage(
  app: MeteringApp,
  request: Request,
  now: Date = new Date(),
): Promise<Record<GuestFeature, GuestFeatureUsage>> {
  const deviceId = await readDeviceId(app, request);
  const ip = clientIp(request, app.env);
  const checks = GUEST_FEATURES.map((feature) => guestChecks(feature, deviceId, ip));
  const counters = await readRateLimits(app, checks.flat(), now.getTime());
  let offset = 0;
  const entries = GUEST_FEATURES.map((feature, f) => {
    const mine = counters.slice(offset, offset + checks[f]!.length);
    offset += checks[f]!.length;
    let best: (typeof counters)[number] | null = null;
    for (const c of mine) {
      if (c.count === 0 || c.resetsAt === null) continue;
      if (!best || c.count > best.count || (c.count === best.count && c.resetsAt > best.resetsAt!)) best = c;
    }
    const usage: GuestFeatureUsage = {
      used: Math.min(GUEST_TRIAL_LIMIT, best?.count ?? 0),
      limit: GUEST_TRIAL_LIMIT,
      resetsAt: best?.resetsAt ? new Date(best.resetsAt).toISOString() : null,
    };
    return [feature, usage] as const;
  });
  return Object.fromEntries(entries) as Record<GuestFeature, GuestFeatureUsage>;
}
