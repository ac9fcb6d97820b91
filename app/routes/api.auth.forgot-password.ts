import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { ForgotPasswordSchema, requestPasswordReset } from "~/.server/auth/password-reset";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";

/**
 * POST /api/auth/forgot-password {email} → {message, debugToken?} (SPEC §7). The same 200 answer
 * whether or not the account exists; `debugToken` only in development without an e-mail API.
 * 400 INVALID_INPUT, 429 RATE_LIMITED per IP and per e-mail, 502 EMAIL_FAILED.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405, { allow: ["POST"] });
    const input = parseInput(ForgotPasswordSchema, await readJson(request, { maxBytes: 4096, maxDepth: 2 }));
    const result = await requestPasswordReset(context.app, request, input);
    return Response.json(result, { headers: { "Cache-Control": "no-store" } });
  });
}
