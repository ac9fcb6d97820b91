/**
 * Which subscription states give the Professional plan (pure; used by the server's `isPro` and its
 * tests).
 *
 * - `trialing`, `active`: Professional.
 * - `past_due` (a renewal payment failed and Stripe is retrying): Professional until the paid
 *   period ends (`currentPeriodEnd`), Free after; without a known period end, Free.
 * - `canceled`, `unpaid`, `incomplete`, `incomplete_expired`, `paused` and anything else: Free.
 */
export interface PlanSubscription {
  status: string;
  /** Epoch ms when the current paid period ends, or null. */
  currentPeriodEnd: number | null;
}

/** True when the subscription gives Professional at `now` (epoch ms). */
export function subscriptionGivesPro(sub: PlanSubscription, now: number): boolean {
  if (sub.status === "trialing" || sub.status === "active") return true;
  if (sub.status === "past_due") return sub.currentPeriodEnd !== null && now < sub.currentPeriodEnd;
  return false;
}

/** The plans checkout sells. */
export type BillingInterval = "monthly" | "annual";
