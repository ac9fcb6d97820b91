import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getSessionInfo } from "~/.server/auth/session";
import { handleApi } from "~/.server/http/errors";

/**
 * GET /api/debug/session → the server's view of this browser's session (SPEC §4: the client
 * compares it with GET /api/user after sign-in and forces a logout on a mismatch):
 * `{authenticated:true, userId, expiresAt, createdAt}` (ISO times) or `{authenticated:false,
 * userId:null}`. Nothing secret: no session id, no cookie value. Never cached.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const info = await getSessionInfo(context.app, request);
    const body = info
      ? {
          authenticated: true,
          userId: info.userId,
          expiresAt: new Date(info.expiresAt).toISOString(),
          createdAt: new Date(info.createdAt).toISOString(),
        }
      : { authenticated: false, userId: null };
    return Response.json(body, { headers: { "Cache-Control": "no-store" } });
  });
}
