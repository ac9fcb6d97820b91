import Stripe from "stripe";
import type { AppEnv } from "../env";

type StripeEnv = Pick<AppEnv, "STRIPE_SECRET_KEY" | "STRIPE_API_BASE">;

/**
 * The stripe SDK set up for Workers: requests through the given `fetch`
 * (Stripe.createFetchHttpClient) and, when STRIPE_API_BASE is set (a local fake Stripe in tests
 * and the offline demo), to that host, port and protocol instead of api.stripe.com. No retries:
 * callers answer the user at once. Returns null without STRIPE_SECRET_KEY.
 */
export function createStripe(env: StripeEnv, fetchFn: typeof fetch): Stripe | null {
  if (!env.STRIPE_SECRET_KEY) return null;
  const base = env.STRIPE_API_BASE ? new URL(env.STRIPE_API_BASE) : null;
  const protocol = base?.protocol === "http:" ? "http" : "https";
  return new Stripe(env.STRIPE_SECRET_KEY, {
    httpClient: Stripe.createFetchHttpClient(fetchFn),
    maxNetworkRetries: 0,
    timeout: 20_000,
    telemetry: false,
    ...(base
      ? { host: base.hostname, port: base.port ? Number(base.port) : protocol === "http" ? 80 : 443, protocol }
      : {}),
  });
}

/** Web Crypto provider for webhook signature checks in Workers (no Node crypto). */
export const webCrypto = Stripe.createSubtleCryptoProvider();

export { Stripe };
