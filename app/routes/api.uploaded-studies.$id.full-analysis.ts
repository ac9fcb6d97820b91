import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { streamUploadAnalysis } from "~/.server/uploads/ai";
import { parseUploadId } from "~/.server/uploads/service";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/uploaded-studies/{id}/full-analysis (no body) → the seven-section analysis of the
 * extracted text as a plain-text stream, stored as the study's fullTextAnalysis. Metered as
 * ai_summaries. 400 / 401 / 403 LIMIT_REACHED / 404 / 409 NOT_READY as the summary route.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const id = parseUploadId(params.id);
    const user = await requireUser(context.app, request);
    return await streamUploadAnalysis(context.app, { id, meter: { user, request } });
  });
}
