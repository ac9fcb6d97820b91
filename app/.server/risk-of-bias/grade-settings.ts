/**
 * A review's GRADE settings per outcome (issue 28): the reviewer's rating changes, each with a
 * justification (the computed rating is kept beside it in the meta-analysis result), levels rated
 * up (only ever by the reviewer), the Summary of Findings' assumed control risk and the
 * imprecision decision threshold. The review's meta-analysis sends them with the job
 * (`grade.reviewerRatings`, `grade.decisionThresholds`, `summaryOfFindings.assumedControlRiskByOutcome`).
 * Every function checks the caller's access to the review (requireReview): another user's review
 * is a 404, a viewer cannot write (403 FORBIDDEN_ROLE).
 */
import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import { reviewGradeSettings, reviewOutcomes, users, type ReviewGradeSettingsRow } from "../../../db/schema";
import type { ApiGradeSettings } from "~/lib/risk-of-bias/types";
import type { AppServices } from "../context";
import { AppError } from "../http/errors";
import { GradeReviewerRatingSchema } from "../meta-analysis/request";
import { requireReview } from "../reviews/service";

type GradeApp = Pick<AppServices, "db" | "bindings">;

/** PUT /api/reviews/{id}/grade/{outcomeId} body. */
export const GradeSettingsInputSchema = z
  .object({
    rating: GradeReviewerRatingSchema.default({ overrides: {}, rateUp: [] }),
    assumedControlRisk: z
      .number()
      .refine(
        (x) => Number.isFinite(x) && x > 0 && x < 1,
        "assumedControlRisk is a proportion between 0 and 1 (e.g. 0.15 for 150 per 1,000)",
      )
      .nullable()
      .default(null),
    decisionThreshold: z
      .number()
      .refine(Number.isFinite, "decisionThreshold must be a finite number")
      .nullable()
      .default(null),
  })
  .strict();
export type GradeSettingsInput = z.infer<typeof GradeSettingsInputSchema>;

export type { ApiGradeSettings };

function toApi(row: ReviewGradeSettingsRow, outcome: string): ApiGradeSettings {
  return {
    outcomeId: row.outcomeId,
    outcome,
    rating: { overrides: row.rating.overrides ?? {}, rateUp: row.rating.rateUp ?? [] },
    assumedControlRisk: row.assumedControlRisk,
    decisionThreshold: row.decisionThreshold,
    updatedBy: row.updatedBy,
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

async function requireOutcome(app: Pick<AppServices, "db">, reviewId: string, outcomeId: string | undefined) {
  const id = Number(outcomeId);
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError("OUTCOME_NOT_FOUND", "Outcome not found", 404);
  const [row] = await app.db
    .select()
    .from(reviewOutcomes)
    .where(and(eq(reviewOutcomes.id, id), eq(reviewOutcomes.reviewId, reviewId)))
    .limit(1);
  if (!row) throw new AppError("OUTCOME_NOT_FOUND", "Outcome not found", 404);
  return row;
}

/** Every outcome's stored settings, oldest outcome first. @throws AppError 404 REVIEW_NOT_FOUND. */
export async function listGradeSettings(
  app: GradeApp,
  target: { userId: string; reviewId: string | undefined },
): Promise<ApiGradeSettings[]> {
  const review = await requireReview(app, target, "read");
  const rows = await app.db
    .select({ row: reviewGradeSettings, outcome: reviewOutcomes.name })
    .from(reviewGradeSettings)
    .innerJoin(reviewOutcomes, eq(reviewOutcomes.id, reviewGradeSettings.outcomeId))
    .where(eq(reviewGradeSettings.reviewId, review.id))
    .orderBy(asc(reviewGradeSettings.outcomeId));
  return rows.map((r) => toApi(r.row, r.outcome));
}

/**
 * Creates or replaces one outcome's settings in one upsert.
 * @throws AppError 404 REVIEW_NOT_FOUND / OUTCOME_NOT_FOUND; 403 FORBIDDEN_ROLE (viewer).
 */
export async function saveGradeSettings(
  app: GradeApp,
  target: { userId: string; reviewId: string | undefined; outcomeId: string | undefined },
  input: GradeSettingsInput,
): Promise<{ settings: ApiGradeSettings; created: boolean }> {
  const review = await requireReview(app, target, "write");
  const outcome = await requireOutcome(app, review.id, target.outcomeId);
  const [user] = await app.db.select({ email: users.email }).from(users).where(eq(users.id, target.userId)).limit(1);
  const now = Date.now();
  const values = {
    rating: input.rating,
    assumedControlRisk: input.assumedControlRisk,
    decisionThreshold: input.decisionThreshold,
    updatedBy: user?.email ?? target.userId,
    updatedAt: now,
  };
  const [row] = await app.db
    .insert(reviewGradeSettings)
    .values({ reviewId: review.id, userId: review.userId, outcomeId: outcome.id, createdAt: now, ...values })
    .onConflictDoUpdate({ target: [reviewGradeSettings.reviewId, reviewGradeSettings.outcomeId], set: values })
    .returning();
  return { settings: toApi(row!, outcome.name), created: row!.createdAt === now };
}

/** Deletes one outcome's settings. @throws AppError 404 (review, outcome or GRADE_SETTINGS_NOT_FOUND); 403 FORBIDDEN_ROLE. */
export async function deleteGradeSettings(
  app: GradeApp,
  target: { userId: string; reviewId: string | undefined; outcomeId: string | undefined },
): Promise<void> {
  const review = await requireReview(app, target, "write");
  const outcome = await requireOutcome(app, review.id, target.outcomeId);
  const deleted = await app.db
    .delete(reviewGradeSettings)
    .where(and(eq(reviewGradeSettings.reviewId, review.id), eq(reviewGradeSettings.outcomeId, outcome.id)))
    .returning({ id: reviewGradeSettings.id });
  if (!deleted.length) throw new AppError("GRADE_SETTINGS_NOT_FOUND", "This outcome has no GRADE settings.", 404);
}
