/**
 * The daily e-mail digest of screening conflicts waiting (issue 30 item 6): opt-in per member
 * (and for the owner) and per review (review_digests.enabled), sent by the Worker's Cron Trigger
 * once per UTC day from DIGEST_HOUR_UTC on, only when the review has unresolved conflicts, through
 * the e-mail provider of app/.server/email (development without an e-mail API: printed to the
 * console). Idempotent per day: each (review, member, day) is claimed by a compare-and-set on
 * last_sent_day before sending, so overlapping cron runs send it once; a failed send gives the
 * claim back for the next run.
 */
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { reviewDigests, reviewMembers, reviews, users } from "../../../db/schema";
import type { AppServices } from "../context";
import { sendEmail } from "../email/send";
import { conflictsDigestEmail } from "../email/templates";
import { isDevelopment } from "../env";
import { requireReviewAccess } from "./access";
import { conflictsOf } from "./votes";

/** The digest goes out with the first cron run of the UTC day at or after this hour. */
export const DIGEST_HOUR_UTC = 7;
/** Digests sent per cron run at most (the rest go with the next run). */
export const MAX_DIGESTS_PER_RUN = 50;

type DigestApp = Pick<AppServices, "db" | "bindings" | "env" | "fetch">;

/** PUT /api/reviews/{id}/digest body. */
export const DigestSettingSchema = z
  .object({ enabled: z.boolean({ error: "enabled must be true or false" }) })
  .strict();

/** The caller's digest setting for a review. */
export interface ApiDigestSetting {
  enabled: boolean;
  /** The UTC day (YYYY-MM-DD) it was last sent, or null. */
  lastSentDay: string | null;
}

/** The caller's setting (any member). @throws AppError 404 REVIEW_NOT_FOUND. */
export async function getDigestSetting(
  app: DigestApp,
  target: { userId: string; reviewId: string | undefined },
): Promise<ApiDigestSetting> {
  const { review } = await requireReviewAccess(app, target, "read");
  const [row] = await app.db
    .select()
    .from(reviewDigests)
    .where(and(eq(reviewDigests.reviewId, review.id), eq(reviewDigests.userId, target.userId)));
  return { enabled: row?.enabled ?? false, lastSentDay: row?.lastSentDay ?? null };
}

/** Turns the caller's own digest on or off (any member, for themselves only). @throws AppError 404. */
export async function setDigestSetting(
  app: DigestApp,
  target: { userId: string; reviewId: string | undefined },
  input: z.infer<typeof DigestSettingSchema>,
): Promise<ApiDigestSetting> {
  const { review } = await requireReviewAccess(app, target, "read");
  const [row] = await app.db
    .insert(reviewDigests)
    .values({ reviewId: review.id, userId: target.userId, enabled: input.enabled })
    .onConflictDoUpdate({ target: [reviewDigests.reviewId, reviewDigests.userId], set: { enabled: input.enabled } })
    .returning();
  return { enabled: row!.enabled, lastSentDay: row!.lastSentDay };
}

/** The UTC day of a time, YYYY-MM-DD. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The Cron Trigger's part: sends today's digests that are due — opted-in members (or owners) still
 * on the review, not yet sent today, of reviews with unresolved conflicts — at or after
 * DIGEST_HOUR_UTC. A review without conflicts is skipped (and tried again on the next run).
 * @returns how many subscriptions were due, sent (through an e-mail API), printed to the console
 * (development without an API) and failed.
 */
export async function sendConflictDigests(
  app: DigestApp,
  { now }: { now: number },
): Promise<{ due: number; sent: number; logged: number; failed: number }> {
  const report = { due: 0, sent: 0, logged: 0, failed: 0 };
  if (new Date(now).getUTCHours() < DIGEST_HOUR_UTC) return report;
  const day = utcDay(now);
  const due = await app.db
    .select({
      reviewId: reviewDigests.reviewId,
      userId: reviewDigests.userId,
      lastSentDay: reviewDigests.lastSentDay,
      email: users.email,
      title: reviews.title,
    })
    .from(reviewDigests)
    .innerJoin(reviews, eq(reviews.id, reviewDigests.reviewId))
    .innerJoin(users, eq(users.id, reviewDigests.userId))
    .leftJoin(
      reviewMembers,
      and(eq(reviewMembers.reviewId, reviewDigests.reviewId), eq(reviewMembers.userId, reviewDigests.userId)),
    )
    .where(
      and(
        eq(reviewDigests.enabled, true),
        sql`(${reviewDigests.lastSentDay} IS NULL OR ${reviewDigests.lastSentDay} <> ${day})`,
        sql`(${reviews.userId} = ${reviewDigests.userId} OR ${reviewMembers.userId} IS NOT NULL)`,
      ),
    )
    .limit(MAX_DIGESTS_PER_RUN);
  const conflictsByReview = new Map<string, Awaited<ReturnType<typeof conflictsOf>>>();
  for (const d of due) {
    if (!conflictsByReview.has(d.reviewId)) conflictsByReview.set(d.reviewId, await conflictsOf(app, d.reviewId));
    const conflicts = conflictsByReview.get(d.reviewId)!;
    if (conflicts.length === 0) continue;
    report.due++;
    const claim = (from: string | null, to: string | null) =>
      app.db
        .update(reviewDigests)
        .set({ lastSentDay: to })
        .where(
          and(
            eq(reviewDigests.reviewId, d.reviewId),
            eq(reviewDigests.userId, d.userId),
            from === null ? sql`${reviewDigests.lastSentDay} IS NULL` : eq(reviewDigests.lastSentDay, from),
          ),
        )
        .returning({ userId: reviewDigests.userId });
    // Compare-and-set: only the run that moves last_sent_day to today sends.
    if ((await claim(d.lastSentDay, day)).length === 0) continue;
    const message = conflictsDigestEmail(d.email, {
      reviewTitle: d.title,
      conflicts: conflicts.length,
      titleAbstract: conflicts.filter((c) => c.stage === "title_abstract").length,
      fullText: conflicts.filter((c) => c.stage === "full_text").length,
      link: `${app.env.APP_URL ?? ""}/reviews/${d.reviewId}?tab=team`,
    });
    try {
      const delivery = await sendEmail(app, message);
      if (delivery.sent) report.sent++;
      else {
        report.logged++;
        if (isDevelopment(app.env))
          console.info(
            `[conflicts digest] no e-mail API configured; to ${d.email}: ${message.subject}\n${message.text}`,
          );
        else
          console.warn(
            "[conflicts digest] no e-mail API configured (EMAIL_PROVIDER, EMAIL_API_KEY): the digest was not sent",
          );
      }
    } catch (error) {
      console.error("conflicts digest e-mail failed", error);
      report.failed++;
      await claim(day, d.lastSentDay);
    }
  }
  return report;
}
