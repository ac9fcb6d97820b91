import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { isFocus, FOCUS_VALUES } from "~/.server/ai/specialized";
import { AppError, handleApi } from "~/.server/http/errors";
import { parseStudyId } from "~/.server/studies/params";
import { getStudyOrShown } from "~/.server/studies/ensure";
import { getStoredSpecialized } from "~/.server/studies/specialized";

/**
 * GET /api/studies/{id}/specialized?focus={focus} → the newest stored specialized analysis of the
 * study for that focus: `{summary, focus, model, citations, updatedAt}` (summary with ⟦…⟧ markup,
 * citations with quotes and offsets into the abstract). Not metered.
 * Errors: 400 INVALID_STUDY_ID / INVALID_FOCUS, 404 STUDY_NOT_FOUND / SUMMARY_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const studyId = parseStudyId(params.id);
    const focus = new URL(request.url).searchParams.get("focus");
    if (!isFocus(focus)) {
      throw new AppError("INVALID_FOCUS", `focus must be one of: ${FOCUS_VALUES.join(", ")}`, 400);
    }
    const stored = await getStoredSpecialized(context.app, { studyId, focus });
    if (!stored) {
      if (!(await getStudyOrShown(context.app, { id: studyId })))
        throw new AppError("STUDY_NOT_FOUND", "Study not found", 404);
      throw new AppError("SUMMARY_NOT_FOUND", "No specialized analysis for this focus yet", 404);
    }
    return Response.json(stored, { headers: { "Cache-Control": "no-store" } });
  });
}
