import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { deleteCharacteristicColumn } from "~/.server/reviews/characteristics";

/**
 * DELETE /api/reviews/{id}/characteristics/columns/{columnId} → 204: removes a column a reviewer
 * added (its edits stay in the audit table). 401; 403 FORBIDDEN_ROLE; 404 REVIEW_NOT_FOUND /
 * COLUMN_NOT_FOUND; 405.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "DELETE") throw new AppError("METHOD_NOT_ALLOWED", "Use DELETE.", 405);
    const user = await requireUser(context.app, request);
    await deleteCharacteristicColumn(context.app, { userId: user.id, reviewId: params.id, columnId: params.columnId });
    return new Response(null, { status: 204 });
  });
}
