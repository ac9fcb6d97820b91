import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { handleApi, parseInput } from "~/.server/http/errors";
import { ActivityQuerySchema, listActivity } from "~/.server/reviews/activity";

/**
 * GET /api/reviews/{id}/activity?cursor=&limit= (any member) → {entries: [{id, userId, email,
 * action, recordId, recordTitle, detail, createdAt}], nextCursor}: newest first; `cursor` is the
 * previous page's `nextCursor`; `limit` 1–100 (default 50). Blind dual screening: another's vote
 * on a record the reader has not voted on yet carries no decision. 400 INVALID_INPUT; 401; 404.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const url = new URL(request.url);
    const query = parseInput(ActivityQuerySchema, {
      cursor: url.searchParams.get("cursor") || undefined,
      limit: url.searchParams.get("limit") || undefined,
    });
    return Response.json(await listActivity(context.app, { userId: user.id, reviewId: params.id }, query), {
      headers: { "Cache-Control": "no-store" },
    });
  });
}
