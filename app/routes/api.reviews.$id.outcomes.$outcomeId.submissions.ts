import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { submitExtraction, SubmissionSchema } from "~/.server/reviews/dual-extraction";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/reviews/{id}/outcomes/{outcomeId}/submissions {recordId, values: {intervention:
 * {events, groupSize, mean, sd}, comparator: {…}}} (owner or reviewer; dual extraction) → 201
 * {study: {submissions, mine, revealed, differing, consensus, values}}: the caller's own values of
 * one study. 400 INVALID_INPUT; 401; 403 FORBIDDEN_ROLE; 404; 409 EXTRACTION_NOT_DUAL /
 * NOT_INCLUDED / EXTRACTIONS_COMPLETE / EXTRACTION_LOCKED.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    const input = parseInput(SubmissionSchema, await readJson(request, { maxBytes: 4096 }));
    const study = await submitExtraction(
      context.app,
      { userId: user.id, reviewId: params.id, outcomeId: params.outcomeId },
      input,
    );
    return Response.json({ study }, { status: 201 });
  });
}
