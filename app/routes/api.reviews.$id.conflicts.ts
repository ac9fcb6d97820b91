import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { handleApi, parseInput } from "~/.server/http/errors";
import { ConflictsQuerySchema, listConflicts } from "~/.server/reviews/votes";

/**
 * GET /api/reviews/{id}/conflicts?stage=title_abstract|full_text → {conflicts: [{recordId, title,
 * stage, votes: [{userId, decision, reason}]}]}: dual-screening records whose two votes disagree
 * and are not resolved yet (both stages when `stage` is absent). 400 INVALID_INPUT; 401; 404.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const stage = new URL(request.url).searchParams.get("stage") || undefined;
    const query = parseInput(ConflictsQuerySchema, { stage });
    const conflicts = await listConflicts(context.app, { userId: user.id, reviewId: params.id }, query);
    return Response.json({ conflicts }, { headers: { "Cache-Control": "no-store" } });
  });
}
