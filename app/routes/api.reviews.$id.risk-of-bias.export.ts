import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { handleApi, parseInput } from "~/.server/http/errors";
import { exportRiskOfBias, RobExportQuerySchema } from "~/.server/risk-of-bias/assessments";

/**
 * GET /api/reviews/{id}/risk-of-bias/export?outcomeId=N&format=csv|traffic-light|summary|audit → a
 * download of the final judgements for one outcome: CSV in robvis's layout (Study, D1…D5, Overall,
 * Weight; the default; dual mode: the consensus judgements), or the robvis-style traffic-light or
 * summary plot as SVG; audit: the dual RoB audit trail as CSV. 400; 401; 404
 * REVIEW_NOT_FOUND / OUTCOME_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const url = new URL(request.url);
    const query = parseInput(RobExportQuerySchema, {
      outcomeId: url.searchParams.get("outcomeId") ?? undefined,
      format: url.searchParams.get("format") ?? undefined,
    });
    const out = await exportRiskOfBias(context.app, { userId: user.id, reviewId: params.id, ...query });
    return new Response(out.body, {
      headers: {
        "Content-Type": out.contentType,
        "Content-Disposition": `attachment; filename="${out.fileName}"`,
        "Cache-Control": "private, no-store",
      },
    });
  });
}
