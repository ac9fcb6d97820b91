import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { regenerateStudySummary } from "~/.server/studies/summaries";
import { parseStudyId } from "~/.server/studies/params";

/**
 * POST /api/studies/{id}/regenerate-summary (no body) → the summary as a plain-text stream,
 * metered as ai_summaries / aiSummaries (a guest gets the `mm_device` cookie; the response
 * carries X-AI-Uses-Remaining unless unlimited).
 * Errors: 400 INVALID_INPUT / NO_ABSTRACT, 404 STUDY_NOT_FOUND, 403 LIMIT_REACHED / PRO_REQUIRED.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const studyId = parseStudyId(params.id);
    return regenerateStudySummary(context.app, {
      studyId,
      signal: request.signal,
      meter: { user: getUser(context.app, request), request },
    });
  });
}
