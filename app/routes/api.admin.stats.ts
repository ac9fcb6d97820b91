import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getAdminStats, requireAdmin } from "~/.server/admin/stats";
import { requireUser } from "~/.server/auth/session";
import { handleApi } from "~/.server/http/errors";

/**
 * GET /api/admin/stats → {totalUsers, recentSignups, activeUsers, growthRate, users[]}
 * (SPEC §2 Admin, §3 Admin stats, §9). Errors: 401 UNAUTHORIZED signed out, 403 FORBIDDEN for
 * anyone whose e-mail is not in ADMIN_EMAILS.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    requireAdmin(context.app.env, user);
    return Response.json(await getAdminStats(context.app), { headers: { "Cache-Control": "no-store" } });
  });
}
