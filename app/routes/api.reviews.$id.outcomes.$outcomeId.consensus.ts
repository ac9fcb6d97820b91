import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { ConsensusSchema, recordConsensus } from "~/.server/reviews/dual-extraction";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/reviews/{id}/outcomes/{outcomeId}/consensus {recordId, cells: [{arm, field, value}]}
 * (owner or a named resolver; dual extraction, both submissions in) → {study}: consensus values,
 * kept with who and when. 400 INVALID_INPUT; 401; 403 FORBIDDEN_ROLE; 404; 409
 * EXTRACTION_NOT_DUAL / NOT_INCLUDED / EXTRACTION_INCOMPLETE.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    const input = parseInput(ConsensusSchema, await readJson(request, { maxBytes: 4096 }));
    const study = await recordConsensus(
      context.app,
      { userId: user.id, reviewId: params.id, outcomeId: params.outcomeId },
      input,
    );
    return Response.json({ study });
  });
}
