import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { z } from "zod";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { listMerges, mergeRecords } from "~/.server/reviews/service";

/** GET /api/reviews/{id}/duplicates → {merges: [{record, mergedInto, reason: doi|pmid|title|manual}]}. 404. */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const merges = await listMerges(context.app, { userId: user.id, reviewId: params.id });
    return Response.json({ merges }, { headers: { "Cache-Control": "no-store" } });
  });
}

const MergeSchema = z.object({ recordId: z.number().int().positive(), intoId: z.number().int().positive() });

/** POST /api/reviews/{id}/duplicates {recordId, intoId} → {recordId, mergedInto}: merges by hand. 404; 409. */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use GET or POST.", 405);
    const user = await requireUser(context.app, request);
    const input = parseInput(MergeSchema, await readJson(request));
    return Response.json(await mergeRecords(context.app, { userId: user.id, reviewId: params.id, ...input }));
  });
}
