import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { handleApi } from "~/.server/http/errors";
import { listGradeSettings } from "~/.server/risk-of-bias/grade-settings";

/**
 * GET /api/reviews/{id}/grade → {settings: [{outcomeId, outcome, rating: {overrides, rateUp},
 * assumedControlRisk, decisionThreshold, updatedBy, updatedAt}]}: the reviewer's GRADE settings
 * per outcome. 401; 404 REVIEW_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    return Response.json(
      { settings: await listGradeSettings(context.app, { userId: user.id, reviewId: params.id }) },
      { headers: { "Cache-Control": "no-store" } },
    );
  });
}
