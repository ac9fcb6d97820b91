/**
 * The fake Stripe (./stripe.ts) as HTTP, for the offline server and Playwright: mounted by the
 * replay server at its root (`/v1/*` API, `/c/pay/{session}` hosted checkout, `/p/session/{id}`
 * portal), so STRIPE_API_BASE is the replay origin. Paying on the hosted checkout completes the
 * session, signs `checkout.session.completed` with STRIPE_WEBHOOK_SECRET (Stripe's scheme:
 * HMAC-SHA256 over `${t}.${payload}`, header `t=…,v1=…`), POSTs it to STRIPE_FAKE_WEBHOOK_URL and
 * sends the browser to the success URL. Active only when ../shared/fixtures/stripe exists.
 * Erasable TypeScript and node: builtins only.
 */
import { createHmac } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createFakeStripe, STRIPE_FIXTURE_FILES, type FakeStripe, type StripeFixtures } from "./stripe.ts";

export const STRIPE_FIXTURES_DIR: string = new URL("../../../shared/fixtures/stripe", import.meta.url).pathname;

/** The recorded Stripe objects, or null when ../shared/fixtures/stripe is absent. */
export function readStripeFixtures(dir: string = STRIPE_FIXTURES_DIR): StripeFixtures | null {
  if (!existsSync(`${dir}/README.md`)) return null;
  return Object.fromEntries(STRIPE_FIXTURE_FILES.map((name) => [name, readFileSync(`${dir}/${name}`, "utf8")]));
}

/** Stripe's signature header for a payload (https://docs.stripe.com/webhooks#verify-manually). */
export function stripeSignature(
  payload: string,
  secret: string,
  timestamp: number = Math.floor(Date.now() / 1000),
): string {
  const v1 = createHmac("sha256", secret).update(`${timestamp}.${payload}`).digest("hex");
  return `t=${timestamp},v1=${v1}`;
}

const page = (title: string, body: string) =>
  new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${title}</title></head><body style="font-family:sans-serif;max-width:32rem;margin:3rem auto">${body}</body></html>`,
    {
      headers: { "content-type": "text/html; charset=utf-8" },
    },
  );

/**
 * A request handler for the fake Stripe, or null when the fixtures are absent. Returns null from
 * the handler for paths it does not serve (the replay server then answers them).
 */
export function createStripeHttpHandler(opts: {
  secretKey: string;
  webhookSecret: string;
  webhookUrl: string;
  publicBase: () => string;
}) {
  const fixtures = readStripeFixtures();
  if (!fixtures) return null;
  let fake: FakeStripe | null = null;
  const stripe = () =>
    (fake ??= createFakeStripe(fixtures, { secretKey: opts.secretKey, publicBase: opts.publicBase() }));

  return async function handle(request: Request): Promise<Response | null> {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/v1/")) return stripe().handle(request);
    const pay = /^\/c\/pay\/([^/]+)$/.exec(url.pathname);
    if (pay) {
      const id = decodeURIComponent(pay[1]!);
      const session = stripe().sessions.get(id);
      if (!session) return page("Not found", "<h1>Checkout session not found</h1>");
      if (request.method === "GET") {
        return page(
          "MetaMind checkout (test)",
          `<h1>Start your 7-day free trial</h1><p>Test checkout for ${session.customer}.</p>
<form method="post"><button type="submit">Start trial</button></form>
<p><a href="${String(session.cancel_url).replaceAll('"', "&quot;")}">Cancel</a></p>`,
        );
      }
      const done = stripe().completeCheckout(id);
      const payload = JSON.stringify(done.event, null, 2);
      const delivery = await fetch(opts.webhookUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "stripe-signature": stripeSignature(payload, opts.webhookSecret),
        },
        body: payload,
      });
      console.log(`[stripe] checkout ${id} completed; webhook -> ${delivery.status}`);
      return new Response(null, { status: 303, headers: { location: done.returnUrl } });
    }
    const portal = /^\/p\/session\/([^/]+)$/.exec(url.pathname);
    if (portal) return page("Billing portal (test)", "<h1>Billing portal</h1><p>Test portal session.</p>");
    return null;
  };
}
