import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { handleApi } from "~/.server/http/errors";
import { openAccessStats, parseStudyIdsParam } from "~/.server/openaccess/service";

/**
 * GET /api/studies/open-access-stats?studyIds=a,b,c → {openAccessCount, totalStudies,
 * openAccessPercentage, repositoryCount, studies:[{studyId, isOpenAccess, hasRepositoryCopy, url,
 * source}]} (Unpaywall, Europe PMC fallback). 400 INVALID_STUDY_IDS (1–100 ids).
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const studyIds = parseStudyIdsParam(new URL(request.url).searchParams.get("studyIds"));
    const app = context.app;
    const stats = await openAccessStats(
      { db: app.db, fetch: app.fetch, kv: app.bindings.KV, env: app.env },
      { studyIds },
    );
    return Response.json(stats, { headers: { "Cache-Control": "no-store" } });
  });
}
