import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { importSearch, ImportSearchSchema } from "~/.server/reviews/imports";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/reviews/{id}/import-search {q, searchProviders?, searchProvider?, …the /api/search
 * filters} → 201 {imported, duplicatesRemoved, sourceId}: every record of the search, up to 'All
 * available' (500) per database. Errors as /api/search (400, 403 PRO_REQUIRED, 503) plus 404 and
 * the import limits.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    const body = parseInput(ImportSearchSchema, await readJson(request));
    const result = await importSearch(
      context.app,
      { user, reviewId: params.id, body },
      { background: context.app.waitUntil },
    );
    return Response.json(result, { status: 201 });
  });
}
