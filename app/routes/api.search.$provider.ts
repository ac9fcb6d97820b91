import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { AppError } from "~/.server/http/errors";
import { respondToSearch } from "~/.server/search/respond";
import { PROVIDER_IDS, type ProviderId } from "~/.server/search/types";

/** GET /api/search/{crossref|europepmc|core|semanticscholar|doaj|pubmed}: one database. */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const provider = params.provider ?? "";
  if (!(PROVIDER_IDS as readonly string[]).includes(provider)) {
    return new AppError("UNKNOWN_PROVIDER", `Unknown search provider '${provider.slice(0, 40)}'`, 404).toResponse();
  }
  return respondToSearch(request, context, provider as ProviderId);
}
