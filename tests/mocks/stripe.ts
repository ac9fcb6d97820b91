/**
 * A local fake of the Stripe API, answering with the real object shapes recorded in
 * ../shared/fixtures/stripe (read at run time by the caller and passed in; never copied here):
 * POST /v1/customers, POST /v1/checkout/sessions, GET and DELETE /v1/subscriptions/{id},
 * POST /v1/billing_portal/sessions. Each answer is the fixture object with the fields the request
 * decides (ids, customer, urls, status) filled in. `completeCheckout` plays the customer paying on
 * the hosted page: it creates the trialing subscription and returns the signed-able
 * `checkout.session.completed` event built from events/checkout.session.completed.json.
 */
export type StripeFixtures = Record<string, string>;

export const STRIPE_FIXTURE_FILES = [
  "customer.json",
  "checkout.session.json",
  "subscription.json",
  "billing_portal.session.json",
  "events/checkout.session.completed.json",
  "events/customer.subscription.created.json",
  "events/customer.subscription.updated.json",
  "events/customer.subscription.deleted.json",
  "events/customer.subscription.trial_will_end.json",
  "events/invoice.paid.json",
  "events/invoice.payment_failed.json",
] as const;

export const MISSING_STRIPE_FIXTURES =
  "skipped: ../shared/fixtures/stripe not found (the recorded Stripe object shapes live outside the repo)";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const rand = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(36).padStart(2, "0"))
    .join("")
    .slice(0, 24);

/** A fixture object, parsed fresh (callers change copies, never the recorded file). */
export function fixture(fixtures: StripeFixtures, name: string): Json {
  const text = fixtures[name];
  if (!text) throw new Error(`missing Stripe fixture ${name}`);
  return JSON.parse(text) as Json;
}

/** A webhook event from events/<type>.json with a fresh id, `created` and the given object. */
export function eventOf(fixtures: StripeFixtures, type: string, object: Json, created: number): Json {
  const event = fixture(fixtures, `events/${type}.json`);
  return { ...event, id: `evt_${rand()}`, created, type, data: { ...event.data, object } };
}

/**
 * A subscription in the fixture's shape for a scenario: id, customer, status, period end and
 * trial end (epoch seconds), price and metadata set; `cancel_at_period_end` false unless given.
 */
export function subscriptionObject(
  fixtures: StripeFixtures,
  opts: {
    id?: string;
    customer: string;
    status: string;
    periodEnd: number;
    trialEnd?: number | null;
    price?: string;
    interval?: "month" | "year";
    userId?: string;
    cancelAtPeriodEnd?: boolean;
  },
): Json {
  const sub = fixture(fixtures, "subscription.json");
  const id = opts.id ?? `sub_${rand()}`;
  const item = sub.items.data[0];
  item.subscription = id;
  item.current_period_end = opts.periodEnd;
  item.current_period_start = opts.periodEnd - 30 * 86400;
  item.price.id = opts.price ?? item.price.id;
  item.price.recurring.interval = opts.interval ?? "month";
  return {
    ...sub,
    id,
    customer: opts.customer,
    status: opts.status,
    trial_start: opts.trialEnd ? opts.trialEnd - 7 * 86400 : null,
    trial_end: opts.trialEnd ?? null,
    cancel_at_period_end: opts.cancelAtPeriodEnd ?? false,
    cancel_at: null,
    canceled_at: opts.status === "canceled" ? opts.periodEnd : null,
    ended_at: null,
    metadata: opts.userId ? { userId: opts.userId } : {},
    items: { ...sub.items, data: [item], url: `/v1/subscription_items?subscription=${id}` },
  };
}

function stripeError(status: number, code: string, message: string): Response {
  return Response.json({ error: { type: "invalid_request_error", code, message } }, { status });
}

