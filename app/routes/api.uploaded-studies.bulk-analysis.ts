import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { bulkAnalysis } from "~/.server/uploads/ai";
import { parseStudyIds } from "~/.server/uploads/service";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/uploaded-studies/bulk-analysis {studyIds} (at least 2) → {studyCount, studies,
 * analysis: {executiveSummary, quantitativeFindings: {pooledEffectSize, confidenceIntervals,
 * primaryOutcomes}, commonThemes, clinicalRecommendations, conflictsAndHeterogeneity,
 * gradeAssessment, clinicalImplications, strengthOfEvidence}, model}. Metered as ai_summaries.
 * 400 NO_STUDIES / TOO_FEW_STUDIES / INVALID_INPUT / NO_CONTENT, 401, 403, 404, 409, 502 AI_FAILED.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const ids = parseStudyIds(await readJson(request));
    const user = await requireUser(context.app, request);
    const result = await bulkAnalysis(context.app, { ids, meter: { user, request } });
    return Response.json(result, { headers: { "Cache-Control": "no-store" } });
  });
}
