import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { createSavedSearch, listSavedSearches, SavedSearchInputSchema } from "~/.server/search/history";

/** GET /api/saved-searches → {savedSearches: newest first}; 401 signed out. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const savedSearches = await listSavedSearches(context.app, { userId: user.id });
    return Response.json({ savedSearches }, { headers: { "Cache-Control": "no-store" } });
  });
}

/**
 * POST /api/saved-searches {name, query, filters?} → 201 {savedSearch}.
 * 400 INVALID_JSON / INVALID_INPUT, 401 UNAUTHORIZED, 409 LIMIT_REACHED (100 saved searches).
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use GET or POST.", 405);
    const input = parseInput(SavedSearchInputSchema, await readJson(request));
    const user = await requireUser(context.app, request);
    const savedSearch = await createSavedSearch(context.app, { userId: user.id, ...input });
    return Response.json({ savedSearch }, { status: 201 });
  });
}
