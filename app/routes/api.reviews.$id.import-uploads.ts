import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { importUploads, ImportUploadsSchema } from "~/.server/reviews/imports";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/reviews/{id}/import-uploads {uploadIds: number[]} → 201 {imported, duplicatesRemoved,
 * sourceId}: the user's uploaded PDFs as records, their text as the full text.
 * 404 REVIEW_NOT_FOUND / UPLOAD_NOT_FOUND.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    const { uploadIds } = parseInput(ImportUploadsSchema, await readJson(request));
    const result = await importUploads(
      context.app,
      { user, reviewId: params.id, uploadIds },
      { background: context.app.waitUntil },
    );
    return Response.json(result, { status: 201 });
  });
}
