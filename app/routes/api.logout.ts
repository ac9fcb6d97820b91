import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { destroyUserSession } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";

/** POST /api/logout: ends the session row and clears the cookie. */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const cookie = await destroyUserSession(context.app, request);
    return Response.json({ ok: true }, { headers: { "Set-Cookie": cookie } });
  });
}
