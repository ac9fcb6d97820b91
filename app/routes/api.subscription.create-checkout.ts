import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { createCheckoutSession } from "~/.server/billing/stripe";
import { assertSameOrigin, CheckoutInputSchema } from "~/.server/billing/subscription";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";

/**
 * POST /api/subscription/create-checkout {priceId: monthly|annual, successUrl, cancelUrl} → {url}
 * of a Stripe Checkout Session (subscription mode, 7-day trial) (SPEC §7). 400 INVALID_INPUT (bad
 * price, URLs on another origin), 401 signed out, 409 ALREADY_PRO, 502 when Stripe fails, and
 * without STRIPE_SECRET_KEY 503 PAYMENTS_UNAVAILABLE with the 'under development' message.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const input = parseInput(CheckoutInputSchema, await readJson(request, { maxBytes: 8192, maxDepth: 2 }));
    assertSameOrigin(input, request);
    const user = await requireUser(context.app, request);
    if (user.plan === "pro") throw new AppError("ALREADY_PRO", "You already have the Professional plan.", 409);
    return Response.json(await createCheckoutSession(context.app, user, input));
  });
}
