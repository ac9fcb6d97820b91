import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { handleApi } from "~/.server/http/errors";
import { getJobForRequester } from "~/.server/meta-analysis/jobs";

/**
 * GET /api/meta-analysis/jobs/{jobId} → {status: queued|running|done|failed, progress 0–100,
 * error?, result?} (result only when done). 404 {error:'NOT_FOUND'} for unknown ids and for jobs
 * of another user or guest device.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const app = context.app;
    const user = await getUser(app, request);
    const job = await getJobForRequester(app, { user, request }, params.jobId ?? "");
    return Response.json(job, { headers: { "Cache-Control": "no-store" } });
  });
}
