import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { createReview, CreateReviewSchema, listReviews } from "~/.server/reviews/service";

/** GET /api/reviews → {reviews: newest first, with counts}; 401 signed out. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const reviews = await listReviews(context.app, { userId: user.id });
    return Response.json({ reviews }, { headers: { "Cache-Control": "no-store" } });
  });
}

/**
 * POST /api/reviews {title, question?, criteria?, exclusionReasons?} → 201 {review}.
 * `question`: text or {text?, population?, intervention?, comparator?, outcomes?}; `criteria`:
 * lines (inclusion) or {inclusion, exclusion} (arrays or newline-separated text).
 * 400 INVALID_JSON / INVALID_INPUT; 401; 403 PRO_REQUIRED {feature:'reviews'} for a second review on Free.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use GET or POST.", 405);
    const user = await requireUser(context.app, request);
    const input = parseInput(CreateReviewSchema, await readJson(request));
    const review = await createReview(context.app, user, input);
    return Response.json({ review }, { status: 201 });
  });
}
