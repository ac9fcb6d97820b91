import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { AssessmentInputSchema, deleteAssessment, saveAssessment } from "~/.server/risk-of-bias/assessments";

/**
 * PUT /api/reviews/{id}/risk-of-bias/{recordId}/{outcomeId} {variant, answers: {'1.1': 'Y', …},
 * support?: {'1.1': {text, quotes}}, overrides?: {D1…D5 | overall: {judgement, justification}}} →
 * 201 (created) or 200 {assessment}: the RoB 2 assessment of one included study × outcome, with the
 * algorithm's proposal and the final judgements. 400 ANSWERS_INCOMPLETE {missing} / INVALID_INPUT /
 * INVALID_OVERRIDE / INVALID_JSON; 401; 404 REVIEW_NOT_FOUND / RECORD_NOT_FOUND / OUTCOME_NOT_FOUND;
 * 409 RECORD_NOT_INCLUDED; 413.
 * DELETE → 204; 404 ASSESSMENT_NOT_FOUND when there is none.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "PUT" && request.method !== "DELETE")
      throw new AppError("METHOD_NOT_ALLOWED", "Use PUT or DELETE.", 405, { allow: ["PUT", "DELETE"] });
    const user = await requireUser(context.app, request);
    const target = { userId: user.id, reviewId: params.id, recordId: params.recordId, outcomeId: params.outcomeId };
    if (request.method === "DELETE") {
      await deleteAssessment(context.app, target);
      return new Response(null, { status: 204 });
    }
    const input = parseInput(AssessmentInputSchema, await readJson(request, { maxBytes: 128 * 1024 }));
    const { assessment, created } = await saveAssessment(context.app, target, input);
    return Response.json({ assessment }, { status: created ? 201 : 200 });
  });
}
