/**
 * Checkout input rules and the answer while no payment provider is configured (SPEC §7). With
 * STRIPE_SECRET_KEY set, checkout and portal go through Stripe (./stripe.ts); without it both
 * calls validate the request and the caller, then answer 503 PAYMENTS_UNAVAILABLE with the
 * 'under development' message the page shows in its 'Payment Error' / 'Portal Error' toast.
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

/** @throws AppError 503 PAYMENTS_UNAVAILABLE: no payment provider is configured. */
export function paymentsUnavailable(): never {
  throw new AppError("PAYMENTS_UNAVAILABLE", PAYMENTS_UNAVAILABLE_MESSAGE, 503);
}
