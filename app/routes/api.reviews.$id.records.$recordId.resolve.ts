import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { resolveConflict, ResolveSchema } from "~/.server/reviews/votes";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/reviews/{id}/records/{recordId}/resolve {stage, decision, reason?} (owner or a named
 * resolver) → {recordId, stage, decision, reason, votes}: the final decision on a conflict; both
 * votes stay. 400 INVALID_INPUT / REASON_REQUIRED; 401; 403 FORBIDDEN_ROLE; 404; 409 NOT_IN_CONFLICT.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    const input = parseInput(ResolveSchema, await readJson(request, { maxBytes: 4096 }));
    return Response.json(
      await resolveConflict(context.app, { userId: user.id, reviewId: params.id, recordId: params.recordId }, input),
    );
  });
}
