import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { z } from "zod";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { clearSearchHistory, listSearchHistory, MAX_HISTORY_ENTRIES } from "~/.server/search/history";

const HistoryQuerySchema = z.object({
  limit: z.coerce
    .number({ error: `limit must be a whole number from 1 to ${MAX_HISTORY_ENTRIES}` })
    .int(`limit must be a whole number from 1 to ${MAX_HISTORY_ENTRIES}`)
    .min(1, `limit must be a whole number from 1 to ${MAX_HISTORY_ENTRIES}`)
    .max(MAX_HISTORY_ENTRIES, `limit must be a whole number from 1 to ${MAX_HISTORY_ENTRIES}`)
    .default(50),
});

/** GET /api/search-history[?limit=1–200, default 50] → {history: entries newest first}; 401 signed out. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const params = new URL(request.url).searchParams;
    const { limit } = parseInput(
      HistoryQuerySchema,
      params.get("limit")?.trim() ? { limit: params.get("limit")!.trim() } : {},
    );
    const user = await requireUser(context.app, request);
    const history = await listSearchHistory(context.app, { userId: user.id, limit });
    return Response.json({ history }, { headers: { "Cache-Control": "no-store" } });
  });
}

/** DELETE /api/search-history → {deletedCount}: clears the signed-in user's history. */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "DELETE") throw new AppError("METHOD_NOT_ALLOWED", "Use GET or DELETE.", 405);
    const user = await requireUser(context.app, request);
    return Response.json(await clearSearchHistory(context.app, { userId: user.id }));
  });
}
