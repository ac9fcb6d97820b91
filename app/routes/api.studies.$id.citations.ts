import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getStudyCitations } from "~/.server/citations/service";
import { handleApi } from "~/.server/http/errors";
import { parseStudyId } from "~/.server/studies/params";

/**
 * GET /api/studies/{id}/citations → {apa, mla, chicago}: APA 7th, MLA 9th and Chicago 17th
 * author-date bibliography entries (citation-js with the official CSL styles).
 * 400 for a malformed id, 404 STUDY_NOT_FOUND.
 */
export async function loader({ params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const citations = await getStudyCitations(context.app, { id: parseStudyId(params.id) });
    return Response.json(citations, { headers: { "Cache-Control": "no-store" } });
  });
}
