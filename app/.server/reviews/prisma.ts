/**
 * PRISMA 2020 flow counts of a review, from its records and the reviewers' decisions (issue 13).
 */
import { and, eq, ne, type SQL, sql } from "drizzle-orm";
import { reviewRecords, reviewSources, reviewUpdates } from "../../../db/schema";
import { NOT_RETRIEVED_REASON, type ReviewPrisma, type ReviewPrismaFlow } from "~/lib/reviews";
import { requireReview, type ReviewsApp } from "./service";

/**
 * The flow of PRISMA 2020 (Page et al. 2021, BMJ 372:n71, figure 1, databases/registers arm):
 * - identified: records brought into the review per database, register or file (duplicates
 *   included; never a database's total hit count);
 * - duplicatesRemoved: records currently merged into another;
 * - screened: unique records with a title/abstract decision (include, exclude or maybe);
 *   excluded: those excluded there; maybe: those marked maybe; awaitingScreening: unique
 *   records without a decision yet;
 * - soughtForRetrieval: records included at title/abstract;
 * - notRetrieved: of those, excluded at full text with the reason "Full text not retrievable";
 * - assessed: the others with a full-text decision; awaitingFullText: those sought without one;
 *   excludedWithReasons: their full-text exclusions per reason; fullTextMaybe: marked maybe at
 *   full text; included: included at full text.
 * Identities, true at every moment of a review: Σ identified − duplicatesRemoved = screened +
 * awaitingScreening; screened = excluded + maybe + soughtForRetrieval; soughtForRetrieval −
 * notRetrieved = assessed + awaitingFullText; assessed = Σ excludedWithReasons + fullTextMaybe +
 * included.
 * A review that has had living updates (a finished run in review_updates) also gets `updated`,
 * the counts of PRISMA 2020's flow diagram for updated reviews (Page et al. 2021, figure 1, the
 * template for updated reviews): studies included from the records that came before and outside
 * the updates (`previousStudies`), the flow of the records the updates identified (`newFlow`, the
 * same counts over the update sources' records) and `totalStudies` = previous + new included.
 * @throws AppError 404 REVIEW_NOT_FOUND.
 */
export async function reviewPrisma(
  app: ReviewsApp,
  { userId, reviewId }: { userId: string; reviewId: string | undefined },
): Promise<ReviewPrisma> {
  const review = await requireReview(app, { userId, reviewId }, "read");
  const fromUpdate = sql`${reviewRecords.sourceId} in (select ${reviewSources.id} from ${reviewSources} where ${reviewSources.reviewId} = ${review.id} and json_extract(${reviewSources.details}, '$.updateOf') is not null)`;
  const [whole, [updates]] = await Promise.all([
    prismaFlow(app, review.id),
    app.db
      .select({ n: sql<number>`count(*)`, last: sql<number | null>`max(${reviewUpdates.startedAt})` })
      .from(reviewUpdates)
      .where(and(eq(reviewUpdates.reviewId, review.id), ne(reviewUpdates.status, "running"))),
  ]);
  if (!updates?.n) return whole;
  const [newFlow, previous] = await Promise.all([
    prismaFlow(app, review.id, fromUpdate),
    prismaFlow(app, review.id, sql`(${reviewRecords.sourceId} is null or not (${fromUpdate}))`),
  ]);
  return {
    ...whole,
    updated: {
      updates: updates.n,
      lastUpdateAt: updates.last === null ? null : new Date(updates.last).toISOString(),
      previousStudies: previous.included,
      newFlow,
      totalStudies: previous.included + newFlow.included,
    },
  };
}

/**
 * The flow counts over the review's records, or over those `scope` selects (the records a living
 * update brought in, or all others): see {@link reviewPrisma}.
 */
async function prismaFlow(app: ReviewsApp, reviewId: string, scope?: SQL): Promise<ReviewPrismaFlow> {
  const r = reviewRecords;
  const inReview = scope ? and(eq(r.reviewId, reviewId), scope)! : eq(r.reviewId, reviewId);
  const unique = sql`${r.duplicateOf} is null`;
  const sought = sql`${unique} and ${r.taDecision} = 'include'`;
  const notRetrieved = sql`${sought} and ${r.ftDecision} = 'exclude' and ${r.ftReason} = ${NOT_RETRIEVED_REASON}`;
  const [byOrigin, [totals], reasons] = await Promise.all([
    app.db
      .select({ origin: r.origin, n: sql<number>`count(*)` })
      .from(r)
      .where(inReview)
      .groupBy(r.origin)
      .orderBy(sql`min(${r.id})`),
    app.db
      .select({
        duplicatesRemoved: sql<number>`count(*) filter (where ${r.duplicateOf} is not null)`,
        screened: sql<number>`count(*) filter (where ${unique} and ${r.taDecision} is not null)`,
        excluded: sql<number>`count(*) filter (where ${unique} and ${r.taDecision} = 'exclude')`,
        awaitingScreening: sql<number>`count(*) filter (where ${unique} and ${r.taDecision} is null)`,
        maybe: sql<number>`count(*) filter (where ${unique} and ${r.taDecision} = 'maybe')`,
        soughtForRetrieval: sql<number>`count(*) filter (where ${sought})`,
        notRetrieved: sql<number>`count(*) filter (where ${notRetrieved})`,
        assessed: sql<number>`count(*) filter (where ${sought} and ${r.ftDecision} is not null and not (${notRetrieved}))`,
        awaitingFullText: sql<number>`count(*) filter (where ${sought} and ${r.ftDecision} is null)`,
        fullTextMaybe: sql<number>`count(*) filter (where ${sought} and ${r.ftDecision} = 'maybe')`,
        included: sql<number>`count(*) filter (where ${sought} and ${r.ftDecision} = 'include')`,
      })
      .from(r)
      .where(inReview),
    app.db
      .select({ reason: r.ftReason, n: sql<number>`count(*)` })
      .from(r)
      .where(and(inReview, sql`${sought} and ${r.ftDecision} = 'exclude' and not (${notRetrieved})`))
      .groupBy(r.ftReason)
      .orderBy(sql`count(*) desc`, r.ftReason),
  ]);
  return {
    identified: Object.fromEntries(byOrigin.map((o) => [o.origin, o.n])),
    duplicatesRemoved: totals!.duplicatesRemoved,
    screened: totals!.screened,
    excluded: totals!.excluded,
    awaitingScreening: totals!.awaitingScreening,
    maybe: totals!.maybe,
    soughtForRetrieval: totals!.soughtForRetrieval,
    notRetrieved: totals!.notRetrieved,
    assessed: totals!.assessed,
    awaitingFullText: totals!.awaitingFullText,
    fullTextMaybe: totals!.fullTextMaybe,
    excludedWithReasons: Object.fromEntries(reasons.map((x) => [x.reason ?? "No reason given", x.n])),
    included: totals!.included,
  };
}
