import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { z } from "zod";
import { requireUser } from "~/.server/auth/session";
import { handleApi, parseInput } from "~/.server/http/errors";
import { getCharacteristics } from "~/.server/reviews/characteristics";
import { characteristicsCsv } from "~/lib/characteristics";

const QuerySchema = z.object({ format: z.enum(["csv", "json"], { error: "format must be csv or json" }).optional() });

/**
 * GET /api/reviews/{id}/characteristics → {columns, studies, audit, included}: the characteristics
 * of the studies included at full text (each cell {value, quote, edited}), the audit trail of edits.
 * ?format=csv|json → the same as a download (CSV: one row per study, values then quotes).
 * 400 INVALID_INPUT; 401; 404 REVIEW_NOT_FOUND; 429 RATE_LIMITED.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const { format } = parseInput(QuerySchema, {
      format: new URL(request.url).searchParams.get("format") ?? undefined,
    });
    const table = await getCharacteristics(context.app, { userId: user.id, reviewId: params.id });
    if (!format) return Response.json(table, { headers: { "Cache-Control": "no-store" } });
    const name = `metamind-characteristics-${new Date().toISOString().slice(0, 10)}`;
    const csv = format === "csv";
    return new Response(csv ? characteristicsCsv(table) : JSON.stringify(table, null, 2), {
      headers: {
        "Content-Type": csv ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
        "Content-Disposition": `attachment; filename="${name}.${format}"`,
        "Cache-Control": "private, no-store",
      },
    });
  });
}
