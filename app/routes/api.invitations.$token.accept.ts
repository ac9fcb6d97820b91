import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { acceptInvitation } from "~/.server/reviews/members";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/invitations/{token}/accept (signed in as the invited e-mail) → {review, role}.
 * 401; 403 INVITATION_EMAIL_MISMATCH (another account); 404 INVITATION_NOT_FOUND; 410
 * INVITATION_GONE (used or expired).
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    return Response.json(await acceptInvitation(context.app, { user, token: params.token }));
  });
}
