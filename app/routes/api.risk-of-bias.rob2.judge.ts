import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { judgeRequest } from "~/.server/risk-of-bias/judge";

/**
 * POST /api/risk-of-bias/rob2/judge {variant: 'assignment' | 'adhering', answers: {'1.1': 'Y', …}}
 * → {domains: {D1…D5: 'low' | 'some_concerns' | 'high'}, overall, asked: ['1.1', …]}: the RoB 2
 * algorithm alone, stateless. Signed in. 400 ANSWERS_INCOMPLETE {missing: [ids]} when questions the
 * answers call for are unanswered; 400 INVALID_INPUT / INVALID_JSON; 401; 405; 413.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    await requireUser(context.app, request);
    const body = await readJson(request, { maxBytes: 8 * 1024 });
    return Response.json(judgeRequest(body), { headers: { "Cache-Control": "no-store" } });
  });
}
