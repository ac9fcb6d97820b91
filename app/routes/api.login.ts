import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { createAuthenticator, LoginSchema, readCredentialsForm } from "~/.server/auth/accounts";
import { withLoginLimits } from "~/.server/auth/limits";
import { createUserSession, toPublicUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";

/**
 * POST /api/login {email, password} → {user} with a session cookie (SPEC §7). 400 INVALID_INPUT,
 * 401 INVALID_CREDENTIALS, 429 RATE_LIMITED (Retry-After) per IP and per account.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405, { allow: ["POST"] });
    const app = context.app;
    const form = await readCredentialsForm(request);
    const credentials = parseInput(LoginSchema, {
      email: form.get("email") ?? undefined,
      password: form.get("password") ?? undefined,
    });
    const formRequest = new Request(request.url, { method: "POST", body: new URLSearchParams(credentials) });
    const user = await withLoginLimits(app, request, credentials.email, () =>
      createAuthenticator(app).authenticate("user-pass", formRequest),
    );
    const cookie = await createUserSession(app, user.id);
    return Response.json({ user: toPublicUser(user) }, { headers: { "Set-Cookie": cookie } });
  });
}

/**
 * GET /api/login: where the client goes after a forced logout (SPEC §2, §8 'Logging in again...'):
 * a redirect to the sign-in page.
 */
export function loader() {
  return redirect("/auth", { headers: { "Cache-Control": "no-store" } });
}
