import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { z } from "zod";
import { destroyUserSession, requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { cancelSubscriptionsOf } from "~/.server/billing/stripe";
import { deleteAccount } from "~/.server/library/account";
import { evictSharePage } from "~/.server/sharing/edge-cache";
import { deleteUserSharedPayloads } from "~/.server/sharing/store";

/** The confirmation the client sends: the word DELETE typed by the user. */
const DeleteAccountSchema = z.object({
  confirm: z.literal("DELETE", { error: "Type DELETE to confirm" }),
});

/**
 * POST /api/user/delete {confirm:'DELETE'} → {ok:true, deleted:{rows, files}} and a cleared
 * session cookie: the account, every user-owned row, the user's R2 files and the user's shared
 * links (KV payloads) are deleted. A web subscription is cancelled at Stripe first; if that fails
 * the account is kept (502/503).
 * 400 INVALID_INPUT without the confirmation, 401 signed out.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const user = await requireUser(context.app, request);
    parseInput(DeleteAccountSchema, await readJson(request));
    await cancelSubscriptionsOf(context.app, user.id);
    // Shared links' public payloads (KV) go first; their index rows go with the account's rows.
    const sharedPaths = await deleteUserSharedPayloads(
      { db: context.app.db, kv: context.app.bindings.KV },
      { userId: user.id },
    );
    const cache = (globalThis.caches as unknown as { default?: Cache } | undefined)?.default;
    const origin = new URL(request.url).origin;
    await Promise.all(sharedPaths.map((path) => evictSharePage(cache, `${origin}${path}`)));
    // The batch deletes every session of the user too; on failure nothing (not even the session)
    // is gone.
    const deleted = await deleteAccount(context.app.bindings, { userId: user.id });
    const clearCookie = await destroyUserSession(context.app, request);
    return Response.json({ ok: true, deleted }, { headers: { "Set-Cookie": clearCookie } });
  });
}
