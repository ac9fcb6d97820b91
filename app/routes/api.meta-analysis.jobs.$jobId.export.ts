import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { z } from "zod";
import { getUser } from "~/.server/auth/session";
import { handleApi, parseInput } from "~/.server/http/errors";
import { exportJob } from "~/.server/meta-analysis/jobs";

const QuerySchema = z.object({
  format: z.enum(["r", "csv", "sof", "robvis"], { error: "format must be r, csv, sof or robvis" }),
});

/**
 * GET /api/meta-analysis/jobs/{jobId}/export?format=r|csv|sof|robvis (the job's owner: the signed-in user, or
 * the guest device that ran it) → the R script that reproduces the report with metafor
 * (`text/x-r`), the study rows as CSV (`text/csv`) or the Summary of Findings table as CSV (`sof`), the RoB 2 judgements with the weights in robvis's CSV layout (`robvis`),
 * as an attachment. 400 INVALID_INPUT for
 * another format, 404 NOT_FOUND for unknown or foreign jobs, 409 JOB_NOT_DONE before it finished.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const app = context.app;
    const { format } = parseInput(QuerySchema, Object.fromEntries(new URL(request.url).searchParams));
    const user = await getUser(app, request);
    const file = await exportJob(app, { user, request }, params.jobId ?? "", format);
    return new Response(file.body, {
      headers: {
        "Content-Type": file.contentType,
        "Content-Disposition": `attachment; filename="${file.fileName}"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  });
}
