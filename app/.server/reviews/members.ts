/**
 * A review's team (issue 30): invitations by e-mail, members and their roles, leaving.
 *
 * Invitation tokens follow the password reset's rules (../auth/password-reset.ts): 32 random bytes
 * from the Web Crypto CSPRNG sent base64url-encoded (43 characters), only their SHA-256 stored;
 * a token works once, for 7 days, and only for the account with the invited e-mail. A new
 * invitation of the same e-mail to the same review replaces the older pending one.
 */
import { and, asc, eq, gt, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import {
  reviewActivity,
  reviewDecisions,
  reviewInvitations,
  reviewMemberRankings,
  reviewMembers,
  reviews,
  users,
  type UserRow,
} from "../../../db/schema";
import type { ApiReview } from "~/lib/reviews";
import type { ApiInvitation, ApiMember, MemberRole } from "~/lib/team";
import { hashResetToken, newResetToken, ResetTokenSchema } from "../auth/password-reset";
import type { AppServices } from "../context";
import { sendEmail } from "../email/send";
import { reviewInvitationEmail } from "../email/templates";
import { isDevelopment } from "../env";
import { AppError } from "../http/errors";
import { activityInsert, activityStatement } from "./activity";
import { requireReviewAccess } from "./access";
import { assessedByMember } from "./rob-submissions";
import { extractedByMember } from "./dual-extraction";
import { getReview } from "./service";
import { conflictsOf } from "./votes";

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Members and pending invitations one review may have (besides its owner). */
export const MAX_MEMBERS = 50;

type TeamApp = Pick<AppServices, "db" | "bindings" | "env" | "fetch">;

const email = z
  .string({ error: "email is required" })
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: "Invalid email address" }).max(254, "Invalid email address"));
const role = z.enum(["reviewer", "viewer"], { error: "role must be 'reviewer' or 'viewer'" });

/** POST /api/reviews/{id}/members body. */
export const InviteSchema = z.object({ email, role }).strict();
/** PATCH /api/reviews/{id}/members/{userId} body: the role and/or whether the member resolves conflicts. */
export const UpdateMemberSchema = z
  .object({ role: role.optional(), resolver: z.boolean().optional() })
  .strict()
  .refine((v) => v.role !== undefined || v.resolver !== undefined, "Give role or resolver");

/** The accept page's address for a token: `{APP_URL or origin}/invitations/{token}`. */
export function invitationLink(origin: string, token: string): string {
  return new URL(`/invitations/${token}`, origin).toString();
}

/**
 * Invites an e-mail to the review (owner only) and sends the link through the configured e-mail
 * API; without one in development the link is printed to the console and the token returned as
 * `debugToken`. Any account may be invited (a Free account joins a Professional owner's review;
 * features gated by plan follow the owner's plan in that review).
 * @throws AppError 404 REVIEW_NOT_FOUND; 403 FORBIDDEN_ROLE; 409 ALREADY_MEMBER (the owner's or a
 * member's e-mail) / TOO_MANY_MEMBERS; 502 EMAIL_FAILED (nothing kept).
 */
