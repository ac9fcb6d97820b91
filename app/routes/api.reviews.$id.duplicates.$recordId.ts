import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { undoMerge } from "~/.server/reviews/service";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use DELETE.", 405).toResponse();
}

/**
 * DELETE /api/reviews/{id}/duplicates/{recordId} → {recordId}: undoes the merge of that record
 * (it becomes a unique record to screen, never merged automatically again). 404; 409 NOT_A_DUPLICATE.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "DELETE") throw new AppError("METHOD_NOT_ALLOWED", "Use DELETE.", 405);
    const user = await requireUser(context.app, request);
    return Response.json(
      await undoMerge(context.app, { userId: user.id, reviewId: params.id, recordId: params.recordId }),
    );
  });
}
