import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import {
  attachPdf,
  downloadFullText,
  fetchOpenAccessFullText,
  FullTextRequestSchema,
  removeFullText,
} from "~/.server/reviews/fulltext";

/** GET /api/reviews/{id}/records/{recordId}/fulltext → the attached PDF (attachment) or the text; 404 NO_FULL_TEXT. */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    return downloadFullText(context.app, { user, reviewId: params.id, recordId: params.recordId });
  });
}

/**
 * POST …/fulltext multipart `file` (PDF ≤ 20 MB) → 201 {recordId, attached, kind, url, characters};
 * POST …/fulltext {source: 'open_access'} → the same from the open-access copy (422 NO_OPEN_ACCESS /
 * FULLTEXT_UNAVAILABLE); DELETE …/fulltext → {recordId, attached: false}. 404 for unknown ids.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const target = { user, reviewId: params.id, recordId: params.recordId };
    if (request.method === "DELETE") return Response.json(await removeFullText(context.app, target));
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use GET, POST or DELETE.", 405);
    if (/^multipart\/form-data/i.test(request.headers.get("Content-Type") ?? "")) {
      return Response.json(await attachPdf(context.app, { ...target, request }), { status: 201 });
    }
    parseInput(FullTextRequestSchema, await readJson(request));
    return Response.json(await fetchOpenAccessFullText(context.app, target), { status: 201 });
  });
}
