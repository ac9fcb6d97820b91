import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { handleApi, parseInput } from "~/.server/http/errors";
import { exportReview, ExportQuerySchema } from "~/.server/export/review";

/**
 * GET /api/reviews/{id}/export?format=csv|ris|json|svg|checklist|extraction → a download: records with their
 * decisions (CSV, RIS), the whole review (JSON), the PRISMA 2020 diagram (SVG), the PRISMA 2020
 * checklist (CSV) or dual extraction's values, consensus and audit trail (CSV). 400; 401; 404.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const { format } = parseInput(ExportQuerySchema, {
      format: new URL(request.url).searchParams.get("format") ?? undefined,
    });
    const out = await exportReview(context.app, { userId: user.id, reviewId: params.id, format, now: new Date() });
    return new Response(out.body, {
      headers: {
        "Content-Type": out.contentType,
        "Content-Disposition": `attachment; filename="${out.fileName}"`,
        "Cache-Control": "private, no-store",
      },
    });
  });
}
