import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { createAuthenticator, LoginSchema, readCredentialsForm } from "~/.server/auth/accounts";
import { clientIp, hitRateLimit } from "~/.server/auth/rate-limit";
import { createUserSession, toPublicUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";

/** POST /api/login {email, password} → {user} with a session cookie (SPEC §7). */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const app = context.app;
    await hitRateLimit(app.bindings.KV, `login:${clientIp(request)}`, {
      limit: 20,
      windowSeconds: 15 * 60,
    });
    const form = await readCredentialsForm(request);
    const credentials = parseInput(LoginSchema, {
      email: form.get("email") ?? undefined,
      password: form.get("password") ?? undefined,
    });
    const body = new URLSearchParams(credentials);
    const formRequest = new Request(request.url, { method: "POST", body });
    const user = await createAuthenticator(app).authenticate("user-pass", formRequest);
    const cookie = await createUserSession(app, user.id);
    return Response.json({ user: toPublicUser(user) }, { headers: { "Set-Cookie": cookie } });
  });
}
