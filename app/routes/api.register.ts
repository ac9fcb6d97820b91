import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { RegisterSchema, registerUser } from "~/.server/auth/accounts";
import { clientIp, hitRateLimit } from "~/.server/auth/rate-limit";
import { createUserSession, toPublicUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput, readJson } from "~/.server/http/errors";

/** POST /api/register {email, password, firstName?, lastName?} → 201 {user} + session cookie. */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const app = context.app;
    await hitRateLimit(app.bindings.KV, `register:${clientIp(request)}`, {
      limit: 10,
      windowSeconds: 60 * 60,
    });
    const input = parseInput(RegisterSchema, await readJson(request));
    const user = await registerUser(app, input);
    const cookie = await createUserSession(app, user.id);
    return Response.json(
      { user: toPublicUser(user) },
      { status: 201, headers: { "Set-Cookie": cookie } },
    );
  });
}
