/**
 * Read-only queries over the dual risk-of-bias submissions (app/.server/risk-of-bias/dual.ts writes
 * them) that the review's own views need: the members' progress and the agreement figures. They sit
 * in reviews/ so that reviews never import risk-of-bias (risk-of-bias builds on reviews).
 */
import { asc, eq, sql } from "drizzle-orm";
import { reviewRobSubmissions } from "../../../db/schema";
import { ASSESSORS_PER_STUDY, robAgreement, type RobAgreement } from "~/lib/risk-of-bias/dual";
import type { AppServices } from "../context";

type RobApp = Pick<AppServices, "db">;

/**
 * Agreement of the review's dual RoB 2 assessments: per domain and overall, percent agreement and
 * unweighted Cohen's κ over Low / Some concerns / High (app/lib/risk-of-bias/dual.ts robAgreement),
 * every study × outcome with two assessments counting once (rows: the first submitted).
 */
export async function reviewRobAgreement(app: RobApp, reviewId: string): Promise<RobAgreement> {
  const rows = await app.db
    .select({
      outcomeId: reviewRobSubmissions.outcomeId,
      recordId: reviewRobSubmissions.recordId,
      userId: reviewRobSubmissions.userId,
      final: reviewRobSubmissions.final,
    })
    .from(reviewRobSubmissions)
    .where(eq(reviewRobSubmissions.reviewId, reviewId))
    .orderBy(
      asc(reviewRobSubmissions.outcomeId),
      asc(reviewRobSubmissions.recordId),
      asc(reviewRobSubmissions.submittedAt),
    );
  const byStudy = new Map<string, typeof rows>();
  for (const r of rows) {
    const key = `${r.outcomeId}|${r.recordId}`;
    byStudy.set(key, [...(byStudy.get(key) ?? []), r]);
  }
  const pairs = [...byStudy.values()]
    .filter((p) => p.length >= ASSESSORS_PER_STUDY)
    .map(([first, second]) => ({ first: first!, second: second! }));
  return robAgreement(pairs);
}

/** Studies × outcomes each member assessed in dual mode (their submissions). */
export async function assessedByMember(app: RobApp, reviewId: string): Promise<Map<string, number>> {
  const rows = await app.db
    .select({ userId: reviewRobSubmissions.userId, n: sql<number>`count(*)` })
    .from(reviewRobSubmissions)
    .where(eq(reviewRobSubmissions.reviewId, reviewId))
    .groupBy(reviewRobSubmissions.userId);
  return new Map(rows.map((r) => [r.userId, r.n]));
}
