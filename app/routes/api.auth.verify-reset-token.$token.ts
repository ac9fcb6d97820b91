import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { verifyResetToken } from "~/.server/auth/password-reset";
import { handleApi } from "~/.server/http/errors";

/**
 * GET /api/auth/verify-reset-token/{token} → 200 {valid:true} when the token is live (SPEC §7);
 * 400 INVALID_TOKEN ('This reset link is invalid or has expired') when it is malformed, unknown,
 * used or expired. Never cached.
 */
export async function loader({ params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    await verifyResetToken(context.app, params.token ?? "");
    return Response.json({ valid: true }, { headers: { "Cache-Control": "no-store" } });
  });
}
