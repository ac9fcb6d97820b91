import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { uploadPdfs } from "~/.server/uploads/service";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/upload-pdfs (multipart/form-data, repeated field 'pdfs', ≤ 10 PDFs of ≤ 50 MB) →
 * `{results: [{fileName, success, fileSize?, id?, status?, message, error?}]}`; each stored file
 * is queued for text extraction. 401 signed out; 403 PRO_REQUIRED {feature:'pdf_upload'}; 400
 * INVALID_MULTIPART / NO_FILES / TOO_MANY_FILES; when no file was accepted, the first refusal's
 * status: 413 FILE_TOO_LARGE, 415 NOT_PDF, 400 EMPTY_FILE (with `results`).
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    return await uploadPdfs(context.app, { user, request });
  });
}
