import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { extractStudies, resolveMetaModel } from "~/.server/extraction/service";
import { assertMetaAnalysisAvailable } from "~/.server/meta-analysis/jobs";
import { parseExtractRequest, readLimitedJson } from "~/.server/meta-analysis/request";

/**
 * POST /api/meta-analysis/extract {studies: [{id?, title, abstract, fullTextAnalysis?}], model?}
 * → 200 {extracted, excluded, model}: the effect data (with quotes) for the page's review table,
 * synchronously. Offline rules are free; with a language model the requester must have a
 * meta-analysis use left (403 LIMIT_REACHED), which is counted only when the job runs. Errors: 400
 * INVALID_INPUT / INVALID_JSON, 413 PAYLOAD_TOO_LARGE, 502 AI_FAILED when the model fails for
 * every study.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const app = context.app;
    const input = parseExtractRequest(await readLimitedJson(request));
    const model = resolveMetaModel(app.env, app.fetch, input.model);
    if (model) await assertMetaAnalysisAvailable(app, { user: await getUser(app, request), request });
    let result;
    try {
      result = await extractStudies({ model, abortSignal: request.signal }, input.studies);
    } catch (error) {
      console.warn("meta-analysis extract: model failed", error instanceof Error ? error.message : error);
      throw new AppError("AI_FAILED", "Failed to generate meta-analysis. Please try again.", 502);
    }
    return Response.json(result, { headers: { "Cache-Control": "no-store" } });
  });
}
