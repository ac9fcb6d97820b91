import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { handleApi, parseInput } from "~/.server/http/errors";
import { listRecords, RecordsQuerySchema } from "~/.server/reviews/service";

/**
 * GET /api/reviews/{id}/records?stage=title_abstract|full_text&decision=include|exclude|maybe|undecided
 * &duplicates=exclude|include|only&source=&q=&suggestion=disagrees&limit=&cursor= →
 * {records: [{id, title, abstract, doi, year, stage, decision, …}], nextCursor, total (first page)}:
 * one page (limit 1–500, default 100) in import order; pass `nextCursor` back as `cursor` for the
 * next page (null: no more). 400 INVALID_INPUT / INVALID_CURSOR; 401; 404 REVIEW_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const url = new URL(request.url);
    const query = parseInput(RecordsQuerySchema, Object.fromEntries([...url.searchParams].filter(([, v]) => v !== "")));
    const page = await listRecords(context.app, { userId: user.id, reviewId: params.id }, query);
    return Response.json(page, { headers: { "Cache-Control": "no-store" } });
  });
}
