import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { combinedSummaryResponse, parseBatchSummarizeBody, wantsNdjson } from "~/.server/studies/combined";

/**
 * POST /api/studies/batch-summarize {studies: [{id?, title, abstract?, …}], 1–50, regenerate?} → the combined
 * research summary (SPEC §7): JSON `{studiesAnalyzed, combinedSummary, combinedText, model, …}`,
 * or with `Accept: application/x-ndjson` a stream of `{"type":"partial"}` lines ending in
 * `{"type":"done"}` (or `{"type":"error"}`). Guests and signed-in users alike, metered as AI
 * summaries. Errors: 400 NO_STUDIES / INVALID_INPUT / INVALID_JSON / NO_CONTENT, 403
 * LIMIT_REACHED, 502 AI_FAILED.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const app = context.app;
    const { studies, regenerate } = parseBatchSummarizeBody(await readJson(request, { maxBytes: 4 * 1024 * 1024 }));
    const user = await getUser(app, request);
    // Awaited here so a refusal is handled where it is thrown (workerd reports a rejected promise
    // that is only adopted by the caller as unhandled).
    return await combinedSummaryResponse(app, {
      studies,
      user,
      request,
      stream: wantsNdjson(request),
      regenerate,
    });
  });
}
