import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { handleApi, parseInput } from "~/.server/http/errors";
import { listRecords, RecordsQuerySchema } from "~/.server/reviews/service";

/**
 * GET /api/reviews/{id}/records?stage=title_abstract|full_text&decision=include|exclude|maybe|undecided
 * &duplicates=exclude|include|only → {records: [{id, title, abstract, doi, year, stage, decision, …}]}.
 * 400 INVALID_INPUT; 401; 404 REVIEW_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const url = new URL(request.url);
    const query = parseInput(RecordsQuerySchema, Object.fromEntries([...url.searchParams].filter(([, v]) => v !== "")));
    const records = await listRecords(context.app, { userId: user.id, reviewId: params.id }, query);
    return Response.json({ records }, { headers: { "Cache-Control": "no-store" } });
  });
}
