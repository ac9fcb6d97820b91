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
  /** Active members: records they screened (current decisions or votes) per stage, their records in the conflicts queue, and the studies × outcomes they extracted (dual: submitted; single: corrected) and, in dual RoB mode, the studies × outcomes they submitted a RoB 2 assessment of. */
  progress?: { titleAbstract: number; fullText: number; conflicts: number; extracted: number; assessed?: number };
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

/** What an activity-log entry records. */
export type ActivityAction =
  | "vote"
  | "undo"
  | "resolve"
  | "member.invite"
  | "member.join"
  | "member.update"
  | "member.remove"
  | "import"
  | "settings"
  | "extraction.edit"
  | "extraction.submit"
  | "extraction.consensus"
  | "rob.submit"
  | "rob.consensus";

/** GET /api/reviews/{id}/activity item (newest first). `detail`: the action's particulars; a blind vote the reader may not see yet carries only its stage. */
export interface ApiActivityEntry {
  id: number;
  userId: string | null;
  email: string | null;
  action: ActivityAction;
  recordId: number | null;
  recordTitle: string | null;
  detail: Record<string, unknown>;
  createdAt: string;
}

/** One line of the activity log in words ("voted include", "resolved a conflict: exclude"). */
export function describeActivity(entry: Pick<ApiActivityEntry, "action" | "detail">): string {
  const d = entry.detail;
  const stage = d.stage === "full_text" ? " at full text" : d.stage === "title_abstract" ? " at title/abstract" : "";
  switch (entry.action) {
    case "vote":
      return d.decision
        ? `voted ${String(d.decision)}${stage}${d.reason ? ` (${String(d.reason)})` : ""}`
        : `voted${stage}`;
    case "undo":
      return `undid a decision${stage}`;
    case "resolve":
      return `resolved a conflict${stage}: ${String(d.decision)}${d.reason ? ` (${String(d.reason)})` : ""}`;
    case "member.invite":
      return `invited ${String(d.email)} as ${String(d.role)}`;
    case "member.join":
      return `joined as ${String(d.role)}`;
    case "member.update":
      return `changed ${String(d.email ?? "a member")}: ${[d.role ? `role ${String(d.role)}` : "", d.resolver === undefined ? "" : d.resolver ? "resolves conflicts" : "no longer resolves conflicts"].filter(Boolean).join(", ")}`;
    case "member.remove":
      return d.left ? "left the review" : `removed ${String(d.email ?? "a member")}`;
    case "import":
      return `imported ${String(d.records)} records (${String(d.format ?? "file")})`;
    case "settings":
      return `changed the settings: ${Object.keys(d).join(", ")}`;
    case "extraction.edit":
      return `corrected ${String(d.cells)} extracted value${d.cells === 1 ? "" : "s"} (${String(d.outcome)})`;
    case "extraction.submit":
      return `submitted their extraction (${String(d.outcome)})`;
    case "extraction.consensus":
      return `recorded consensus values (${String(d.outcome)})`;
    case "rob.submit":
      return `submitted their risk-of-bias assessment (${String(d.outcome)})`;
    case "rob.consensus":
      return `recorded the consensus risk-of-bias assessment (${String(d.outcome)})`;
  }
}
