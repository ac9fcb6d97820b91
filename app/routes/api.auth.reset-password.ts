import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { RESET_DONE_MESSAGE, resetPassword, ResetPasswordSchema } from "~/.server/auth/password-reset";
import { destroyUserSession } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";

/**
 * POST /api/auth/reset-password {token, newPassword} → {message} (SPEC §7). Changes the password,
 * ends every session of the account (this browser's cookie is cleared too) and uses up the token.
 * 400 INVALID_INPUT ('Password must be at least 6 characters long'), 400 INVALID_TOKEN.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405, { allow: ["POST"] });
    const input = parseInput(ResetPasswordSchema, await readJson(request, { maxBytes: 4096, maxDepth: 2 }));
    await resetPassword(context.app, input);
    const clearCookie = await destroyUserSession(context.app, request);
    return Response.json(
      { message: RESET_DONE_MESSAGE },
      { headers: { "Set-Cookie": clearCookie, "Cache-Control": "no-store" } },
    );
  });
}
