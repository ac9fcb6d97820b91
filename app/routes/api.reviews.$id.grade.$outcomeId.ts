import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import {
  deleteGradeSettings,
  GradeSettingsInputSchema,
  saveGradeSettings,
} from "~/.server/risk-of-bias/grade-settings";

/**
 * PUT /api/reviews/{id}/grade/{outcomeId} {rating?: {overrides?: {'risk of bias' | inconsistency |
 * indirectness | imprecision | 'publication bias': {downgrade: 0 | -1 | -2, justification}},
 * rateUp?: [{reason: 'large effect' | 'dose response' | 'plausible confounding', levels: 1 | 2,
 * justification}]}, assumedControlRisk?: proportion | null, decisionThreshold?: number | null} →
 * 201 (created) or 200 {settings}. 400 INVALID_INPUT / INVALID_JSON; 401; 403 FORBIDDEN_ROLE
 * (viewer); 404 REVIEW_NOT_FOUND / OUTCOME_NOT_FOUND; 413. DELETE → 204; 404 GRADE_SETTINGS_NOT_FOUND.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "PUT" && request.method !== "DELETE")
      throw new AppError("METHOD_NOT_ALLOWED", "Use PUT or DELETE.", 405, { allow: ["PUT", "DELETE"] });
    const user = await requireUser(context.app, request);
    const target = { userId: user.id, reviewId: params.id, outcomeId: params.outcomeId };
    if (request.method === "DELETE") {
      await deleteGradeSettings(context.app, target);
      return new Response(null, { status: 204 });
    }
    const input = parseInput(GradeSettingsInputSchema, await readJson(request, { maxBytes: 32 * 1024 }));
    const { settings, created } = await saveGradeSettings(context.app, target, input);
    return Response.json({ settings }, { status: created ? 201 : 200 });
  });
}
