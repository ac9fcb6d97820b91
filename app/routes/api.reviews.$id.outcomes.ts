import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { addOutcome, listOutcomes, OutcomeInputSchema } from "~/.server/reviews/outcomes";

/**
 * GET /api/reviews/{id}/outcomes → {outcomes: [{id, name, intervention, comparator, createdAt}]}: the
 * review's data-extraction outcomes, oldest first. 401; 404 REVIEW_NOT_FOUND (unknown or another
 * user's review).
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    return Response.json(
      { outcomes: await listOutcomes(context.app, { userId: user.id, reviewId: params.id }) },
      { headers: { "Cache-Control": "no-store" } },
    );
  });
}

/**
 * POST /api/reviews/{id}/outcomes {name, intervention?, comparator?} → 201 {outcome}; intervention
 * and comparator default to the review's PICO. 400 INVALID_INPUT / INVALID_JSON / ARMS_REQUIRED;
 * 401; 404; 409 OUTCOME_EXISTS / TOO_MANY_OUTCOMES.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    const input = parseInput(OutcomeInputSchema, await readJson(request, { maxBytes: 16 * 1024 }));
    return Response.json(
      { outcome: await addOutcome(context.app, { userId: user.id, reviewId: params.id }, input) },
      { status: 201 },
    );
  });
}
