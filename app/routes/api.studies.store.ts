import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { AppError, handleApi } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { storeSealedBodySchema, storeSealedStudies } from "~/.server/studies/seal";

/**
 * POST /api/studies/store {studies: [study + seal], 1–100} → `{ids: {"<requested id>": storedId}}`.
 * Stores the records a search showed (and sealed) before the client's first action on them, so
 * that action works on any isolate (issue 17, ADR 0019). Guests and signed-in users alike.
 * Errors: 400 INVALID_INPUT / INVALID_JSON, 403 INVALID_SEAL (nothing stored), 405, 413.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const parsed = storeSealedBodySchema.safeParse(await readJson(request, { maxBytes: 4 * 1024 * 1024 }));
    if (!parsed.success) {
      throw new AppError(
        "INVALID_INPUT",
        parsed.error.issues[0]?.message ?? "Send {studies: [study with its seal]}.",
        400,
      );
    }
    const ids = await storeSealedStudies(context.app, parsed.data.studies);
    return Response.json({ ids: Object.fromEntries(ids) }, { headers: { "Cache-Control": "no-store" } });
  });
}
