import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { handleApi } from "~/.server/http/errors";
import { reviewPrismaChecklist } from "~/.server/reviews/prisma-checklist";

/**
 * GET /api/reviews/{id}/prisma-checklist → {items: [{item: '1' | '13a' | …, section, topic, status:
 * 'reported' | 'not_applicable' | 'missing', text}], abstractItems, methodsDraft, counts}: the PRISMA
 * 2020 checklist filled in from what the review recorded. 401; 404 REVIEW_NOT_FOUND.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const checklist = await reviewPrismaChecklist(context.app, { userId: user.id, reviewId: params.id });
    return Response.json(checklist, { headers: { "Cache-Control": "no-store" } });
  });
}
