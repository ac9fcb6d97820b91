import { count, desc, gte } from "drizzle-orm";
import { userActivity, users } from "../../../db/schema";
import type { AppServices } from "../context";
import { AppError } from "../http/errors";

const DAY_MS = 24 * 60 * 60 * 1000;
/** SPEC §9: recent signups window 7 days; active users 30 days. */
export const RECENT_SIGNUP_DAYS = 7;
export const ACTIVE_USER_DAYS = 30;
/** Rows in the Recent Users table. */
export const RECENT_USERS_LIMIT = 50;

/** SPEC §3 Admin stats plus the growth rate the page shows. */
export interface AdminStats {
  totalUsers: number;
  recentSignups: number;
  activeUsers: number;
  /** Weekly growth in percent: {@link growthRate}. */
  growthRate: number;
  users: { id: string; email: string; firstName: string | null; lastName: string | null; createdAt: string }[];
}

/** The admin e-mails of `ADMIN_EMAILS` (comma or whitespace separated), lower-cased. */
export function adminEmails(value: string | undefined): Set<string> {
  return new Set(
    (value ?? "")
      .split(/[\s,]+/)
      .map((e) => e.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** Whether `email` is one of `ADMIN_EMAILS` (case-insensitive). Nobody is an admin when it is unset. */
export function isAdminEmail(adminList: string | undefined, email: string): boolean {
  return adminEmails(adminList).has(email.trim().toLowerCase());
}

/**
 * SPEC §9 growth rate: recent signups ÷ max(1, total − recent), as a percent rounded to an integer.
 * @example growthRate(10, 2) === 25
 */
export function growthRate(totalUsers: number, recentSignups: number): number {
  return Math.round((recentSignups / Math.max(1, totalUsers - recentSignups)) * 100);
}

/** Throws 403 FORBIDDEN unless `user` is an admin (the server is the authority, SPEC §6). */
export function requireAdmin(env: { ADMIN_EMAILS?: string }, user: { email: string }): void {
  if (!isAdminEmail(env.ADMIN_EMAILS, user.email)) {
    throw new AppError("FORBIDDEN", "You don't have permission to access the admin panel.", 403);
  }
}

/**
 * Admin statistics (SPEC §2 Admin, §9): all users, signups in the last 7 days, users seen with a
 * valid session in the last 30 days (user_activity), the growth rate and the newest users.
 */
export async function getAdminStats(
  { db }: Pick<AppServices, "db">,
  { now = Date.now() }: { now?: number } = {},
): Promise<AdminStats> {
  const [[total], [recent], [active], newest] = await db.batch([
    db.select({ n: count() }).from(users),
    db
      .select({ n: count() })
      .from(users)
      .where(gte(users.createdAt, now - RECENT_SIGNUP_DAYS * DAY_MS)),
    db
      .select({ n: count() })
      .from(userActivity)
      .where(gte(userActivity.lastSeenAt, now - ACTIVE_USER_DAYS * DAY_MS)),
    db
      .select({
        id: users.id,
        email: users.email,
        firstName: users.firstName,
        lastName: users.lastName,
        createdAt: users.createdAt,
      })
      .from(users)
      .orderBy(desc(users.createdAt))
      .limit(RECENT_USERS_LIMIT),
  ]);
  const totalUsers = total?.n ?? 0;
  const recentSignups = recent?.n ?? 0;
  return {
    totalUsers,
    recentSignups,
    activeUsers: active?.n ?? 0,
    growthRate: growthRate(totalUsers, recentSignups),
    users: newest.map((u) => ({ ...u, createdAt: new Date(u.createdAt).toISOString() })),
  };
}
