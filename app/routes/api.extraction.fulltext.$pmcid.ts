import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { fetchEuropePmcJats } from "~/.server/extraction/europepmc";
import { handleApi } from "~/.server/http/errors";

/**
 * GET /api/extraction/fulltext/:pmcid → {pmcid, format: "jats", text, cached}: the article's JATS
 * from Europe PMC (EUROPEPMC_BASE_URL, byte-capped, cached in R2), to feed POST
 * /api/extraction/arms. 400 for a malformed PMCID, 404 without open-access full text, 413, 502.
 */
export async function loader({ params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const app = context.app;
    const { xml, cached } = await fetchEuropePmcJats(
      { fetch: app.fetch, baseUrl: app.env.EUROPEPMC_BASE_URL, bucket: app.bindings.BUCKET },
      params.pmcid ?? "",
    );
    return Response.json(
      { pmcid: (params.pmcid ?? "").toUpperCase(), format: "jats", text: xml, cached },
      { headers: { "Cache-Control": "private, max-age=3600" } },
    );
  });
}
