import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { handleApi } from "~/.server/http/errors";
import { getRecordReport } from "~/.server/reviews/outcomes";

/**
 * GET /api/reviews/{id}/records/{recordId}/report → {recordId, studyKey, kind: 'europepmc' | 'upload'
 * | 'fulltext' | 'abstract', format: 'jats' | 'text', text, pmcid, note}: the text the arm-level
 * extraction reads for the record (Europe PMC JATS, the uploaded PDF's text, the attached full text,
 * or title and abstract). 401; 404 REVIEW_NOT_FOUND / RECORD_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const report = await getRecordReport(context.app, {
      userId: user.id,
      reviewId: params.id,
      recordId: params.recordId,
    });
    return Response.json(report, { headers: { "Cache-Control": "private, no-store" } });
  });
}