export async function inviteMember(
  app: TeamApp,
  { user, reviewId, origin }: { user: Pick<UserRow, "id" | "email">; reviewId: string | undefined; origin: string },
  input: z.infer<typeof InviteSchema>,
  now: number = Date.now(),
): Promise<ApiInvitation> {
  const { review } = await requireReviewAccess(app, { userId: user.id, reviewId }, "owner");
  const [existing] = await app.db
    .select({ id: users.id })
    .from(users)
    .leftJoin(reviewMembers, and(eq(reviewMembers.userId, users.id), eq(reviewMembers.reviewId, review.id)))
    .where(
      and(eq(users.email, input.email), sql`(${users.id} = ${review.userId} or ${reviewMembers.userId} is not null)`),
    )
    .limit(1);
  if (existing) throw new AppError("ALREADY_MEMBER", "This account is already on the review's team.", 409);
  const [count] = await app.db
    .select({
      n: sql<number>`(select count(*) from ${reviewMembers} where ${reviewMembers.reviewId} = ${review.id}) +
        (select count(*) from ${reviewInvitations} where ${reviewInvitations.reviewId} = ${review.id} and ${reviewInvitations.acceptedAt} is null
         and ${reviewInvitations.expiresAt} > ${now} and ${reviewInvitations.email} <> ${input.email})`,
    })
    .from(reviews)
    .where(eq(reviews.id, review.id));
  if ((count?.n ?? 0) >= MAX_MEMBERS)
    throw new AppError(
      "TOO_MANY_MEMBERS",
      `A review can have at most ${MAX_MEMBERS} members and pending invitations.`,
      409,
    );

  const token = newResetToken();
  const id = crypto.randomUUID();
  const expiresAt = now + INVITATION_TTL_MS;
  const [, , logged] = await app.db.batch([
    app.db
      .delete(reviewInvitations)
      .where(
        and(
          eq(reviewInvitations.reviewId, review.id),
          eq(reviewInvitations.email, input.email),
          isNull(reviewInvitations.acceptedAt),
        ),
      ),
    app.db.insert(reviewInvitations).values({
      id,
      reviewId: review.id,
      userId: user.id,
      email: input.email,
      role: input.role,
      tokenHash: await hashResetToken(token),
      expiresAt,
    }),
    activityInsert(app.db, {
      reviewId: review.id,
      userId: user.id,
      action: "member.invite",
      detail: { email: input.email, role: input.role },
      at: now,
    }).returning({
      id: reviewActivity.id,
    }),
  ]);
  const url = invitationLink(app.env.APP_URL ?? origin, token);
  let delivery;
  try {
    delivery = await sendEmail(
      app,
      reviewInvitationEmail(input.email, {
        inviter: user.email,
        reviewTitle: review.title,
        role: input.role,
        link: url,
        expiresInDays: 7,
      }),
    );
  } catch (error) {
    console.error("review invitation e-mail failed", error);
    await app.db.batch([
      app.db.delete(reviewInvitations).where(eq(reviewInvitations.id, id)),
      app.db.delete(reviewActivity).where(eq(reviewActivity.id, logged[0]!.id)),
    ]);
    throw new AppError("EMAIL_FAILED", "The invitation e-mail could not be sent. Please try again.", 502);
  }
  const invitation: ApiInvitation = {
    id,
    email: input.email,
    role: input.role,
    expiresAt: new Date(expiresAt).toISOString(),
    url,
  };
  if (!delivery.sent) {
    if (isDevelopment(app.env)) {
      console.info(`[review invitation] no e-mail API configured; invitation link for ${input.email}: ${url}`);
      return { ...invitation, debugToken: token };
    }
    console.warn("[review invitation] no e-mail API configured (EMAIL_PROVIDER, EMAIL_API_KEY): the link was not sent");
  }
  return invitation;
}

/**
 * The review's team, owner first, then members in the order they joined, then pending (unexpired)
 * invitations (`userId` null, status 'invited'). Active members carry their progress: records
 * they screened per stage (their current decisions or votes), their records in the conflicts
 * queue and the studies × outcomes they extracted (dual: submitted; single: corrected). Any member may read it.
 * @throws AppError 404 REVIEW_NOT_FOUND.
 */
export async function listMembers(
  app: TeamApp,
  target: { userId: string; reviewId: string | undefined },
  now: number = Date.now(),
): Promise<ApiMember[]> {
  const { review } = await requireReviewAccess(app, target, "read");
  const [owner, members, pending] = await app.db.batch([
    app.db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, review.userId)),
    app.db
      .select({
        userId: reviewMembers.userId,
        email: users.email,
        role: reviewMembers.role,
        resolver: reviewMembers.resolver,
      })
      .from(reviewMembers)
      .innerJoin(users, eq(users.id, reviewMembers.userId))
      .where(eq(reviewMembers.reviewId, review.id))
      .orderBy(asc(reviewMembers.createdAt), asc(users.email)),
    app.db
      .select()
      .from(reviewInvitations)
      .where(
        and(
          eq(reviewInvitations.reviewId, review.id),
          isNull(reviewInvitations.acceptedAt),
          gt(reviewInvitations.expiresAt, now),
        ),
      )
      .orderBy(asc(reviewInvitations.createdAt)),
  ]);
  const [screened, conflicts, extracted, assessed] = await Promise.all([
    app.db
      .select({
        userId: reviewDecisions.userId,
        stage: reviewDecisions.stage,
        n: sql<number>`count(distinct ${reviewDecisions.recordId})`,
      })
      .from(reviewDecisions)
      .where(eq(reviewDecisions.reviewId, review.id))
      .groupBy(reviewDecisions.userId, reviewDecisions.stage),
    conflictsOf(app, review.id),
    extractedByMember(app, review),
    assessedByMember(app, review.id),
  ]);
  const progress = (userId: string) => ({
    titleAbstract: screened.find((s) => s.userId === userId && s.stage === "title_abstract")?.n ?? 0,
    fullText: screened.find((s) => s.userId === userId && s.stage === "full_text")?.n ?? 0,
    conflicts: conflicts.filter((c) => c.votes.some((v) => v.userId === userId)).length,
    extracted: extracted.get(userId) ?? 0,
    // Dual RoB assessment only: the studies × outcomes the member submitted an assessment of.
    ...(review.robMode === "dual" ? { assessed: assessed.get(userId) ?? 0 } : {}),
  });
  return [
    ...owner.map((o) => ({
      userId: o.id,
      email: o.email,
      role: "owner" as const,
      status: "active" as const,
      resolver: true,
      progress: progress(o.id),
    })),
    ...members.map((m) => ({
      userId: m.userId,
      email: m.email,
      role: m.role,
      status: "active" as const,
      resolver: m.resolver,
      progress: progress(m.userId),
    })),
    ...pending.map((i) => ({
      userId: null,
      email: i.email,
      role: i.role,
      status: "invited" as const,
      resolver: false,
      invitationId: i.id,
      expiresAt: new Date(i.expiresAt).toISOString(),
    })),
  ];
}

