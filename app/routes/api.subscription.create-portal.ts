import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { z } from "zod";
import { requireUser } from "~/.server/auth/session";
import { createPortalSession } from "~/.server/billing/stripe";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";

/** The portal takes no input: an empty body or `{}`. */
const PortalInputSchema = z.object({}).strict();

/**
 * POST /api/subscription/create-portal (empty body) → {url} of the Stripe Customer Portal, which
 * returns to /settings (SPEC §7). 400 for any body other than empty or `{}`, 401 signed out, 409
 * NO_WEB_SUBSCRIPTION, 502 when Stripe fails, and without STRIPE_SECRET_KEY 503
 * PAYMENTS_UNAVAILABLE with the 'under development' message.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405, { allow: ["POST"] });
    const user = await requireUser(context.app, request);
    parseInput(PortalInputSchema, await readJson(request, { maxBytes: 1024, maxDepth: 2 }));
    const returnUrl = new URL("/settings", context.app.env.APP_URL ?? request.url).toString();
    return Response.json(await createPortalSession(context.app, user, returnUrl));
  });
}
