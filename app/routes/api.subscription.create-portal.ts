import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { paymentsUnavailable } from "~/.server/billing/subscription";
import { AppError, handleApi } from "~/.server/http/errors";

/**
 * POST /api/subscription/create-portal (empty body) → {url} (SPEC §7). 401 signed out and — while
 * no payment provider is connected — 503 PAYMENTS_UNAVAILABLE with the 'under development' message.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    await requireUser(context.app, request);
    return paymentsUnavailable();
  });
}
