import { noteActivity, recordActivity } from "../admin/activity";
import { createCookie, type AppLoadContext } from "@remix-run/cloudflare";
import { and, eq, gt } from "drizzle-orm";
import { sessions, subscriptions, users, type UserRow } from "../../../db/schema";
import { subscriptionGivesPro, type PlanSubscription } from "~/lib/billing-plan";
import type { AppServices } from "../context";
import { AppError } from "../http/errors";
import type { PublicUser } from "../../lib/public-user";

export const SESSION_COOKIE = "mm_session";
const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export type { PublicUser } from "../../lib/public-user";

export function toPublicUser(row: UserRow): PublicUser {
  return {
    id: row.id,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    profileImageUrl: row.profileImageUrl,
    createdAt: new Date(row.createdAt).toISOString(),
    isPro: row.plan === "pro",
  };
}

function sessionCookie(secret: string) {
  return createCookie(SESSION_COOKIE, {
    httpOnly: true,
    secure: true,
    sameSite: "lax",
    path: "/",
    maxAge: SESSION_TTL_MS / 1000,
    secrets: [secret],
  });
}

/**
 * Starts a session row for the user and returns the Set-Cookie header value (signed session id;
 * HttpOnly, Secure, SameSite=Lax). Signing in counts as activity (admin 'Active Users').
 */
export async function createUserSession(app: AppServices, userId: string): Promise<string> {
  const id = crypto.randomUUID() + crypto.randomUUID().replaceAll("-", "");
  await app.db.insert(sessions).values({ id, userId, expiresAt: Date.now() + SESSION_TTL_MS });
  await recordActivity(app, { userId });
  return sessionCookie(app.env.SESSION_SECRET).serialize(id);
}

async function readSessionId(app: AppServices, request: Request): Promise<string | null> {
  let value: unknown;
  try {
    value = await sessionCookie(app.env.SESSION_SECRET).parse(request.headers.get("Cookie"));
  } catch {
    return null; // a malformed or foreign cookie value means signed out
  }
  return typeof value === "string" && value.length > 0 ? value : null;
}

/** The subscription columns the effective plan is decided from. */
const PLAN_COLUMNS = {
  status: subscriptions.status,
  currentPeriodEnd: subscriptions.currentPeriodEnd,
  platform: subscriptions.platform,
};

/**
 * The user with the plan their subscriptions give at `now`: when the account has subscription rows
 * (written from Stripe webhooks), they decide (see subscriptionGivesPro; platform of the paying
 * one); an account without any keeps its stored plan (demo and manually granted accounts).
 */
export async function withEffectivePlan(
  app: Pick<AppServices, "db">,
  user: UserRow,
  now: number = Date.now(),
): Promise<UserRow> {
  const subs = await app.db.select(PLAN_COLUMNS).from(subscriptions).where(eq(subscriptions.userId, user.id));
  return planFromSubscriptions(user, subs, now);
}

/** withEffectivePlan's rule over subscription rows already read. */
function planFromSubscriptions(
  user: UserRow,
  subs: (PlanSubscription & { platform: UserRow["subscriptionPlatform"] })[],
  now: number,
): UserRow {
  if (subs.length === 0) return user;
  const paying = subs.find((sub) => subscriptionGivesPro(sub, now));
  return paying
    ? { ...user, plan: "pro", subscriptionPlatform: paying.platform }
    : { ...user, plan: "free", subscriptionPlatform: null };
}

/** The session behind this request's cookie (user id and expiry, epoch ms), or null. */
export async function getSessionInfo(
  app: AppServices,
  request: Request,
): Promise<{ userId: string; expiresAt: number; createdAt: number } | null> {
  const sessionId = await readSessionId(app, request);
  if (!sessionId) return null;
  const [row] = await app.db
    .select({ userId: sessions.userId, expiresAt: sessions.expiresAt, createdAt: sessions.createdAt })
    .from(sessions)
    .where(and(eq(sessions.id, sessionId), gt(sessions.expiresAt, Date.now())))
    .limit(1);
  return row ?? null;
}

/** The signed-in user for this request, or null (no cookie, bad signature, expired session). */
export async function getUser(app: AppServices, request: Request): Promise<UserRow | null> {
  const sessionId = await readSessionId(app, request);
  if (!sessionId) return null;
  const now = Date.now();
  const live = and(eq(sessions.id, sessionId), gt(sessions.expiresAt, now));
  // The user and their subscriptions in one round trip (D1 batch).
  const [rows, subs] = await app.db.batch([
    app.db.select({ user: users }).from(sessions).innerJoin(users, eq(users.id, sessions.userId)).where(live).limit(1),
    app.db
      .select(PLAN_COLUMNS)
      .from(subscriptions)
      .innerJoin(sessions, eq(sessions.userId, subscriptions.userId))
      .where(live),
  ]);
  const user = rows[0]?.user ?? null;
  if (!user) return null;
  app.requestLog?.setUser(user.id);
  app.waitUntil(
    noteActivity(app, user.id).catch((error: unknown) => console.error("user activity not recorded", error)),
  );
  return planFromSubscriptions(user, subs, now);
}

/** Like getUser, but a missing user is a 401 {error:'UNAUTHORIZED'}. */
export async function requireUser(app: AppServices, request: Request): Promise<UserRow> {
  const user = await getUser(app, request);
  if (!user) throw new AppError("UNAUTHORIZED", "Sign in required.", 401);
  return user;
}

/** Deletes the session row (if any) and returns a Set-Cookie header that clears the cookie. */
export async function destroyUserSession(app: AppServices, request: Request): Promise<string> {
  const sessionId = await readSessionId(app, request);
  if (sessionId) await app.db.delete(sessions).where(eq(sessions.id, sessionId));
  return sessionCookie(app.env.SESSION_SECRET).serialize("", { maxAge: 0 });
}

/** Shorthand for route modules. */
export function services(context: AppLoadContext): AppServices {
  return context.app;
}
