import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { EditsRequestSchema, listEdits, recordEdits } from "~/.server/extraction/edits";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readLimitedJson } from "~/.server/meta-analysis/request";
import { assertOwnReviewKeys, extractionEditActivity } from "~/.server/reviews/outcomes";

/**
 * GET /api/extraction/edits?studyKey=…&outcome=… → {edits: [{id, studyKey, outcome, arm, field,
 * oldValue, newValue, who, when}]}: the signed-in user's corrections, oldest first.
 * POST /api/extraction/edits {edits: [{studyKey, outcome, arm, field, oldValue, newValue}]} → 201
 * {edits}. 401 when signed out; 400 INVALID_INPUT; 413 above 256 kB. A study key of a review's record
 * ("review:{reviewId}:{recordId}") must name the user's own review (404 REVIEW_NOT_FOUND otherwise).
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const url = new URL(request.url);
    const studyKey = url.searchParams.get("studyKey")?.trim();
    if (!studyKey || studyKey.length > 200) throw new AppError("INVALID_INPUT", "studyKey is required.", 400);
    const outcome = url.searchParams.get("outcome")?.trim() || undefined;
    await assertOwnReviewKeys(context.app, user.id, [studyKey], "read");
    return Response.json(
      { edits: await listEdits(context.app, user, { studyKey, outcome }) },
      { headers: { "Cache-Control": "no-store" } },
    );
  });
}

export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    const body = parseInput(EditsRequestSchema, await readLimitedJson(request, 256 * 1024));
    await assertOwnReviewKeys(
      context.app,
      user.id,
      body.edits.map((e) => e.studyKey),
    );
    const logged = extractionEditActivity(context.app, user.id, body.edits);
    return Response.json({ edits: await recordEdits(context.app, user, body.edits, logged) }, { status: 201 });
  });
}