/** A fake Stripe bound to one secret key; `publicBase` is where its hosted pages are served. */
export function createFakeStripe(fixtures: StripeFixtures, opts: { secretKey: string; publicBase: string }) {
  const customers = new Map<string, Json>();
  const sessions = new Map<string, Json>();
  const subscriptionsById = new Map<string, Json>();
  const requests: { method: string; path: string; form: URLSearchParams }[] = [];

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const form = new URLSearchParams(
      request.method === "GET" || request.method === "DELETE" ? url.search : await request.text(),
    );
    requests.push({ method: request.method, path: url.pathname, form });
    if (request.headers.get("Authorization") !== `Bearer ${opts.secretKey}`) {
      return Response.json(
        { error: { type: "invalid_request_error", message: "Invalid API Key provided" } },
        { status: 401 },
      );
    }
    const path = url.pathname;
    if (request.method === "POST" && path === "/v1/customers") {
      const id = `cus_${rand()}`;
      const customer = {
        ...fixture(fixtures, "customer.json"),
        id,
        email: form.get("email"),
        metadata: { userId: form.get("metadata[userId]") },
      };
      customers.set(id, customer);
      return Response.json(customer);
    }
    if (request.method === "POST" && path === "/v1/checkout/sessions") {
      const customer = form.get("customer");
      if (!customer || !customers.has(customer))
        return stripeError(400, "resource_missing", `No such customer: '${customer}'`);
      const id = `cs_test_${rand()}`;
      const session = {
        ...fixture(fixtures, "checkout.session.json"),
        id,
        mode: form.get("mode"),
        customer,
        client_reference_id: form.get("client_reference_id"),
        success_url: form.get("success_url"),
        cancel_url: form.get("cancel_url"),
        metadata: { userId: form.get("metadata[userId]"), plan: form.get("metadata[plan]") },
        url: `${opts.publicBase}/c/pay/${id}`,
        status: "open",
        payment_status: "unpaid",
        payment_intent: null,
        subscription: null,
        _price: form.get("line_items[0][price]"),
        _trialDays: Number(form.get("subscription_data[trial_period_days]") ?? "0"),
        _subscriptionUserId: form.get("subscription_data[metadata][userId]"),
      };
      sessions.set(id, session);
      const { _price, _trialDays, _subscriptionUserId, ...visible } = session;
      return Response.json(visible);
    }
    const subMatch = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
    if (subMatch) {
      const sub = subscriptionsById.get(decodeURIComponent(subMatch[1]!));
      if (!sub) return stripeError(404, "resource_missing", `No such subscription: '${subMatch[1]}'`);
      if (request.method === "GET") return Response.json(sub);
      if (request.method === "DELETE") {
        const canceled = {
          ...sub,
          status: "canceled",
          canceled_at: Math.floor(Date.now() / 1000),
          ended_at: Math.floor(Date.now() / 1000),
        };
        subscriptionsById.set(sub.id, canceled);
        return Response.json(canceled);
      }
    }
    if (request.method === "POST" && path === "/v1/billing_portal/sessions") {
      const customer = form.get("customer");
      if (!customer || !customers.has(customer))
        return stripeError(400, "resource_missing", `No such customer: '${customer}'`);
      const id = `bps_${rand()}`;
      return Response.json({
        ...fixture(fixtures, "billing_portal.session.json"),
        id,
        customer,
        return_url: form.get("return_url"),
        flow: null,
        url: `${opts.publicBase}/p/session/${id}`,
      });
    }
    return stripeError(404, "resource_missing", `Unrecognized request URL (${request.method}: ${path})`);
  }

  /**
   * The customer pays on the hosted page: the session completes, a trialing subscription is
   * created, and the `checkout.session.completed` event (unsigned) is returned with the URL the
   * browser goes back to.
   */
  function completeCheckout(sessionId: string, nowSeconds: number = Math.floor(Date.now() / 1000)) {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`no checkout session ${sessionId}`);
    const trialEnd = nowSeconds + (session._trialDays || 0) * 86400;
    const sub = subscriptionObject(fixtures, {
      customer: session.customer,
      status: session._trialDays ? "trialing" : "active",
      periodEnd: session._trialDays ? trialEnd : nowSeconds + 30 * 86400,
      trialEnd: session._trialDays ? trialEnd : null,
      price: session._price,
      userId: session._subscriptionUserId ?? undefined,
    });
    subscriptionsById.set(sub.id, sub);
    const { _price, _trialDays, _subscriptionUserId, ...visible } = session;
    const completed = { ...visible, status: "complete", payment_status: "paid", subscription: sub.id };
    sessions.set(sessionId, { ...session, status: "complete", subscription: sub.id });
    const event = eventOf(fixtures, "checkout.session.completed", completed, nowSeconds);
    const returnUrl = String(session.success_url).replace("{CHECKOUT_SESSION_ID}", sessionId);
    return { event, subscription: sub, returnUrl, cancelUrl: String(session.cancel_url) };
  }

  /** Sets a stored subscription's fields (a renewal failing, a cancellation…) and returns it. */
  function updateSubscription(id: string, patch: Json): Json {
    const sub = { ...subscriptionsById.get(id), ...patch };
    subscriptionsById.set(id, sub);
    return sub;
  }

  const fetchFn = ((input: RequestInfo | URL, init?: RequestInit) => handle(new Request(input, init))) as typeof fetch;
  return {
    handle,
    fetch: fetchFn,
    completeCheckout,
    updateSubscription,
    customers,
    sessions,
    subscriptions: subscriptionsById,
    requests,
  };
}

export type FakeStripe = ReturnType<typeof createFakeStripe>;
