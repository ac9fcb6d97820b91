/**
 * Stripe subscriptions (issue 15): Checkout with a 7-day trial, the Customer Portal, verified and
 * idempotent webhooks that keep the `subscriptions` table (which decides `isPro`, see
 * app/lib/billing-plan.ts) in step with Stripe, and cancellation when an account is deleted.
 *
 * Every function takes its dependencies (db, env, fetch); the SDK is built per call from them
 * (createStripe), pointed at STRIPE_API_BASE when set.
 */
import { and, eq, notInArray, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { stripeCustomers, stripeEvents, subscriptions, users, type UserRow } from "../../../db/schema";
import type { BillingInterval } from "~/lib/billing-plan";
import type { AppServices } from "../context";
import { AppError } from "../http/errors";
import { createStripe, webCrypto } from "./stripe-client";
import { paymentsUnavailable } from "./subscription";

type BillingApp = Pick<AppServices, "db" | "env" | "fetch">;

/** Free trial of every new subscription (SPEC §1, §9). */
export const TRIAL_DAYS = 7;
/** Largest webhook body read (Stripe events are a few KB). */
export const MAX_WEBHOOK_BYTES = 512 * 1024;

/** Subscription statuses that no longer bill (nothing to cancel). */
const ENDED_STATUSES = ["canceled", "incomplete_expired"];

function stripeOrUnavailable(app: BillingApp): Stripe {
  return createStripe(app.env, app.fetch) ?? paymentsUnavailable();
}

/** A Stripe API failure as the user's 502 (message logged with its cause). */
function upstreamError(what: string, error: unknown): AppError {
  console.error(`Stripe ${what} failed`, error);
  return new AppError("PAYMENT_PROVIDER_ERROR", `The payment provider could not ${what}. Please try again.`, 502);
}

/**
 * The user's Stripe Customer id, created once (idempotency key per user) and stored in
 * `stripe_customers`; a concurrent first checkout reuses the row the other one stored.
 */
export async function ensureStripeCustomer(
  app: BillingApp,
  stripe: Stripe,
  user: Pick<UserRow, "id" | "email">,
): Promise<string> {
  const [known] = await app.db.select().from(stripeCustomers).where(eq(stripeCustomers.userId, user.id)).limit(1);
  if (known) return known.customerId;
  let customer: Stripe.Customer;
  try {
    customer = await stripe.customers.create(
      { email: user.email, metadata: { userId: user.id } },
      { idempotencyKey: `metamind-customer-${user.id}` },
    );
  } catch (error) {
    throw upstreamError("create your customer record", error);
  }
  await app.db.insert(stripeCustomers).values({ userId: user.id, customerId: customer.id }).onConflictDoNothing();
  const [stored] = await app.db.select().from(stripeCustomers).where(eq(stripeCustomers.userId, user.id)).limit(1);
  return stored?.customerId ?? customer.id;
}

/** Adds Stripe's `{CHECKOUT_SESSION_ID}` placeholder as `session_id` (kept literal: Stripe fills it). */
export function withSessionIdPlaceholder(successUrl: string): string {
  if (new URL(successUrl).searchParams.has("session_id")) return successUrl;
  return `${successUrl}${successUrl.includes("?") ? "&" : "?"}session_id={CHECKOUT_SESSION_ID}`;
}

/**
 * POST /api/subscription/create-checkout: a subscription-mode Checkout Session for the plan's
 * price (STRIPE_PRICE_MONTHLY / STRIPE_PRICE_ANNUAL), with a 7-day trial, the user's Customer and
 * `client_reference_id` = user id. Returns the hosted page's URL.
 * @throws 503 PAYMENTS_UNAVAILABLE without STRIPE_SECRET_KEY or the plan's price; 502 when Stripe fails.
 */
export async function createCheckoutSession(
  app: BillingApp,
  user: Pick<UserRow, "id" | "email">,
  input: { priceId: BillingInterval; successUrl: string; cancelUrl: string },
): Promise<{ url: string }> {
  const stripe = stripeOrUnavailable(app);
  const price = input.priceId === "annual" ? app.env.STRIPE_PRICE_ANNUAL : app.env.STRIPE_PRICE_MONTHLY;
  if (!price) {
    throw new AppError("PAYMENTS_UNAVAILABLE", `The ${input.priceId} plan is not available yet.`, 503);
  }
  const customer = await ensureStripeCustomer(app, stripe, user);
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.create({
      mode: "subscription",
      customer,
      client_reference_id: user.id,
      line_items: [{ price, quantity: 1 }],
      subscription_data: { trial_period_days: TRIAL_DAYS, metadata: { userId: user.id } },
      metadata: { userId: user.id, plan: input.priceId },
      success_url: withSessionIdPlaceholder(input.successUrl),
      cancel_url: input.cancelUrl,
    });
  } catch (error) {
    throw upstreamError("start checkout", error);
  }
  if (!session.url) throw upstreamError("start checkout", new Error(`session ${session.id} has no url`));
  return { url: session.url };
}

