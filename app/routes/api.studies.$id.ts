import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { parseStudyId } from "~/.server/studies/params";
import { getStudyOrShown } from "~/.server/studies/ensure";

/**
 * GET /api/studies/{id} → the stored study (or one a search just showed) with its newest AI summary and the model's name, and
 * the newest full-text analysis the caller may see (public, or the caller's own private one).
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const id = parseStudyId(params.id);
    const user = await getUser(context.app, request);
    const study = await getStudyOrShown(context.app, { id, viewerId: user?.id ?? null });
    if (!study) throw new AppError("STUDY_NOT_FOUND", "Study not found", 404);
    return Response.json(study, { headers: { "Cache-Control": "no-store" } });
  });
}
