import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { getUserSettings, updateUserSettings } from "~/.server/settings/queries";

/**
 * GET /api/user/settings → {emailNotifications, defaultSearchProvider, defaultExportFormat,
 * searchResultsPerPage, saveSearchHistory} (the SPEC §3 defaults until saved); 401 signed out.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const settings = await getUserSettings(context.app, { userId: user.id });
    return Response.json(settings, { headers: { "Cache-Control": "no-store" } });
  });
}

/**
 * PATCH /api/user/settings with one or more fields → the full settings after the save.
 * 400 INVALID_INPUT / INVALID_JSON, 401, 403 PRO_REQUIRED (Multi-Database default for Free).
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "PATCH") throw new AppError("METHOD_NOT_ALLOWED", "Use GET or PATCH.", 405);
    const user = await requireUser(context.app, request);
    const patch = await readJson(request);
    const settings = await updateUserSettings(context.app, { userId: user.id, isPro: user.plan === "pro", patch });
    return Response.json(settings);
  });
}
