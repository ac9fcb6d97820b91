import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { buildExport } from "~/.server/export/service";
import { AppError, handleApi } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";

/** GET is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/export {studies | studyIds, format, includeMetadata, includeAbstracts,
 * includeSummaries, includeCitations} → the file as an attachment named
 * metamind-studies-YYYY-MM-DD.{csv,json,html,bib,ris,pdf}. Errors: see buildExport.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const body = await readJson(request, { maxBytes: 8 * 1024 * 1024 });
    const user = await getUser(context.app, request);
    const file = await buildExport(context.app, { user, body, now: new Date() });
    return new Response(file.body, {
      headers: {
        "Content-Type": file.contentType,
        "Content-Disposition": `attachment; filename="${file.filename}"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  });
}
