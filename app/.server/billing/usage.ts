import { and, eq } from "drizzle-orm";
import { aiUsage, type UserRow } from "../../../db/schema";
import type { Database } from "../db/client";

/** The metering period of an instant: its UTC calendar month, "YYYY-MM". */
export function usagePeriod(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/**
 * AI analyses the user has used in the period containing `now` (0 when none). Uses are counted
 * by reserveAiUse (./metering.ts), the only writer of `ai_usage`.
 */
export async function getAiUsage(
  { db }: { db: Database },
  { userId, now }: { userId: string; now: Date },
): Promise<number> {
  const [row] = await db
    .select({ count: aiUsage.count })
    .from(aiUsage)
    .where(and(eq(aiUsage.userId, userId), eq(aiUsage.period, usagePeriod(now))))
    .limit(1);
  return row?.count ?? 0;
}

/** SPEC §3 Subscription status. */
export interface SubscriptionStatus {
  isPro: boolean;
  subscription: { plan: "free" | "pro"; platform: string | null };
  usage: { aiSummaries: number; period: string };
  /** The monthly limit; null means unlimited (Professional). Also exposed as aiSummaries. */
  limits: { AI_SUMMARIES_PER_MONTH: number | null; aiSummaries: number | null };
}

/**
 * The plan, this month's AI usage and the limit (AI_SUMMARIES_PER_MONTH; Professional is
 * unlimited).
 */
export async function getSubscriptionStatus(
  deps: { db: Database; env: { AI_SUMMARIES_PER_MONTH: number } },
  { user, now }: { user: Pick<UserRow, "id" | "plan" | "subscriptionPlatform">; now: Date },
): Promise<SubscriptionStatus> {
  const isPro = user.plan === "pro";
  const used = await getAiUsage(deps, { userId: user.id, now });
  const limit = isPro ? null : deps.env.AI_SUMMARIES_PER_MONTH;
  return {
    isPro,
    subscription: { plan: user.plan, platform: isPro ? (user.subscriptionPlatform ?? "web") : null },
    usage: { aiSummaries: used, period: usagePeriod(now) },
    limits: { AI_SUMMARIES_PER_MONTH: limit, aiSummaries: limit },
  };
}
