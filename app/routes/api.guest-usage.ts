import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { GUEST_FEATURES, GUEST_TRIAL_LIMIT, getGuestUsage, type GuestFeature } from "~/.server/billing/metering";
import { AppError, handleApi } from "~/.server/http/errors";

/**
 * GET /api/guest-usage → the server's guest trial counters for this device and IP (the authority
 * the UI syncs its device-local counters from):
 * `{ usage: {aiSummaries: n, …}, limit: 5, resetsAt: ISO | null,
 *    features: {aiSummaries: {used, limit, resetsAt}, …} }`.
 * `resetsAt` is the earliest reset among the features in use (null when nothing is used).
 *
 * @throws AppError 400 SIGNED_IN for signed-in users ('Use /api/user/subscription').
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    if (await getUser(context.app, request)) {
      throw new AppError("SIGNED_IN", "Use /api/user/subscription", 400);
    }
    const features = await getGuestUsage(context.app, request);
    const usage = Object.fromEntries(GUEST_FEATURES.map((f) => [f, features[f].used])) as Record<GuestFeature, number>;
    const resets = GUEST_FEATURES.map((f) => features[f].resetsAt).filter((r): r is string => r !== null);
    const resetsAt = resets.length ? resets.sort()[0]! : null;
    return Response.json(
      { usage, limit: GUEST_TRIAL_LIMIT, resetsAt, features },
      { headers: { "Cache-Control": "no-store" } },
    );
  });
}
