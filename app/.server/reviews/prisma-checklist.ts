/**
 * The facts of a review that fill its PRISMA 2020 checklist (app/lib/prisma-checklist.ts): the
 * question and criteria, the sources, the flow counts, who screened at each stage and their Cohen's
 * κ (dual screening), whether the active-learning order was used, the extraction outcomes and the
 * corrections made to them, study data imported from CSV, the living updates, and how many
 * studies have a RoB 2 assessment.
 */
import { countDistinct, eq, like, sql } from "drizzle-orm";
import { buildPrismaChecklist, type PrismaChecklist } from "~/lib/prisma-checklist";
import {
  extractionEdits,
  reviewDecisions,
  reviewOutcomes,
  reviewRankings,
  reviewStudyData,
  riskOfBiasAssessments,
} from "../../../db/schema";
import { reviewPrisma } from "./prisma";
import { listSources, requireReview, type ReviewsApp } from "./service";
import { reviewAgreement } from "./votes";

/**
 * The PRISMA 2020 checklist of a review the user can read.
 * @throws AppError 404 REVIEW_NOT_FOUND (unknown review, or not the user's).
 */
export async function reviewPrismaChecklist(
  app: ReviewsApp,
  target: { userId: string; reviewId: string | undefined },
): Promise<PrismaChecklist> {
  const review = await requireReview(app, target, "read");
  const editKeys = `review:${review.id}:%`;
  const [sources, prisma, screeners, ranking, outcomes, [edits], agreement, [rob], imported] = await Promise.all([
    listSources(app, review.id),
    reviewPrisma(app, { userId: target.userId, reviewId: review.id }),
    app.db
      .select({ stage: reviewDecisions.stage, people: countDistinct(reviewDecisions.userId) })
      .from(reviewDecisions)
      .where(eq(reviewDecisions.reviewId, review.id))
      .groupBy(reviewDecisions.stage),
    app.db
      .select({ reviewId: reviewRankings.reviewId })
      .from(reviewRankings)
      .where(eq(reviewRankings.reviewId, review.id))
      .limit(1),
    app.db
      .select({
        name: reviewOutcomes.name,
        intervention: reviewOutcomes.intervention,
        comparator: reviewOutcomes.comparator,
      })
      .from(reviewOutcomes)
      .where(eq(reviewOutcomes.reviewId, review.id))
      .orderBy(reviewOutcomes.id),
    app.db
      .select({
        cells: sql<number>`count(distinct ${extractionEdits.studyKey} || '|' || ${extractionEdits.outcome} || '|' || ${extractionEdits.arm} || '|' || ${extractionEdits.field})`,
        editors: countDistinct(extractionEdits.userId),
      })
      .from(extractionEdits)
      .where(like(extractionEdits.studyKey, editKeys)),
    reviewAgreement(app, target),
    app.db
      .select({ studies: countDistinct(riskOfBiasAssessments.recordId) })
      .from(riskOfBiasAssessments)
      .where(eq(riskOfBiasAssessments.reviewId, review.id)),
    app.db
      .select({
        outcomeId: reviewStudyData.outcomeId,
        recordId: reviewStudyData.recordId,
        fileName: reviewStudyData.fileName,
      })
      .from(reviewStudyData)
      .where(eq(reviewStudyData.reviewId, review.id))
      .limit(10_000),
  ]);
  const kappaOf = (stage: { kappa: number | null; n: number }) =>
    stage.kappa === null || stage.n === 0 ? null : { kappa: stage.kappa, n: stage.n };
  const people = (stage: string) => screeners.find((s) => s.stage === stage)?.people ?? 0;
  return buildPrismaChecklist({
    title: review.title,
    question: review.question,
    inclusionCriteria: review.inclusionCriteria,
    exclusionCriteria: review.exclusionCriteria,
    sources: sources.map((s) => ({
      kind: s.kind,
      name: s.name,
      query: s.query,
      createdAt: s.createdAt,
      recordCount: s.recordCount,
    })),
    prisma,
    screeners: { titleAbstract: people("title_abstract"), fullText: people("full_text") },
    prioritisedScreening: ranking.length > 0,
    agreement: { titleAbstract: kappaOf(agreement.titleAbstract), fullText: kappaOf(agreement.fullText) },
    riskOfBias: rob && rob.studies > 0 ? { tool: "RoB 2", assessedStudies: rob.studies } : null,
    outcomes,
    extractionEdits: { cells: edits?.cells ?? 0, editors: edits?.editors ?? 0 },
    importedData: imported.length
      ? {
          studies: new Set(imported.map((i) => i.recordId)).size,
          outcomes: new Set(imported.map((i) => i.outcomeId)).size,
          files: [...new Set(imported.map((i) => i.fileName).filter((n): n is string => Boolean(n)))].slice(0, 10),
        }
      : null,
    livingSchedule: review.livingSchedule,
  });
}
