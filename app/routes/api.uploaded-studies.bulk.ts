import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { deleteUploadedStudies, parseStudyIds } from "~/.server/uploads/service";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use DELETE.", 405).toResponse();
}

/**
 * DELETE /api/uploaded-studies/bulk {studyIds} → {deletedCount}: deletes those of the ids that
 * belong to the signed-in user (R2 objects and rows); other ids are not touched and not counted.
 * 400 NO_STUDIES / INVALID_INPUT, 401.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "DELETE") throw new AppError("METHOD_NOT_ALLOWED", "Use DELETE.", 405);
    const ids = parseStudyIds(await readJson(request));
    const user = await requireUser(context.app, request);
    const deletedCount = await deleteUploadedStudies(context.app, { userId: user.id, ids });
    return Response.json({ deletedCount });
  });
}
