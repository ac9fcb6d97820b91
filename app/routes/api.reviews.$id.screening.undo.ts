import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { undoDecision, UndoSchema } from "~/.server/reviews/screening";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/reviews/{id}/screening/undo {stage?: 'title_abstract' (default) | 'full_text'} →
 * {progress, recordId, next?}: undoes the latest decision of the stage (the u key).
 * 404; 409 NOTHING_TO_UNDO.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    const { stage } = parseInput(UndoSchema, await readJson(request));
    return Response.json(
      await undoDecision(
        context.app,
        { userId: user.id, reviewId: params.id, stage },
        { background: context.app.waitUntil },
      ),
    );
  });
}
