import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { suggestDecision } from "~/.server/reviews/suggestion";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/reviews/{id}/records/{recordId}/suggestion → {suggestion: {decision, reasons: [{quote,
 * from: 'abstract' | 'criteria'}], model}}: the language model's second-screener opinion (never a
 * decision). 404; 409 AI_NOT_CONFIGURED without OPENAI_*; 403 LIMIT_REACHED; 502 AI_FAILED.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    return Response.json(
      await suggestDecision(context.app, { user, reviewId: params.id, recordId: params.recordId, request }),
    );
  });
}
