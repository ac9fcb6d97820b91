import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { CharacteristicEditInputSchema, editCharacteristic } from "~/.server/reviews/characteristics";

/**
 * POST /api/reviews/{id}/characteristics/edits {recordId, column, value (null/"" clears)} → 200
 * {edit: {recordId, column, oldValue, newValue, who, when} | null (value unchanged)}.
 * 400 INVALID_INPUT / INVALID_JSON / INVALID_VALUE; 401; 403 FORBIDDEN_ROLE; 404 REVIEW_NOT_FOUND /
 * RECORD_NOT_FOUND / COLUMN_NOT_FOUND; 405.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    const input = parseInput(CharacteristicEditInputSchema, await readJson(request, { maxBytes: 8 * 1024 }));
    return Response.json({
      edit: await editCharacteristic(context.app, { userId: user.id, reviewId: params.id }, input),
    });
  });
}
