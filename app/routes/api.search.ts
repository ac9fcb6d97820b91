import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { handleApi } from "~/.server/http/errors";
import { parseSearchRequest, searchStudies } from "~/.server/search/service";

/**
 * GET /api/search?q=&page=&limit=&searchProviders=a,b (or searchProvider=x; PubMed by default)
 * → SPEC §3 search results plus `providers` reports.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const input = parseSearchRequest(new URL(request.url).searchParams);
    const user = await getUser(context.app, request);
    const results = await searchStudies(context.app, user, input);
    return Response.json(results, { headers: { "Cache-Control": "no-store" } });
  });
}
