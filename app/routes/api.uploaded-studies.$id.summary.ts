import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { streamUploadSummary } from "~/.server/uploads/ai";
import { parseUploadId } from "~/.server/uploads/service";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/uploaded-studies/{id}/summary (no body) → the summary as a plain-text stream, stored
 * as the study's aiSummary. Metered as ai_summaries. 400 INVALID_UPLOAD_ID / NO_CONTENT, 401, 403
 * LIMIT_REACHED, 404 UPLOAD_NOT_FOUND, 409 NOT_READY.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const id = parseUploadId(params.id);
    const user = await requireUser(context.app, request);
    return await streamUploadSummary(context.app, { id, meter: { user, request } });
  });
}
