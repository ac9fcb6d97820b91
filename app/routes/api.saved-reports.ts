import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { createSavedReport, listSavedReports } from "~/.server/library/reports";

/** GET /api/saved-reports → {reports: newest first}; 401 signed out. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const reports = await listSavedReports(context.app, { userId: user.id });
    return Response.json({ reports }, { headers: { "Cache-Control": "no-store" } });
  });
}

/**
 * POST /api/saved-reports {name, type, studyIds, reportData, htmlContent} → 201 {report}
 * (htmlContent sanitized). 400 NAME_REQUIRED / NAME_TOO_LONG / DESCRIPTION_TOO_LONG /
 * INVALID_INPUT / INVALID_JSON, 401, 409 LIMIT_REACHED, 413 PAYLOAD_TOO_LARGE.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use GET or POST.", 405);
    const user = await requireUser(context.app, request);
    const body = await readJson(request, { maxBytes: 8 * 1024 * 1024 });
    const report = await createSavedReport(context.app, { userId: user.id, body });
    return Response.json({ report }, { status: 201 });
  });
}
