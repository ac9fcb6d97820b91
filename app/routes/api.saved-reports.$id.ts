import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { deleteSavedReport, parseReportId } from "~/.server/library/reports";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use DELETE.", 405).toResponse();
}

/**
 * DELETE /api/saved-reports/{id} → {ok: true}. 400 INVALID_REPORT_ID; 404 REPORT_NOT_FOUND for an
 * unknown id or another user's report.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "DELETE") throw new AppError("METHOD_NOT_ALLOWED", "Use DELETE.", 405);
    const id = parseReportId(params.id);
    const user = await requireUser(context.app, request);
    await deleteSavedReport(context.app, { userId: user.id, id });
    return Response.json({ ok: true });
  });
}
