import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { decide, DecisionSchema, undoDecision, UndoSchema } from "~/.server/reviews/screening";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST or DELETE.", 405).toResponse();
}

/**
 * POST /api/reviews/{id}/records/{recordId}/decision {stage: 'title_abstract' | 'full_text',
 * decision: 'include' | 'exclude' | 'maybe', reason?} → {progress, next?} (`next`: the next record
 * to screen after the re-ranking, title/abstract only).
 * DELETE …/decision?stage= → {progress, recordId}: undoes this record's latest decision at the stage.
 * 400 INVALID_INPUT / REASON_REQUIRED (full-text exclusion); 404; 409 NOT_AT_FULL_TEXT /
 * DUPLICATE_RECORD / NOTHING_TO_UNDO.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const target = { userId: user.id, reviewId: params.id, recordId: params.recordId };
    if (request.method === "POST") {
      const input = parseInput(DecisionSchema, await readJson(request));
      return Response.json(await decide(context.app, target, input, { background: context.app.waitUntil }));
    }
    if (request.method === "DELETE") {
      const stage = new URL(request.url).searchParams.get("stage") ?? undefined;
      const { stage: parsed } = parseInput(UndoSchema, { stage });
      const { next: _next, ...result } = await undoDecision(
        context.app,
        { ...target, stage: parsed },
        { background: context.app.waitUntil },
      );
      return Response.json(result);
    }
    throw new AppError("METHOD_NOT_ALLOWED", "Use POST or DELETE.", 405);
  });
}