/**
 * Changes a member's role and/or resolver flag (owner only), effective on the member's next request.
 * @throws AppError 404 REVIEW_NOT_FOUND / MEMBER_NOT_FOUND; 403 FORBIDDEN_ROLE.
 */
export async function updateMember(
  app: TeamApp,
  { userId, reviewId, memberId }: { userId: string; reviewId: string | undefined; memberId: string | undefined },
  input: z.infer<typeof UpdateMemberSchema>,
): Promise<ApiMember> {
  const { review } = await requireReviewAccess(app, { userId, reviewId }, "owner");
  const set: { role?: MemberRole; resolver?: boolean } = {};
  if (input.role !== undefined) set.role = input.role;
  if (input.resolver !== undefined) set.resolver = input.resolver;
  const where = and(eq(reviewMembers.reviewId, review.id), eq(reviewMembers.userId, memberId ?? ""));
  const [member] = await app.db
    .select({ email: users.email })
    .from(reviewMembers)
    .innerJoin(users, eq(users.id, reviewMembers.userId))
    .where(where);
  const [[row]] = await app.db.batch([
    app.db.update(reviewMembers).set(set).where(where).returning(),
    activityInsert(
      app.db,
      {
        reviewId: review.id,
        userId,
        action: "member.update",
        detail: { memberId, email: member?.email ?? null, ...set },
      },
      sql`EXISTS (SELECT 1 FROM ${reviewMembers} WHERE ${where})`,
    ),
  ]);
  if (!row) throw new AppError("MEMBER_NOT_FOUND", "This account is not a member of the review.", 404);
  const [who] = await app.db.select({ email: users.email }).from(users).where(eq(users.id, row.userId));
  return { userId: row.userId, email: who?.email ?? "", role: row.role, status: "active", resolver: row.resolver };
}

/**
 * Removes a member: the owner removes anyone; a member may remove only themselves (leave). Their
 * votes stay in the review's history; their access ends on their next request.
 * @throws AppError 404 REVIEW_NOT_FOUND / MEMBER_NOT_FOUND; 403 FORBIDDEN_ROLE (a member removing
 * another); 409 OWNER_CANNOT_LEAVE.
 */
export async function removeMember(
  app: TeamApp,
  { userId, reviewId, memberId }: { userId: string; reviewId: string | undefined; memberId: string | undefined },
): Promise<{ userId: string; removed: true }> {
  const access = await requireReviewAccess(app, { userId, reviewId }, "read");
  const review = access.review;
  if (memberId === review.userId)
    throw new AppError("OWNER_CANNOT_LEAVE", "The owner cannot leave or be removed; delete the review instead.", 409);
  if (access.role !== "owner" && memberId !== userId) {
    throw new AppError("FORBIDDEN_ROLE", "Only the review's owner can remove other members.", 403, {
      role: access.role,
    });
  }
  const isMember = and(eq(reviewMembers.reviewId, review.id), eq(reviewMembers.userId, memberId ?? ""));
  const [member] = await app.db
    .select({ email: users.email })
    .from(reviewMembers)
    .innerJoin(users, eq(users.id, reviewMembers.userId))
    .where(isMember);
  const [, , removed] = await app.db.batch([
    app.db
      .delete(reviewMemberRankings)
      .where(and(eq(reviewMemberRankings.reviewId, review.id), eq(reviewMemberRankings.userId, memberId ?? ""))),
    activityInsert(
      app.db,
      {
        reviewId: review.id,
        userId,
        action: "member.remove",
        detail: { memberId, email: member?.email ?? null, left: memberId === userId },
      },
      sql`EXISTS (SELECT 1 FROM ${reviewMembers} WHERE ${isMember})`,
    ),
    app.db
      .delete(reviewMembers)
      .where(and(eq(reviewMembers.reviewId, review.id), eq(reviewMembers.userId, memberId ?? "")))
      .returning({ userId: reviewMembers.userId }),
  ]);
  if (removed.length === 0) throw new AppError("MEMBER_NOT_FOUND", "This account is not a member of the review.", 404);
  return { userId: removed[0]!.userId, removed: true };
}

