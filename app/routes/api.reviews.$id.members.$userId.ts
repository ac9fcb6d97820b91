import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { removeMember, updateMember, UpdateMemberSchema } from "~/.server/reviews/members";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use PATCH or DELETE.", 405).toResponse();
}

/**
 * PATCH /api/reviews/{id}/members/{userId} {role?: 'reviewer' | 'viewer', resolver?: boolean}
 * (owner) → {member}; DELETE …/members/{userId} → {userId, removed: true}: the owner removes a
 * member, a member removes themselves (leaves). Effective on the member's next request.
 * 400 INVALID_INPUT; 401; 403 FORBIDDEN_ROLE; 404 REVIEW_NOT_FOUND / MEMBER_NOT_FOUND; 409 OWNER_CANNOT_LEAVE.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const target = { userId: user.id, reviewId: params.id, memberId: params.userId };
    if (request.method === "PATCH") {
      const input = parseInput(UpdateMemberSchema, await readJson(request, { maxBytes: 4096 }));
      return Response.json({ member: await updateMember(context.app, target, input) });
    }
    if (request.method === "DELETE") return Response.json(await removeMember(context.app, target));
    throw new AppError("METHOD_NOT_ALLOWED", "Use PATCH or DELETE.", 405);
  });
}
