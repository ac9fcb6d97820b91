import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { listMyShares, shareAnswer } from "~/.server/sharing/service";

/**
 * GET /api/shared-answers → {items: [{id, kind, clientId, title, url, createdAt}]}: the
 * requester's share links (answers, workouts and meal plans), newest first.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await getUser(context.app, request);
    const items = await listMyShares(context.app, { user, request });
    return Response.json({ items }, { headers: { "Cache-Control": "no-store" } });
  });
}

/**
 * POST /api/shared-answers {id, question, answer, studyCount, studies?, model?} (SPEC §7) →
 * 201 {id, url}: the answer is stored under a new 128-bit public id; `url` is its /answer/{id}
 * page. Errors: 400 PAYLOAD_TOO_LARGE (> 20 KB) / QUESTION_TOO_LONG (> 500 characters) /
 * INVALID_JSON / INVALID_INPUT, 429 RATE_LIMITED.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await getUser(context.app, request);
    const created = await shareAnswer(context.app, { user, request });
    return Response.json(created, { status: 201, headers: { "Cache-Control": "no-store" } });
  });
}
