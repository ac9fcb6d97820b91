/**
 * Shared answers and plans (issue 14; SPEC §3 Shared answer payload, §7 POST /api/shared-answers):
 * the shapes both the browser and the server use, the limits, and the share button's logic.
 */
import type { MealPlan, Workout } from "./plans";

/** Longest question accepted (characters). */
export const MAX_QUESTION_CHARS = 500;
/** Largest shared payload accepted (bytes of the JSON body). */
export const MAX_SHARE_BYTES = 20 * 1024;
/** A public id: 128 random bits as 32 lowercase hex characters. */
export const SHARE_ID_PATTERN = /^[0-9a-f]{32}$/;
/** SPEC §8. */
export const SHARE_COPIED_MESSAGE = "Share link copied";

/** A study an answer cites: `n` is the number used in the answer's "[n]" marks. */
export interface AnswerStudy {
  n: number;
  title: string;
  /** Link to the study (PubMed, DOI or the database's page); null when none is known. */
  url: string | null;
  journal: string | null;
  year: string | null;
  /** The study sentences the answer's claims rest on, verbatim. */
  quotes: string[];
}

/**
 * A health answer: plain-language text whose claims end with "[n]" marks naming `studies[n-1]`,
 * and the studies with the quotes the claims rest on.
 */
export interface HealthAnswer {
  id: string;
  question: string;
  answer: string;
  studyCount: number;
  studies: AnswerStudy[];
  model: string;
}

/**
 * The events of POST /api/health-answer's NDJSON stream, one JSON object per line: `meta` first
 * (model, studies without quotes, studyCount), then `delta` text pieces (a remote model's raw text
 * may contain [Sx] markers), then `done` with the grounded answer, or `error`.
 */
export type HealthAnswerEvent =
  | { type: "meta"; model: string; studyCount: number; studies: AnswerStudy[] }
  | { type: "delta"; text: string }
  | { type: "done"; answer: HealthAnswer }
  | { type: "error"; message: string };

/** The body of POST /api/shared-answers (SPEC §7, plus the optional cited studies and model). */
export interface SharedAnswerInput {
  id: string;
  question: string;
  answer: string;
  studyCount: number;
  studies?: AnswerStudy[];
  model?: string;
}

/** What a share link serves: the payload plus its public id, kind and creation time (epoch ms). */
export type SharedItem =
  | ({ kind: "answer"; shareId: string; createdAt: number } & SharedAnswerInput)
  | { kind: "workout"; shareId: string; createdAt: number; plan: Workout }
  | { kind: "meal-plan"; shareId: string; createdAt: number; plan: MealPlan };

export type SharedKind = SharedItem["kind"];

/** One of the owner's links, as GET /api/shared-answers lists them. */
export interface SharedLink {
  id: string;
  kind: SharedKind;
  clientId: string | null;
  title: string;
  url: string;
  createdAt: number;
}

/** The public path of a shared item. */
export function sharePath(kind: SharedKind, id: string): string {
  return kind === "answer" ? `/answer/${id}` : kind === "workout" ? `/workout/${id}` : `/meal-plan/${id}`;
}

/** What {@link shareLink} did. */
export type ShareOutcome = "shared" | "cancelled" | "copied" | "whatsapp" | "failed";

/** The browser capabilities {@link shareLink} uses (the real `navigator`/`window` in the app). */
export interface ShareEnvironment {
  share?: (data: { title?: string; text?: string; url?: string }) => Promise<void>;
  writeText?: (text: string) => Promise<void>;
  open: (url: string) => void;
}

/** The WhatsApp-style link SPEC §8 opens when the browser can neither share nor copy. */
export function whatsappLink(text: string, url: string): string {
  return `https://wa.me/?text=${encodeURIComponent(`${text} ${url}`)}`;
}

/**
 * Shares a link (SPEC §8): the Web Share API when there is one (a user's cancel, an AbortError,
 * ends there); when sharing fails for another reason, or there is no Web Share API, the link is
 * copied ('Share link copied'); with neither, a WhatsApp-style link opens.
 */
export async function shareLink(envr: ShareEnvironment, data: { title: string; text: string; url: string }): Promise<ShareOutcome> {
  if (envr.share) {
    try {
      await envr.share(data);
      return "shared";
    } catch (error) {
      if (error instanceof DOMException && error.name === "AbortError") return "cancelled";
      if ((error as { name?: string } | null)?.name === "AbortError") return "cancelled";
    }
  }
  if (envr.writeText) {
    try {
      await envr.writeText(data.url);
      return "copied";
    } catch (error) {
      console.warn("Could not copy the share link", error);
    }
  }
  try {
    envr.open(whatsappLink(data.text, data.url));
    return "whatsapp";
  } catch (error) {
    console.warn("Could not open the share link", error);
    return "failed";
  }
}

/** The real browser's share environment. */
export function browserShareEnvironment(): ShareEnvironment {
  const nav = typeof navigator === "undefined" ? undefined : navigator;
  return {
    share: nav && typeof nav.share === "function" ? (d) => nav.share(d) : undefined,
    writeText: nav?.clipboard?.writeText ? (t) => nav.clipboard.writeText(t) : undefined,
    open: (url) => window.open(url, "_blank", "noopener,noreferrer"),
  };
}
