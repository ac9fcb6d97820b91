import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { markSourceSavedSearch, SourcePatchSchema } from "~/.server/reviews/saved-search";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use PATCH.", 405).toResponse();
}

/**
 * PATCH /api/reviews/{id}/sources/{sourceId} {savedSearch: {database, query} | null} (the review's
 * owner) → {source}: marks an imported file as the saved search that produced it (database: pubmed,
 * crossref, europepmc, core, semanticscholar or doaj; query: 1–500 characters), so living updates
 * re-run it; null removes the mark. 400 INVALID_INPUT / INVALID_JSON; 401; 403 FORBIDDEN_ROLE;
 * 404 REVIEW_NOT_FOUND / SOURCE_NOT_FOUND; 405; 409 NOT_A_FILE_IMPORT / TOO_MANY_SEARCHES; 413.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "PATCH") throw new AppError("METHOD_NOT_ALLOWED", "Use PATCH.", 405);
    const user = await requireUser(context.app, request);
    const input = parseInput(SourcePatchSchema, await readJson(request, { maxBytes: 4096 }));
    const source = await markSourceSavedSearch(context.app, {
      user,
      reviewId: params.id,
      sourceId: params.sourceId,
      savedSearch: input.savedSearch,
    });
    return Response.json({ source });
  });
}
