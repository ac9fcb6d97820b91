import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { sharePlan } from "~/.server/sharing/service";

/**
 * POST /api/shared-plans {kind: 'workout' | 'meal-plan', plan} → 201 {id, url}: a generated plan
 * under a new 128-bit public id (/workout/{id} or /meal-plan/{id}). Errors: 400 PAYLOAD_TOO_LARGE
 * (> 64 KB) / INVALID_JSON / INVALID_INPUT, 429 RATE_LIMITED.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await getUser(context.app, request);
    const created = await sharePlan(context.app, { user, request });
    return Response.json(created, { status: 201, headers: { "Cache-Control": "no-store" } });
  });
}
