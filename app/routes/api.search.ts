import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { respondToSearch } from "~/.server/search/respond";

/**
 * GET /api/search?q=&page=&limit=&searchProviders=a,b (or searchProvider=x; PubMed by default)
 * plus the SPEC §3 filters → search results, as JSON or (Accept: application/x-ndjson) streamed.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return respondToSearch(request, context);
}
