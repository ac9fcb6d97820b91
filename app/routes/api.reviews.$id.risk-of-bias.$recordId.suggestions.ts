import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { z } from "zod";
import { requireUser } from "~/.server/auth/session";
import { handleApi, parseInput } from "~/.server/http/errors";
import { suggestForRecord } from "~/.server/risk-of-bias/assessments";

const QuerySchema = z.object({ variant: z.enum(["assignment", "adhering"]).default("assignment") });

/**
 * GET /api/reviews/{id}/risk-of-bias/{recordId}/suggestions?variant=assignment|adhering →
 * {recordId, variant, source: {kind, note}, text, suggestions: {'1.1': [{questionId, topic, sentence,
 * start, end, cue, proposed?, note?}], …}}: the sentences of the study's best text that speak to each
 * signalling question, with a proposed answer only when explicit. 400; 401; 404 REVIEW_NOT_FOUND /
 * RECORD_NOT_FOUND; 409 RECORD_NOT_INCLUDED; 429 RATE_LIMITED (shares the extraction's hourly limit).
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const { variant } = parseInput(QuerySchema, {
      variant: new URL(request.url).searchParams.get("variant") ?? undefined,
    });
    const body = await suggestForRecord(context.app, {
      userId: user.id,
      reviewId: params.id,
      recordId: params.recordId,
      variant,
    });
    return Response.json(body, { headers: { "Cache-Control": "private, no-store" } });
  });
}
