import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { listUploadedStudies } from "~/.server/uploads/service";

/**
 * GET /api/uploaded-studies → the signed-in user's uploaded studies, newest first (an array of
 * Uploaded study objects with status and failureReason; fullTextContent is null here, see
 * GET /api/uploaded-studies/{id}). Free users may view the list (SPEC §6). 401 signed out.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const studies = await listUploadedStudies(context.app, { userId: user.id });
    return Response.json(studies, { headers: { "Cache-Control": "no-store" } });
  });
}

/** Mutations go to /api/upload-pdfs and the per-study routes; anything else here is a 405. */
export async function action() {
  return new AppError("METHOD_NOT_ALLOWED", "Use GET; upload with POST /api/upload-pdfs.", 405).toResponse();
}
