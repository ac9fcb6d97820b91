import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { addCharacteristicColumn, CharacteristicColumnInputSchema } from "~/.server/reviews/characteristics";

/**
 * POST /api/reviews/{id}/characteristics/columns {name, type: categorical|numeric|text} → 201
 * {column: {key, name, type, builtIn: false}}. 400 INVALID_INPUT / INVALID_JSON; 401; 403
 * FORBIDDEN_ROLE (viewer); 404; 405; 409 COLUMN_EXISTS / TOO_MANY_COLUMNS.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    const input = parseInput(CharacteristicColumnInputSchema, await readJson(request, { maxBytes: 4 * 1024 }));
    return Response.json(
      { column: await addCharacteristicColumn(context.app, { userId: user.id, reviewId: params.id }, input) },
      { status: 201 },
    );
  });
}
