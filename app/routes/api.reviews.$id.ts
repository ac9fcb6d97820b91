import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { deleteReview, getReview, updateReview, UpdateReviewSchema } from "~/.server/reviews/service";

/**
 * GET /api/reviews/{id} → {review: {…, counts, sources, role, resolver, screening}} (owner or
 * member); 404 REVIEW_NOT_FOUND (unknown, or the caller is not on its team).
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const review = await getReview(context.app, { userId: user.id, reviewId: params.id });
    return Response.json({ review }, { headers: { "Cache-Control": "no-store" } });
  });
}

/**
 * PATCH /api/reviews/{id} {title?, question?, criteria?, exclusionReasons?, screening?: {mode:
 * 'single' | 'dual', blind?: boolean}} (owner) → {review};
 * DELETE /api/reviews/{id} (owner) → {ok: true} (records, decisions and attached PDFs go with it).
 * 400 INVALID_INPUT; 401; 403 FORBIDDEN_ROLE; 404 REVIEW_NOT_FOUND.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    if (request.method === "PATCH") {
      const input = parseInput(UpdateReviewSchema, await readJson(request));
      const review = await updateReview(context.app, { userId: user.id, reviewId: params.id }, input);
      return Response.json({ review });
    }
    if (request.method === "DELETE") {
      await deleteReview(context.app, { userId: user.id, reviewId: params.id });
      return Response.json({ ok: true });
    }
    throw new AppError("METHOD_NOT_ALLOWED", "Use GET, PATCH or DELETE.", 405);
  });
}
