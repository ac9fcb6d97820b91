import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser, toPublicUser } from "~/.server/auth/session";
import { handleApi } from "~/.server/http/errors";

/** GET /api/user → the signed-in user; 401 {error:'UNAUTHORIZED'} when signed out. Never cached. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    return Response.json(toPublicUser(user), { headers: { "Cache-Control": "no-store" } });
  });
}
