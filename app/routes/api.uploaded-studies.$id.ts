import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { deleteUploadedStudy, getUploadedStudy, parseUploadId, toApiUploadedStudy } from "~/.server/uploads/service";

/** GET /api/uploaded-studies/{id} → the study with its fullTextContent. 400 INVALID_UPLOAD_ID; 404 UPLOAD_NOT_FOUND (also another user's id). */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const id = parseUploadId(params.id);
    const user = await requireUser(context.app, request);
    const row = await getUploadedStudy(context.app, { userId: user.id, id });
    return Response.json(toApiUploadedStudy(row, true), { headers: { "Cache-Control": "no-store" } });
  });
}

/** DELETE /api/uploaded-studies/{id} → {ok: true, deletedCount: 1}; removes the R2 object and the row. 404 UPLOAD_NOT_FOUND. */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "DELETE") throw new AppError("METHOD_NOT_ALLOWED", "Use DELETE.", 405);
    const id = parseUploadId(params.id);
    const user = await requireUser(context.app, request);
    await deleteUploadedStudy(context.app, { userId: user.id, id });
    return Response.json({ ok: true, deletedCount: 1 });
  });
}
