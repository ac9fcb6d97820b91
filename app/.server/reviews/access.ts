/**
 * Who may do what in a review (issue 30): the ONE check every review route goes through (via
 * requireReview in ./service.ts). The owner is reviews.user_id; members are rows of review_members
 * with role 'reviewer' (screens, extracts, assesses) or 'viewer' (reads). Checked on every request
 * against D1, so a removed member or a changed role takes effect on the next request.
 */
import { and, eq, sql } from "drizzle-orm";
import { reviewMembers, reviews, type ReviewRow } from "../../../db/schema";
import type { ReviewRole } from "~/lib/team";
import { AppError } from "../http/errors";
import type { ReviewsApp } from "./service";

/**
 * What a call needs: `read` (owner, reviewer, viewer), `write` (owner, reviewer: screening,
 * full texts, extraction) or `owner` (settings, members, imports, merges, deletion).
 */
export type ReviewNeed = "read" | "write" | "owner";

/** The caller's access to a review. `resolver`: may resolve screening conflicts (always true for the owner). */
export interface ReviewAccess {
  review: ReviewRow;
  role: ReviewRole;
  resolver: boolean;
}

const ALLOWED: Record<ReviewNeed, readonly ReviewRole[]> = {
  read: ["owner", "reviewer", "viewer"],
  write: ["owner", "reviewer"],
  owner: ["owner"],
};

/**
 * The review and the caller's role in it, in one query.
 * @throws AppError 404 REVIEW_NOT_FOUND when the id is malformed or unknown or the caller is
 * neither its owner nor a member (never revealing that it exists); 403 FORBIDDEN_ROLE when the
 * caller's role does not allow `need`.
 */
export async function requireReviewAccess(
  app: Pick<ReviewsApp, "db">,
  { userId, reviewId }: { userId: string; reviewId: string | undefined },
  need: ReviewNeed,
): Promise<ReviewAccess> {
  const [row] = await reviewAccessQuery(app, { userId, reviewId });
  return accessOf(row, userId, need);
}

/**
 * The query behind requireReviewAccess (at most one row), for callers that batch it with other
 * reads; check its result with accessOf. @throws AppError 404 REVIEW_NOT_FOUND for a malformed id.
 */
export function reviewAccessQuery(
  app: Pick<ReviewsApp, "db">,
  { userId, reviewId }: { userId: string; reviewId: string | undefined },
) {
  if (!reviewId || reviewId.length > 64) throw new AppError("REVIEW_NOT_FOUND", "Review not found", 404);
  return app.db
    .select({ review: reviews, role: reviewMembers.role, resolver: reviewMembers.resolver })
    .from(reviews)
    .leftJoin(reviewMembers, and(eq(reviewMembers.reviewId, reviews.id), eq(reviewMembers.userId, userId)))
    .where(and(eq(reviews.id, reviewId), sql`(${reviews.userId} = ${userId} or ${reviewMembers.userId} is not null)`))
    .limit(1);
}

/**
 * The caller's access from reviewAccessQuery's row.
 * @throws AppError 404 REVIEW_NOT_FOUND (no row); 403 FORBIDDEN_ROLE when the role does not allow `need`.
 */
export function accessOf(
  row: { review: ReviewRow; role: ReviewRole | null; resolver: boolean | null } | undefined,
  userId: string,
  need: ReviewNeed,
): ReviewAccess {
  if (!row) throw new AppError("REVIEW_NOT_FOUND", "Review not found", 404);
  const role: ReviewRole = row.review.userId === userId ? "owner" : (row.role ?? "viewer");
  if (!ALLOWED[need].includes(role)) {
    const what =
      need === "owner" ? "Only the review's owner can do this." : "Viewers can read this review but not change it.";
    throw new AppError("FORBIDDEN_ROLE", what, 403, { role });
  }
  return { review: row.review, role, resolver: role === "owner" || row.resolver === true };
}
