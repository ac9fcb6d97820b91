import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { z } from "zod";
import { requireUser } from "~/.server/auth/session";
import { paymentsUnavailable } from "~/.server/billing/subscription";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";

/** The portal takes no input: an empty body or `{}`. */
const PortalInputSchema = z.object({}).strict();

/**
 * POST /api/subscription/create-portal (empty body) → {url} (SPEC §7). 400 for any body other
 * than empty or `{}`, 401 signed out and — while no payment provider is connected — 503
 * PAYMENTS_UNAVAILABLE with the 'under development' message.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405, { allow: ["POST"] });
    await requireUser(context.app, request);
    parseInput(PortalInputSchema, await readJson(request, { maxBytes: 1024, maxDepth: 2 }));
    return paymentsUnavailable();
  });
}
