import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { deleteOutcome, extractReviewOutcome } from "~/.server/reviews/outcomes";

/**
 * GET /api/reviews/{id}/outcomes/{outcomeId} → {outcome, included, studies: [{recordId, studyKey,
 * title, year, source: {kind: 'europepmc'|'upload'|'fulltext'|'abstract', pmcid, note}, result:
 * {outcomeType, intervention, comparator, derived, quotes, extractor}, audit: [{arm, field, oldValue,
 * newValue, who, when}], contexts, reported}]}: the outcome's arm-level extraction for every study
 * included at full-text screening, with the user's stored corrections applied. 401; 404
 * REVIEW_NOT_FOUND / OUTCOME_NOT_FOUND; 429 RATE_LIMITED (240 per account and hour).
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const body = await extractReviewOutcome(context.app, {
      userId: user.id,
      reviewId: params.id,
      outcomeId: params.outcomeId,
    });
    return Response.json(body, { headers: { "Cache-Control": "no-store" } });
  });
}

/** DELETE /api/reviews/{id}/outcomes/{outcomeId} → 204. 401; 404. */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "DELETE") throw new AppError("METHOD_NOT_ALLOWED", "Use GET or DELETE.", 405);
    const user = await requireUser(context.app, request);
    await deleteOutcome(context.app, { userId: user.id, reviewId: params.id, outcomeId: params.outcomeId });
    return new Response(null, { status: 204 });
  });
}
