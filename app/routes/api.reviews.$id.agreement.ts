import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { handleApi } from "~/.server/http/errors";
import { reviewAgreement } from "~/.server/reviews/votes";

/**
 * GET /api/reviews/{id}/agreement → {titleAbstract: {n, agreement, kappa, se, kappaCi: [lo, hi],
 * table: [[inc/inc, inc/exc], [exc/inc, exc/exc]], pairs: [{reviewers: [userId, userId], emails, n,
 * agreement, kappa, se, kappaCi, table}]}, fullText: {…}}: Cohen's κ with the Fleiss, Cohen &
 * Everitt (1969) large-sample SE; 'maybe' counts as include. 401; 404 REVIEW_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const agreement = await reviewAgreement(context.app, { userId: user.id, reviewId: params.id });
    return Response.json(agreement, { headers: { "Cache-Control": "no-store" } });
  });
}
