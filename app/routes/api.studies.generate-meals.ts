import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { generateMeals } from "~/.server/plans/service";

/**
 * POST /api/studies/generate-meals {studyId, text} → the 7-day meal plan (SPEC §3, §7), grounded
 * in the foods, nutrients and doses the study reports. Errors: 400 INVALID_JSON / INVALID_INPUT /
 * NO_CONTENT, 404 STUDY_NOT_FOUND, 403 LIMIT_REACHED / PRO_REQUIRED, 502 AI_FAILED.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const body = await readJson(request);
    const user = await getUser(context.app, request);
    return await generateMeals(context.app, { body, user, request, signal: request.signal });
  });
}
