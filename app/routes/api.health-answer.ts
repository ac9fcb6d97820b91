import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { answerHealthQuestion } from "~/.server/health-answers/service";
import { AppError, handleApi } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";

/**
 * POST /api/health-answer {question, id?} → `application/x-ndjson` stream of events
 * `{type:'meta', model, studyCount, studies}`, `{type:'delta', text}`…, then
 * `{type:'done', answer: {id, question, answer, studyCount, studies, model}}` or
 * `{type:'error', message}`. Metered as ai_summaries / aiSummaries.
 * Errors: 400 QUESTION_TOO_LONG / INVALID_INPUT / INVALID_JSON, 404 NO_STUDIES, 403 LIMIT_REACHED,
 * 503 ALL_PROVIDERS_FAILED.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const body = await readJson(request);
    const user = await getUser(context.app, request);
    return await answerHealthQuestion(context.app, { body, user, request, signal: request.signal });
  });
}
