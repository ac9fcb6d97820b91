import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { createMetaAnalysisJob } from "~/.server/meta-analysis/jobs";
import { MAX_JOB_BODY_BYTES, parseEnhancedRequest, readLimitedJson } from "~/.server/meta-analysis/request";

/**
 * POST /api/meta-analysis/enhanced {studies: [{id?, title, abstract, fullTextAnalysis?}], model?,
 * measure?, method?, test?, data?, prisma?} → 202 {jobId} at once; the job runs on the JOBS queue
 * (poll GET /api/meta-analysis/jobs/{jobId}). Guests and signed-in users; metered once per
 * successful job. Errors: 400 INVALID_INPUT ('Please select at least 2 studies for
 * meta-analysis', bad fields) / INVALID_JSON, 413 PAYLOAD_TOO_LARGE (a field over its limit, or a body over 1.8 MB,
 * since the request is stored in the job row), 403 LIMIT_REACHED, 503
 * QUEUE_UNAVAILABLE.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const app = context.app;
    const input = parseEnhancedRequest(await readLimitedJson(request, MAX_JOB_BODY_BYTES));
    const user = await getUser(app, request);
    const { jobId, headers } = await createMetaAnalysisJob(app, { user, request }, input);
    headers.set("Cache-Control", "no-store");
    return Response.json({ jobId }, { status: 202, headers });
  });
}
