import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { regenerateStudySummary } from "~/.server/studies/summaries";
import { parseStudyId } from "~/.server/studies/params";

/** POST /api/studies/{id}/regenerate-summary (no body) → the summary as a plain-text stream. */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const studyId = parseStudyId(params.id);
    const user = await getUser(context.app, request);
    return regenerateStudySummary(context.app, { studyId, signal: request.signal, userId: user?.id });
  });
}