/**
 * POST /api/subscription/create-portal: a Customer Portal session for the user's Stripe Customer,
 * returning to /settings. Only for web subscriptions (an app-store subscription is managed in the
 * store).
 * @throws 503 PAYMENTS_UNAVAILABLE without STRIPE_SECRET_KEY; 409 NO_WEB_SUBSCRIPTION; 502.
 */
export async function createPortalSession(
  app: BillingApp,
  user: Pick<UserRow, "id" | "plan" | "subscriptionPlatform">,
  returnUrl: string,
): Promise<{ url: string }> {
  const stripe = stripeOrUnavailable(app);
  const [customer] = await app.db.select().from(stripeCustomers).where(eq(stripeCustomers.userId, user.id)).limit(1);
  if (!customer || (user.plan === "pro" && user.subscriptionPlatform !== "web")) {
    throw new AppError(
      "NO_WEB_SUBSCRIPTION",
      "Billing is managed where you subscribed: there is no web subscription on this account.",
      409,
    );
  }
  try {
    const session = await stripe.billingPortal.sessions.create({
      customer: customer.customerId,
      return_url: returnUrl,
    });
    return { url: session.url };
  } catch (error) {
    throw upstreamError("open the billing portal", error);
  }
}

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  typeof value === "string" ? value : value && typeof value.id === "string" ? value.id : null;

/**
 * The end of the current paid period (epoch ms): `current_period_end` of the subscription (API
 * versions before 2025-03-31.basil) or, in newer versions where it moved to the items, the latest
 * item's.
 */
export function periodEndOf(sub: Stripe.Subscription): number | null {
  const top = (sub as unknown as { current_period_end?: unknown }).current_period_end;
  if (typeof top === "number") return top * 1000;
  const ends = (sub.items?.data ?? [])
    .map((item) => (item as unknown as { current_period_end?: unknown }).current_period_end)
    .filter((v): v is number => typeof v === "number");
  return ends.length ? Math.max(...ends) * 1000 : null;
}

/** monthly / annual from the configured price ids, else from the price's interval. */
export function planOf(
  sub: Stripe.Subscription,
  env: BillingApp["env"],
): { plan: BillingInterval | null; priceId: string | null } {
  const price = sub.items?.data?.[0]?.price;
  const priceId = price?.id ?? null;
  if (priceId && priceId === env.STRIPE_PRICE_ANNUAL) return { plan: "annual", priceId };
  if (priceId && priceId === env.STRIPE_PRICE_MONTHLY) return { plan: "monthly", priceId };
  const interval = price?.recurring?.interval;
  return { plan: interval === "year" ? "annual" : interval === "month" ? "monthly" : null, priceId };
}

/** The account a subscription belongs to: its stored Customer, else our metadata.userId. */
async function ownerOf(
  app: BillingApp,
  customerId: string,
  metadataUserId: string | undefined,
): Promise<string | null> {
  const [byCustomer] = await app.db
    .select({ userId: stripeCustomers.userId })
    .from(stripeCustomers)
    .where(eq(stripeCustomers.customerId, customerId))
    .limit(1);
  if (byCustomer) return byCustomer.userId;
  if (!metadataUserId) return null;
  const [user] = await app.db.select({ id: users.id }).from(users).where(eq(users.id, metadataUserId)).limit(1);
  return user?.id ?? null;
}

