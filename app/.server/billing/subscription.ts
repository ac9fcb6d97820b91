/**
 * Subscription checkout and billing portal (SPEC §7). MetaMind has no payment provider yet (the
 * settings page says the subscription service is under development), so both calls validate the
 * request and the caller, then answer 503 PAYMENTS_UNAVAILABLE with a message the page shows in
 * its 'Payment Error' / 'Portal Error' toast. Plans change only through the demo accounts and the
 * database until a provider is connected.
 */
import { z } from "zod";
import { AppError } from "../http/errors";

/** The message both calls answer with while no payment provider is connected. */
export const PAYMENTS_UNAVAILABLE_MESSAGE =
  "The subscription service is under development: payments are not available yet.";

/** POST /api/subscription/create-checkout body: {priceId: monthly|annual, successUrl, cancelUrl}. */
export const CheckoutInputSchema = z.object({
  priceId: z.enum(["monthly", "annual"], { error: "priceId must be 'monthly' or 'annual'" }),
  successUrl: z.url({ error: "successUrl must be a URL" }),
  cancelUrl: z.url({ error: "cancelUrl must be a URL" }),
});

/**
 * Checks that checkout's return URLs point back at this site (an open redirect otherwise).
 * @throws AppError 400 INVALID_INPUT when either URL is on another origin.
 */
export function assertSameOrigin(input: z.infer<typeof CheckoutInputSchema>, request: Request): void {
  const origin = new URL(request.url).origin;
  for (const [name, value] of [
    ["successUrl", input.successUrl],
    ["cancelUrl", input.cancelUrl],
  ] as const) {
    if (new URL(value).origin !== origin) {
      throw new AppError("INVALID_INPUT", `${name} must be on ${origin}`, 400);
    }
  }
}

/** @throws AppError 503 PAYMENTS_UNAVAILABLE: no payment provider is connected. */
export function paymentsUnavailable(): never {
  throw new AppError("PAYMENTS_UNAVAILABLE", PAYMENTS_UNAVAILABLE_MESSAGE, 503);
}
