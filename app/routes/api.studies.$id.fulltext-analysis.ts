import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { getStoredFullTextAnalysis } from "~/.server/fulltext/study-analysis";
import { parseStudyId } from "~/.server/studies/params";
import { getStudyOrShown } from "~/.server/studies/ensure";

/**
 * GET /api/studies/{id}/fulltext-analysis → the newest stored full-text analysis the caller may
 * see (a public one, or the caller's own private one made from a URL they supplied):
 * `{fullTextAnalysis, model, citations, updatedAt, sourceUrl, visibility: 'public'|'private'}`
 * (text with "### " sections and ⟦…⟧ markup; citations quote the analysed full text with offsets
 * into it; sourceUrl is the URL it was made from), or
 * `{fullTextAnalysis: null, model: null, citations: [], updatedAt: null}` for a known study not yet
 * analysed (a normal state, so not an error the browser console would log). Not metered.
 * Errors: 400 INVALID_STUDY_ID, 404 STUDY_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const studyId = parseStudyId(params.id);
    const user = await getUser(context.app, request);
    const stored = await getStoredFullTextAnalysis(context.app, { studyId, viewerId: user?.id ?? null });
    if (!stored) {
      if (!(await getStudyOrShown(context.app, { id: studyId })))
        throw new AppError("STUDY_NOT_FOUND", "Study not found", 404);
      return Response.json(
        { fullTextAnalysis: null, model: null, citations: [], updatedAt: null },
        { headers: { "Cache-Control": "no-store" } },
      );
    }
    return Response.json(stored, { headers: { "Cache-Control": "no-store" } });
  });
}
