import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { specializedSummarize } from "~/.server/studies/specialized";

/** Whether the client asked for the plain-text stream (`Accept: text/plain`, not JSON). */
function wantsStream(request: Request): boolean {
  const accept = request.headers.get("Accept") ?? "";
  return /\btext\/plain\b/i.test(accept) && !/\bapplication\/json\b/i.test(accept);
}

/**
 * POST /api/studies/specialized-summarize {studyId, focus} | {focus, text} [+ regenerate: true]
 * (SPEC §7). Default: JSON `{summary, focus, model, citations, cached}`; with `Accept: text/plain`
 * the analysis streams as plain text and, for a study, is stored for
 * GET /api/studies/{id}/specialized?focus=. Metered as specialized_analysis / specializedAnalysis.
 * Errors: 400 INVALID_JSON / INVALID_INPUT / INVALID_FOCUS / NO_CONTENT / NO_ABSTRACT, 404
 * STUDY_NOT_FOUND, 403 LIMIT_REACHED / PRO_REQUIRED, 502 AI_FAILED (JSON mode).
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const body = await readJson(request);
    const user = await getUser(context.app, request);
    // `return await`: the service may reject before its first await; awaiting here attaches the
    // handler at once, so workerd never reports the rejection as unhandled.
    return await specializedSummarize(context.app, {
      body,
      mode: wantsStream(request) ? "stream" : "json",
      signal: request.signal,
      meter: { user, request },
    });
  });
}
