import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { AssessmentInputSchema } from "~/.server/risk-of-bias/assessments";
import { submitRobAssessment } from "~/.server/risk-of-bias/dual";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/reviews/{id}/risk-of-bias/{recordId}/{outcomeId}/submission {variant, answers,
 * support?, overrides?} (owner or reviewer; dual RoB mode) → 201 {study}: the caller's own RoB 2
 * assessment of one included study × outcome; `study` is the dual state (blind: another's
 * assessment is null until both are in). 400 ANSWERS_INCOMPLETE / INVALID_INPUT / INVALID_OVERRIDE;
 * 401; 403 FORBIDDEN_ROLE; 404; 409 RECORD_NOT_INCLUDED / ROB_NOT_DUAL / ASSESSMENTS_COMPLETE /
 * ASSESSMENT_LOCKED; 413.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    const input = parseInput(AssessmentInputSchema, await readJson(request, { maxBytes: 128 * 1024 }));
    const study = await submitRobAssessment(
      context.app,
      { userId: user.id, reviewId: params.id, recordId: params.recordId, outcomeId: params.outcomeId },
      input,
    );
    return Response.json({ study }, { status: 201 });
  });
}
