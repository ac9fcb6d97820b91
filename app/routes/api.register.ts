import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { RegisterSchema, registerUser } from "~/.server/auth/accounts";
import { withRegistrationLimit } from "~/.server/auth/limits";
import { createUserSession, toPublicUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";

/**
 * POST /api/register {email, password, firstName?, lastName?} → 201 {user} + session cookie.
 * 400 INVALID_INPUT / INVALID_JSON / INVALID_BODY, 409 EMAIL_TAKEN, 429 RATE_LIMITED (Retry-After).
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405, { allow: ["POST"] });
    const app = context.app;
    const input = parseInput(RegisterSchema, await readJson(request, { maxBytes: 16 * 1024, maxDepth: 4 }));
    const user = await withRegistrationLimit(app, request, () => registerUser(app, input));
    const cookie = await createUserSession(app, user.id);
    return Response.json({ user: toPublicUser(user) }, { status: 201, headers: { "Set-Cookie": cookie } });
  });
}
