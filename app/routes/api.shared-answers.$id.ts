import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { unshare } from "~/.server/sharing/service";

/**
 * DELETE /api/shared-answers/{id} → {ok: true}: unshares one of the requester's links (answer,
 * workout or meal plan); its public page answers 404 from then on. 404 SHARE_NOT_FOUND for an
 * unknown id or someone else's.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "DELETE") throw new AppError("METHOD_NOT_ALLOWED", "Use DELETE.", 405);
    const user = await getUser(context.app, request);
    await unshare(context.app, { user, request, id: params.id ?? "" });
    return Response.json({ ok: true });
  });
}
