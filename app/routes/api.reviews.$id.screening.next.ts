import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { handleApi } from "~/.server/http/errors";
import { nextForScreening } from "~/.server/reviews/screening";

/**
 * GET /api/reviews/{id}/screening/next → {record: {id, title, abstract, doi, year, score, journal,
 * authors, terms, suggestion} | null, progress: {screened, total, included}, mode,
 * estimatedRelevantRemaining, consecutiveExclusions, stopping: {recallTarget, confidence, screened,
 * relevantFound, pValue, reached, reachedAfter, recallLowerBound, relevantLeftUpperBound} | null}.
 * 401; 404 REVIEW_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const next = await nextForScreening(context.app, { userId: user.id, reviewId: params.id });
    return Response.json(next, { headers: { "Cache-Control": "no-store" } });
  });
}
