import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { handleApi } from "~/.server/http/errors";
import { reviewPrisma } from "~/.server/reviews/prisma";

/**
 * GET /api/reviews/{id}/prisma → {identified: {<source>: n}, duplicatesRemoved, screened, excluded,
 * soughtForRetrieval, notRetrieved, assessed, excludedWithReasons: {<reason>: n}, included}, from
 * the review's records and decisions. 401; 404 REVIEW_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const prisma = await reviewPrisma(context.app, { userId: user.id, reviewId: params.id });
    return Response.json(prisma, { headers: { "Cache-Control": "no-store" } });
  });
}
