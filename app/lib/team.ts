/**
 * Reviewing as a team (issue 30): roles, the API shapes both sides use, and the rule that turns
 * two independent screening votes into a record's final decision. Pure: no I/O.
 */
import type { ScreeningDecision, ScreeningStage } from "./reviews";

/** The caller's role in a review. */
export type ReviewRole = "owner" | "reviewer" | "viewer";
export type MemberRole = "reviewer" | "viewer";
export type ScreeningMode = "single" | "dual";

/** A review's screening settings (both stages). */
export interface ScreeningSettings {
  mode: ScreeningMode;
  blind: boolean;
}

/** GET /api/reviews/{id}/members item. `status`: 'active' member (or owner), or 'invited' (pending invitation, no userId yet). */
export interface ApiMember {
  userId: string | null;
  email: string;
  role: ReviewRole;
  status: "active" | "invited";
  resolver: boolean;
  invitationId?: string;
  expiresAt?: string;
  /** Active members: records they screened (current decisions or votes) per stage, and their records in the conflicts queue. */
  progress?: { titleAbstract: number; fullText: number; conflicts: number };
}

/** POST /api/reviews/{id}/members answer. `debugToken` only in development without an e-mail API. */
export interface ApiInvitation {
  id: string;
  email: string;
  role: MemberRole;
  expiresAt: string;
  url: string;
  debugToken?: string;
}

/** One reviewer's current vote on a record at a stage. */
export interface Vote {
  userId: string;
  decision: ScreeningDecision;
  reason: string | null;
}

/** GET /api/reviews/{id}/conflicts item. */
export interface ApiConflict {
  recordId: number;
  title: string;
  stage: ScreeningStage;
  votes: Vote[];
}

/** 'maybe' counts as include when votes are compared (Covidence's rule). */
export const leansInclude = (d: ScreeningDecision) => d !== "exclude";

/**
 * The final decision two independent votes give a record in dual screening, or null while it
 * waits (fewer than two votes) or is in conflict:
 * - both lean include ('include' or 'maybe'): 'include' if either is 'include', else 'maybe';
 * - both exclude: 'exclude' — at full text only when they give the same reason (different
 *   reasons are a conflict, as Covidence treats them), at title/abstract with the first vote's reason;
 * - one leans include and one excludes: conflict.
 * `votes` in the order they were cast; only the first two count.
 */
export function finalFromVotes(
  stage: ScreeningStage,
  votes: readonly Pick<Vote, "decision" | "reason">[],
): { decision: ScreeningDecision; reason: string | null } | null {
  if (votes.length < 2) return null;
  const [a, b] = votes as [Pick<Vote, "decision" | "reason">, Pick<Vote, "decision" | "reason">];
  if (leansInclude(a.decision) && leansInclude(b.decision)) {
    return { decision: a.decision === "include" || b.decision === "include" ? "include" : "maybe", reason: null };
  }
  if (a.decision === "exclude" && b.decision === "exclude") {
    if (stage === "full_text" && (a.reason ?? "") !== (b.reason ?? "")) return null;
    return { decision: "exclude", reason: a.reason ?? b.reason };
  }
  return null;
}

/** True when two votes are in and disagree (a conflict for the owner or a resolver). */
export function isConflict(stage: ScreeningStage, votes: readonly Pick<Vote, "decision" | "reason">[]): boolean {
  return votes.length >= 2 && finalFromVotes(stage, votes) === null;
}
