import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { DigestSettingSchema, getDigestSetting, setDigestSetting } from "~/.server/reviews/digest";

/**
 * GET /api/reviews/{id}/digest (any member) → {digest: {enabled, lastSentDay}}: the caller's own
 * daily e-mail of screening conflicts waiting. 401; 404 REVIEW_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    return Response.json(
      { digest: await getDigestSetting(context.app, { userId: user.id, reviewId: params.id }) },
      { headers: { "Cache-Control": "no-store" } },
    );
  });
}

/** PUT /api/reviews/{id}/digest {enabled} (any member, for themselves) → {digest}. 400 INVALID_INPUT; 401; 404. */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "PUT") throw new AppError("METHOD_NOT_ALLOWED", "Use GET or PUT.", 405);
    const user = await requireUser(context.app, request);
    const input = parseInput(DigestSettingSchema, await readJson(request, { maxBytes: 1024 }));
    return Response.json({
      digest: await setDigestSetting(context.app, { userId: user.id, reviewId: params.id }, input),
    });
  });
}