function gone(): AppError {
  return new AppError(
    "INVITATION_GONE",
    "This invitation has been used or has expired. Ask the review's owner for a new one.",
    410,
  );
}

/** What the accept page shows before the user accepts (no secret; null when the token is unknown). */
export async function describeInvitation(
  app: Pick<AppServices, "db">,
  token: string,
  now: number = Date.now(),
): Promise<{ email: string; role: MemberRole; reviewTitle: string; inviter: string; live: boolean } | null> {
  if (!ResetTokenSchema.safeParse(token).success) return null;
  const [row] = await app.db
    .select({ invitation: reviewInvitations, reviewTitle: reviews.title, inviter: users.email })
    .from(reviewInvitations)
    .innerJoin(reviews, eq(reviews.id, reviewInvitations.reviewId))
    .innerJoin(users, eq(users.id, reviews.userId))
    .where(eq(reviewInvitations.tokenHash, await hashResetToken(token)))
    .limit(1);
  if (!row) return null;
  const live = row.invitation.acceptedAt === null && row.invitation.expiresAt > now;
  return {
    email: row.invitation.email,
    role: row.invitation.role,
    reviewTitle: row.reviewTitle,
    inviter: row.inviter,
    live,
  };
}

/**
 * POST /api/invitations/{token}/accept: makes the signed-in account a member with the invited
 * role. One D1 batch (a transaction), each statement guarded by "this invitation is still
 * pending and unexpired": the membership is written and the invitation marked used, so of two
 * concurrent accepts exactly one succeeds.
 * @throws AppError 404 INVITATION_NOT_FOUND (malformed or unknown token); 410 INVITATION_GONE
 * (used or expired); 403 INVITATION_EMAIL_MISMATCH (signed in with another e-mail).
 */
export async function acceptInvitation(
  app: TeamApp,
  { user, token }: { user: Pick<UserRow, "id" | "email">; token: string | undefined },
  now: number = Date.now(),
): Promise<{ review: ApiReview; role: MemberRole }> {
  if (!token || !ResetTokenSchema.safeParse(token).success)
    throw new AppError("INVITATION_NOT_FOUND", "This invitation link is not valid.", 404);
  const tokenHash = await hashResetToken(token);
  const [row] = await app.db
    .select()
    .from(reviewInvitations)
    .where(eq(reviewInvitations.tokenHash, tokenHash))
    .limit(1);
  if (!row) throw new AppError("INVITATION_NOT_FOUND", "This invitation link is not valid.", 404);
  if (row.acceptedAt !== null || row.expiresAt <= now) throw gone();
  if (row.email !== user.email.trim().toLowerCase()) {
    throw new AppError(
      "INVITATION_EMAIL_MISMATCH",
      `This invitation is for another e-mail address. Sign in as ${row.email} to accept it.`,
      403,
    );
  }
  const DB = app.bindings.DB;
  const live = "EXISTS (SELECT 1 FROM review_invitations WHERE id = ?1 AND accepted_at IS NULL AND expires_at > ?2)";
  const [, claimed] = await DB.batch([
    DB.prepare(
      `INSERT INTO review_members (review_id, user_id, role) SELECT ?3, ?4, ?5 WHERE ${live} AND ?4 <> (SELECT user_id FROM reviews WHERE id = ?3)
       ON CONFLICT (review_id, user_id) DO UPDATE SET role = excluded.role`,
    ).bind(row.id, now, row.reviewId, user.id, row.role),
    DB.prepare(
      `UPDATE review_invitations SET accepted_at = ?2, accepted_by = ?3 WHERE id = ?1 AND accepted_at IS NULL AND expires_at > ?2`,
    ).bind(row.id, now, user.id),
    activityStatement(
      DB,
      { reviewId: row.reviewId, userId: user.id, action: "member.join", detail: { role: row.role }, at: now },
      {
        sql: "EXISTS (SELECT 1 FROM review_invitations WHERE id = ? AND accepted_at = ? AND accepted_by = ?)",
        values: [row.id, now, user.id],
      },
    ),
  ]);
  if (claimed!.meta.changes === 0) throw gone();
  return { review: await getReview(app, { userId: user.id, reviewId: row.reviewId }), role: row.role };
}
