import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { assertSameOrigin, CheckoutInputSchema, paymentsUnavailable } from "~/.server/billing/subscription";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";

/**
 * POST /api/subscription/create-checkout {priceId, successUrl, cancelUrl} → {url} (SPEC §7).
 * 400 INVALID_INPUT (bad price, URLs on another origin), 401 signed out, 409 ALREADY_PRO, and —
 * while no payment provider is connected — 503 PAYMENTS_UNAVAILABLE with the 'under development'
 * message.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const input = parseInput(CheckoutInputSchema, await readJson(request));
    assertSameOrigin(input, request);
    const user = await requireUser(context.app, request);
    if (user.plan === "pro") throw new AppError("ALREADY_PRO", "You already have the Professional plan.", 409);
    return paymentsUnavailable();
  });
}
