/**
 * The facts of a review that fill its PRISMA 2020 checklist (app/lib/prisma-checklist.ts): the
 * question and criteria, the sources, the flow counts, who screened at each stage, whether the
 * active-learning order was used, the extraction outcomes and the corrections made to them.
 */
import { and, countDistinct, eq, like, sql } from "drizzle-orm";
import { buildPrismaChecklist, type PrismaChecklist } from "~/lib/prisma-checklist";
import { extractionEdits, reviewDecisions, reviewOutcomes, reviewRankings } from "../../../db/schema";
import { reviewPrisma } from "./prisma";
import { listSources, requireReview, type ReviewsApp } from "./service";

/**
 * The PRISMA 2020 checklist of a review the user can read.
 * @throws AppError 404 REVIEW_NOT_FOUND (unknown review, or not the user's).
 */
export async function reviewPrismaChecklist(app: ReviewsApp, target: { userId: string; reviewId: string | undefined }): Promise<PrismaChecklist> {
  const review = await requireReview(app, target);
  const editKeys = `review:${review.id}:%`;
  const [sources, prisma, screeners, ranking, outcomes, [edits]] = await Promise.all([
    listSources(app, review.id),
    reviewPrisma(app, { userId: target.userId, reviewId: review.id }),
    app.db
      .select({ stage: reviewDecisions.stage, people: countDistinct(reviewDecisions.userId) })
      .from(reviewDecisions)
      .where(eq(reviewDecisions.reviewId, review.id))
      .groupBy(reviewDecisions.stage),
    app.db.select({ reviewId: reviewRankings.reviewId }).from(reviewRankings).where(eq(reviewRankings.reviewId, review.id)).limit(1),
    app.db
      .select({ name: reviewOutcomes.name, intervention: reviewOutcomes.intervention, comparator: reviewOutcomes.comparator })
      .from(reviewOutcomes)
      .where(eq(reviewOutcomes.reviewId, review.id))
      .orderBy(reviewOutcomes.id),
    app.db
      .select({ cells: sql<number>`count(distinct ${extractionEdits.studyKey} || '|' || ${extractionEdits.outcome} || '|' || ${extractionEdits.arm} || '|' || ${extractionEdits.field})`, editors: countDistinct(extractionEdits.userId) })
      .from(extractionEdits)
      .where(and(like(extractionEdits.studyKey, editKeys))),
  ]);
  const people = (stage: string) => screeners.find((s) => s.stage === stage)?.people ?? 0;
  return buildPrismaChecklist({
    title: review.title,
    question: review.question,
    inclusionCriteria: review.inclusionCriteria,
    exclusionCriteria: review.exclusionCriteria,
    sources: sources.map((s) => ({ kind: s.kind, name: s.name, query: s.query, createdAt: s.createdAt, recordCount: s.recordCount })),
    prisma,
    screeners: { titleAbstract: people("title_abstract"), fullText: people("full_text") },
    prioritisedScreening: ranking.length > 0,
    outcomes,
    extractionEdits: { cells: edits?.cells ?? 0, editors: edits?.editors ?? 0 },
  });
}
