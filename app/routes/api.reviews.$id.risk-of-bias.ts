import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { handleApi } from "~/.server/http/errors";
import { getRiskOfBias } from "~/.server/risk-of-bias/assessments";

/**
 * GET /api/reviews/{id}/risk-of-bias → {outcomes: [{id, name}], studies: [{recordId, label, title,
 * year}], assessments: [{id, recordId, outcomeId, variant, answers, support, proposed, overrides,
 * final, assessedBy, createdAt, updatedAt}]}: the review's RoB 2 assessments and the studies included
 * at full text. 401; 404 REVIEW_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    return Response.json(await getRiskOfBias(context.app, { userId: user.id, reviewId: params.id }), {
      headers: { "Cache-Control": "no-store" },
    });
  });
}
