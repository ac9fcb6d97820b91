import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { getSubscriptionStatus } from "~/.server/billing/usage";
import { handleApi } from "~/.server/http/errors";

/** GET /api/user/subscription → {isPro, subscription, usage, limits}; 401 when signed out. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const status = await getSubscriptionStatus(context.app, { user, now: new Date() });
    return Response.json(status, { headers: { "Cache-Control": "no-store" } });
  });
}
