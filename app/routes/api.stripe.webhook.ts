import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { handleStripeWebhook, MAX_WEBHOOK_BYTES } from "~/.server/billing/stripe";
import { AppError, handleApi } from "~/.server/http/errors";
import { readCappedText } from "~/.server/http/json-body";

/**
 * POST /api/stripe/webhook: Stripe's event deliveries. The raw body (at most 512 KB) is verified
 * against `Stripe-Signature` before anything is parsed or written. 200 {received, eventId, type,
 * duplicate, applied}; 400 INVALID_SIGNATURE; 404 WEBHOOK_NOT_CONFIGURED; 413; 503 when Stripe
 * cannot be read (Stripe retries).
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405, { allow: ["POST"] });
    const payload = await readCappedText(request, MAX_WEBHOOK_BYTES);
    const result = await handleStripeWebhook(context.app, payload, request.headers.get("Stripe-Signature"));
    return Response.json(result);
  });
}
