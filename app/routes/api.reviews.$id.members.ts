import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { InviteSchema, inviteMember, listMembers } from "~/.server/reviews/members";

/**
 * GET /api/reviews/{id}/members → {members: [{userId, email, role: 'owner' | 'reviewer' | 'viewer',
 * status: 'active' | 'invited', resolver}]}: owner first, then members, then pending invitations
 * (userId null). Any member may read it. 401; 404 REVIEW_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const members = await listMembers(context.app, { userId: user.id, reviewId: params.id });
    return Response.json({ members }, { headers: { "Cache-Control": "no-store" } });
  });
}

/**
 * POST /api/reviews/{id}/members {email, role: 'reviewer' | 'viewer'} (owner) → 201 {invitation:
 * {id, email, role, expiresAt, url, debugToken?}}: sends a single-use link valid 7 days
 * (`debugToken` in development without an e-mail API). 400 INVALID_INPUT; 401; 403
 * FORBIDDEN_ROLE; 404; 409 ALREADY_MEMBER / TOO_MANY_MEMBERS; 502 EMAIL_FAILED.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use GET or POST.", 405);
    const user = await requireUser(context.app, request);
    const input = parseInput(InviteSchema, await readJson(request, { maxBytes: 4096 }));
    const invitation = await inviteMember(
      context.app,
      { user, reviewId: params.id, origin: new URL(request.url).origin },
      input,
    );
    return Response.json({ invitation }, { status: 201 });
  });
}
