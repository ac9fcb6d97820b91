import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { importStudyData, OutcomeImportSchema } from "~/.server/reviews/outcome-import";
import { MAX_IMPORT_CSV_BYTES } from "~/lib/study-data-import";

/**
 * POST /api/reviews/{id}/outcomes/import[?dryRun=1] {outcomeId, csv, fileName?, mapping?: {field:
 * header}, outcomeValue?, measure?} → {dryRun, outcome, headers, mapping, suggested, outcomeValues,
 * rowCount, rows: [{line, recordId, study, title, label, data, replaces}], unmatched: [{line,
 * study}], errors: [{line, column?, message}], imported, importId}: study-level data (events/N or
 * mean/SD/N per arm, or an estimate with 95% CI) from a CSV into a review outcome. With dryRun the
 * file is only read and matched (the preview); without, every line is written in one batch, or
 * nothing: 400 IMPORT_INVALID {errors, unmatched} when any line has an error. 400 INVALID_INPUT /
 * INVALID_JSON; 401; 403 FORBIDDEN_ROLE (viewer); 404 REVIEW_NOT_FOUND / OUTCOME_NOT_FOUND; 405;
 * 413 PAYLOAD_TOO_LARGE; 415 UNSUPPORTED_MEDIA_TYPE (not application/json).
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405, { allow: ["POST"] });
    const user = await requireUser(context.app, request);
    if (!/^application\/json\b/i.test(request.headers.get("Content-Type") ?? "")) {
      throw new AppError(
        "UNSUPPORTED_MEDIA_TYPE",
        "Send the file as JSON {outcomeId, csv} (Content-Type: application/json).",
        415,
      );
    }
    const input = parseInput(
      OutcomeImportSchema,
      await readJson(request, { maxBytes: MAX_IMPORT_CSV_BYTES * 2 + 16 * 1024 }),
    );
    const dryRun = new URL(request.url).searchParams.get("dryRun");
    return Response.json(
      await importStudyData(context.app, { userId: user.id, reviewId: params.id }, input, {
        dryRun: dryRun === "1" || dryRun === "true",
      }),
      {
        headers: { "Cache-Control": "no-store" },
      },
    );
  });
}