/** The upsert of one subscription's state; an older event never overwrites a newer one. */
function upsertSubscription(app: BillingApp, sub: Stripe.Subscription, userId: string, eventCreated: number) {
  const { plan, priceId } = planOf(sub, app.env);
  const values = {
    id: sub.id,
    userId,
    customerId: idOf(sub.customer) ?? "",
    platform: "web",
    status: sub.status,
    plan,
    priceId,
    currentPeriodEnd: periodEndOf(sub),
    trialEnd: typeof sub.trial_end === "number" ? sub.trial_end * 1000 : null,
    cancelAtPeriodEnd: Boolean(sub.cancel_at_period_end),
    eventCreated,
    updatedAt: Date.now(),
  };
  const { id: _id, ...update } = values;
  return app.db
    .insert(subscriptions)
    .values(values)
    .onConflictDoUpdate({
      target: subscriptions.id,
      set: update,
      setWhere: sql`excluded.event_created >= ${subscriptions.eventCreated}`,
    });
}

/** What one webhook delivery did. */
export interface WebhookResult {
  received: true;
  eventId: string;
  type: string;
  duplicate: boolean;
  /** Subscription ids whose state was written. */
  applied: string[];
}

/** The subscription as Stripe has it now; null when Stripe does not know it (resource_missing). */
async function retrieveSubscription(stripe: Stripe, id: string): Promise<Stripe.Subscription | null> {
  try {
    return await stripe.subscriptions.retrieve(id);
  } catch (error) {
    if ((error as { code?: string }).code === "resource_missing") return null;
    console.error("Stripe subscription retrieve failed", error);
    throw new AppError(
      "PAYMENT_PROVIDER_UNAVAILABLE",
      "Could not read the subscription from Stripe; retry later.",
      503,
    );
  }
}

/** The subscription id of an invoice (`parent.subscription_details.subscription`, or the older top-level field). */
export function invoiceSubscriptionId(invoice: Stripe.Invoice): string | null {
  const parent = (
    invoice as unknown as { parent?: { subscription_details?: { subscription?: unknown } | null } | null }
  ).parent;
  const fromParent = parent?.subscription_details?.subscription;
  if (typeof fromParent === "string" || (fromParent && typeof fromParent === "object")) {
    return idOf(fromParent as string | { id: string });
  }
  return idOf((invoice as unknown as { subscription?: string | { id: string } | null }).subscription);
}

/**
 * POST /api/stripe/webhook. Verifies `Stripe-Signature` over the raw body with
 * STRIPE_WEBHOOK_SECRET (the SDK's constructEventAsync with its Web Crypto provider; 300 s
 * tolerance), skips an event id already applied, then writes the subscription state and records
 * the event id in ONE D1 batch:
 * - checkout.session.completed (subscription mode): links the Customer to `client_reference_id`
 *   and stores the subscription as Stripe returns it now;
 * - customer.subscription.created / updated / deleted / trial_will_end: stores the event's
 *   subscription (deleted → status canceled);
 * - invoice.paid / invoice.payment_failed: re-reads the invoice's subscription from Stripe (its
 *   status moves to active / past_due) and stores it.
 * @param now epoch ms (tests inject it for recorded signatures).
 * @throws 400 INVALID_SIGNATURE (nothing written); 404 WEBHOOK_NOT_CONFIGURED without the secret
 * or key; 503 when Stripe cannot be read (Stripe retries the delivery).
 */
