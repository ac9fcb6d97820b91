import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { evictSharePage } from "~/.server/sharing/edge-cache";
import { unshare } from "~/.server/sharing/service";

/**
 * DELETE /api/shared-answers/{id} → {ok: true}: unshares one of the requester's links (answer,
 * workout or meal plan) and evicts its page from this data centre's cache; its public page answers
 * 404 from then on (other data centres may serve a cached copy until its s-maxage runs out). 404 SHARE_NOT_FOUND for an
 * unknown id or someone else's.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "DELETE") throw new AppError("METHOD_NOT_ALLOWED", "Use DELETE.", 405);
    const user = await getUser(context.app, request);
    const { url } = await unshare(context.app, { user, request, id: params.id ?? "" });
    await evictSharePage((globalThis.caches as unknown as { default?: Cache } | undefined)?.default, url);
    return Response.json({ ok: true });
  });
}
