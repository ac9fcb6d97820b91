import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { parseSearchRequest, searchStudies } from "~/.server/search/service";
import { PROVIDER_IDS, type ProviderId } from "~/.server/search/types";

/** GET /api/search/{crossref|europepmc|core|semanticscholar|doaj|pubmed}: one database. */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const provider = params.provider ?? "";
    if (!(PROVIDER_IDS as readonly string[]).includes(provider)) {
      throw new AppError("UNKNOWN_PROVIDER", `Unknown search provider '${provider.slice(0, 40)}'`, 404);
    }
    const input = parseSearchRequest(new URL(request.url).searchParams, provider as ProviderId);
    const user = await getUser(context.app, request);
    const results = await searchStudies(context.app, user, input);
    return Response.json(results, { headers: { "Cache-Control": "no-store" } });
  });
}