export async function handleStripeWebhook(
  app: BillingApp,
  payload: string,
  signature: string | null,
  now: number = Date.now(),
): Promise<WebhookResult> {
  if (!signature) throw new AppError("INVALID_SIGNATURE", "Missing Stripe-Signature header.", 400);
  const secret = app.env.STRIPE_WEBHOOK_SECRET;
  const stripe = createStripe(app.env, app.fetch);
  if (!secret || !stripe) throw new AppError("WEBHOOK_NOT_CONFIGURED", "Stripe webhooks are not configured here.", 404);
  let event: Stripe.Event;
  try {
    event = await stripe.webhooks.constructEventAsync(payload, signature, secret, undefined, webCrypto, now);
  } catch {
    throw new AppError("INVALID_SIGNATURE", "The Stripe-Signature header does not match this payload.", 400);
  }
  const result: WebhookResult = { received: true, eventId: event.id, type: event.type, duplicate: false, applied: [] };
  const [seen] = await app.db
    .select({ id: stripeEvents.id })
    .from(stripeEvents)
    .where(eq(stripeEvents.id, event.id))
    .limit(1);
  if (seen) return { ...result, duplicate: true };

  const writes: ReturnType<typeof upsertSubscription>[] = [];
  const applied: string[] = [];
  const apply = (sub: Stripe.Subscription, userId: string) => {
    writes.push(upsertSubscription(app, sub, userId, event.created));
    applied.push(sub.id);
  };
  let link: { userId: string; customerId: string } | null = null;
  switch (event.type) {
    case "checkout.session.completed": {
      const session = event.data.object;
      const subId = idOf(session.subscription);
      const customerId = idOf(session.customer);
      const userId = session.client_reference_id;
      if (session.mode !== "subscription" || !subId || !customerId || !userId) break;
      const [user] = await app.db.select({ id: users.id }).from(users).where(eq(users.id, userId)).limit(1);
      if (!user) break;
      link = { userId, customerId };
      const sub = await retrieveSubscription(stripe, subId);
      if (sub) apply(sub, userId);
      break;
    }
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
    case "customer.subscription.trial_will_end": {
      const sub = event.data.object;
      const state = event.type === "customer.subscription.deleted" ? { ...sub, status: "canceled" as const } : sub;
      const userId = await ownerOf(app, idOf(sub.customer) ?? "", sub.metadata?.userId);
      if (userId) apply(state, userId);
      break;
    }
    case "invoice.paid":
    case "invoice.payment_failed": {
      const subId = invoiceSubscriptionId(event.data.object);
      if (!subId) break;
      const sub = await retrieveSubscription(stripe, subId);
      if (!sub) break;
      const userId = await ownerOf(app, idOf(sub.customer) ?? "", sub.metadata?.userId);
      if (userId) apply(sub, userId);
      break;
    }
    default:
      break;
  }
  const record = app.db.insert(stripeEvents).values({ id: event.id, type: event.type }).onConflictDoNothing();
  const linkWrite = link ? [app.db.insert(stripeCustomers).values(link).onConflictDoNothing()] : [];
  await app.db.batch([record, ...linkWrite, ...writes]);
  if (event.type === "customer.subscription.trial_will_end") {
    console.info(`[stripe] trial of ${(event.data.object as Stripe.Subscription).id} ends soon`);
  }
  return { ...result, applied };
}

/**
 * Cancels (immediately) every still-billing Stripe subscription of an account, before the account
 * is deleted, and marks them canceled. A subscription Stripe no longer knows counts as cancelled.
 * @throws 503 PAYMENTS_UNAVAILABLE when the account has one but Stripe is not configured; 502 when
 * Stripe refuses (the account is then kept, so nobody is billed for a deleted account).
 */
export async function cancelSubscriptionsOf(app: BillingApp, userId: string): Promise<number> {
  const live = await app.db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.userId, userId),
        eq(subscriptions.platform, "web"),
        notInArray(subscriptions.status, ENDED_STATUSES),
      ),
    );
  if (live.length === 0) return 0;
  const stripe = createStripe(app.env, app.fetch);
  if (!stripe) {
    throw new AppError(
      "PAYMENTS_UNAVAILABLE",
      "Your subscription cannot be cancelled right now, so the account was not deleted. Please try again later.",
      503,
    );
  }
  for (const { id } of live) {
    try {
      await stripe.subscriptions.cancel(id);
    } catch (error) {
      const code = (error as { code?: string; statusCode?: number }).code;
      if (code !== "resource_missing") throw upstreamError("cancel your subscription", error);
    }
    await app.db
      .update(subscriptions)
      .set({ status: "canceled", updatedAt: Date.now() })
      .where(eq(subscriptions.id, id));
  }
  return live.length;
}
