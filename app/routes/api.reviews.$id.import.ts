import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { importFile } from "~/.server/reviews/imports";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/reviews/{id}/import (multipart: `file`; optional `format` ris|nbib|bibtex|csv and
 * `database`) → 201 {imported, duplicatesRemoved, sourceId, warnings: [{line, message}]} (records
 * imported despite a problem, e.g. no title). 400 MALFORMED_FILE {line} (unreadable file; nothing
 * imported) / INVALID_MULTIPART / NO_FILE; 403 PRO_REQUIRED (Free: 500 records); 404; 413
 * FILE_TOO_LARGE (20 MB) / TOO_MANY_RECORDS (50,000); 415 UNSUPPORTED_FORMAT.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    const result = await importFile(
      context.app,
      { user, reviewId: params.id, request },
      { background: context.app.waitUntil },
    );
    return Response.json(result, { status: 201 });
  });
}
