import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { analyzeStudyFullText } from "~/.server/fulltext/study-analysis";
import { parseStudyId } from "~/.server/studies/params";

/**
 * POST /api/studies/{id}/analyze-fulltext {openAccessUrl?} (SPEC §7) → the full-text analysis as
 * a plain-text stream, stored as the study's fullTextAnalysis once complete. Professional only
 * (full_text_analysis / fullTextAnalysis). The full text is fetched before streaming, so every
 * fetch failure is JSON.
 * Errors: 400 INVALID_STUDY_ID / INVALID_JSON / INVALID_INPUT / NO_OPEN_ACCESS, 404
 * STUDY_NOT_FOUND, 403 PRO_REQUIRED / LIMIT_REACHED, 422 ANALYSIS_FAILED ('Analysis failed' with
 * the SPEC §8 message and the specific `reason`).
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const studyId = parseStudyId(params.id);
    const body = await readJson(request);
    const user = await getUser(context.app, request);
    // `return await`: a rejection before the service's first await is handled here at once.
    return await analyzeStudyFullText(context.app, {
      studyId,
      body,
      signal: request.signal,
      meter: { user, request },
    });
  });
}
