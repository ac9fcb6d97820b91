import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { listLivingUpdates, updateReviewNow } from "~/.server/reviews/living";
import { requireReview } from "~/.server/reviews/service";

/**
 * GET /api/reviews/{id}/update → {updates: [{id, trigger, status, searchesRun, newRecords,
 * duplicatesRemoved, failed, digestSent, ranAt, finishedAt}]}: the review's updates, newest first.
 * 401; 404 REVIEW_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const review = await requireReview(context.app, { userId: user.id, reviewId: params.id }, "read");
    return Response.json(
      { updates: await listLivingUpdates(context.app, review.id) },
      { headers: { "Cache-Control": "no-store" } },
    );
  });
}

/**
 * POST /api/reviews/{id}/update → {searchesRun, newRecords, duplicatesRemoved, failed: [{source,
 * reason}], ranAt}: re-runs the review's searches now and adds what is new (living reviews; also
 * run by the Cron Trigger for reviews with a schedule). 400 NO_SEARCHES; 401; 404
 * REVIEW_NOT_FOUND; 409 UPDATE_RUNNING.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST")
      throw new AppError("METHOD_NOT_ALLOWED", "Use GET or POST.", 405, { allow: ["GET", "POST"] });
    const user = await requireUser(context.app, request);
    return Response.json(await updateReviewNow(context.app, { user, reviewId: params.id }));
  });
}
