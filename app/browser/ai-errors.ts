import type { GuestFeature } from "./guest-usage";

/**
 * Client-side reading of the AI endpoints' 403s (SPEC §6, §8): LIMIT_REACHED for a Free user at
 * the monthly limit ('limit') or a guest at the trial limit ('trial', body has `trial: true`),
 * PRO_REQUIRED ('pro'); anything else is 'other' (show the usual error toast).
 */
export type AiErrorKind = "limit" | "pro" | "trial" | "other";

/** The plan features the server names in 403 bodies. */
export type AiPlanFeature = "ai_summaries" | "specialized_analysis" | "full_text_analysis";

export interface AiError {
  kind: AiErrorKind;
  /** The plan feature from the body (`feature`), or null when absent or unknown. */
  feature: AiPlanFeature | null;
  /** The server's message, or a generic one. */
  message: string;
  /** HTTP status (0 when unknown). */
  status: number;
  /** The guest counter that is exhausted (trial only). */
  guestFeature?: GuestFeature;
}

const PLAN_FEATURES = new Set<string>(["ai_summaries", "specialized_analysis", "full_text_analysis"]);
const FALLBACK_MESSAGE = "Something went wrong. Please try again.";

/** Classifies a parsed error body with its status (see AiError). */
export function aiErrorFromBody(status: number, body: unknown): AiError {
  const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const feature = typeof b.feature === "string" && PLAN_FEATURES.has(b.feature) ? (b.feature as AiPlanFeature) : null;
  const message = typeof b.message === "string" && b.message ? b.message : FALLBACK_MESSAGE;
  if (status === 403 && b.error === "LIMIT_REACHED") {
    if (b.trial === true) {
      return {
        kind: "trial",
        feature,
        message,
        status,
        ...(typeof b.guestFeature === "string" ? { guestFeature: b.guestFeature as GuestFeature } : {}),
      };
    }
    return { kind: "limit", feature, message, status };
  }
  if (status === 403 && b.error === "PRO_REQUIRED") return { kind: "pro", feature, message, status };
  return { kind: "other", feature, message, status };
}

/** Reads a failed response's JSON body (tolerating non-JSON) and classifies it. */
export async function aiErrorFromResponse(res: Response): Promise<AiError> {
  const text = await res.text().catch(() => "");
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = { message: text };
  }
  return aiErrorFromBody(res.status, body);
}

/**
 * Classifies an error thrown by the streaming helpers (`streamSummary` throws
 * `Error("{status}: {body}")`); network errors and anything unparsable are 'other'.
 */
export function aiErrorFromThrown(error: unknown): AiError {
  const text = error instanceof Error ? error.message : String(error);
  const match = /^(\d{3}): ([\s\S]*)$/.exec(text);
  if (!match) return { kind: "other", feature: null, message: FALLBACK_MESSAGE, status: 0 };
  let body: unknown = null;
  try {
    body = JSON.parse(match[2]!);
  } catch {
    body = { message: match[2] };
  }
  return aiErrorFromBody(Number(match[1]), body);
}

/**
 * Opens the matching dialog for a gated 403 and returns true; returns false for 'other' (the
 * caller shows its error toast). 'limit' and 'pro' open the upgrade prompt with the server's
 * message as reason; 'trial' opens the guest trial dialog.
 */
export function openAiGate(
  error: AiError,
  dialogs: {
    upgrade: (feature: AiPlanFeature, reason: string) => void;
    trial: (feature: GuestFeature | undefined) => void;
  },
): boolean {
  if (error.kind === "trial") {
    dialogs.trial(error.guestFeature);
    return true;
  }
  if (error.kind === "limit" || error.kind === "pro") {
    dialogs.upgrade(error.feature ?? "ai_summaries", error.message);
    return true;
  }
  return false;
}
