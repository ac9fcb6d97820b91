/**
 * Shared answers and plans (issue 14; SPEC §3 Shared answer payload, §7 POST /api/shared-answers):
 * the shapes both the browser and the server use and the limits (the share button's logic is in
 * app/browser/share-sheet.ts).
 */
import type { MealPlan, Workout } from "./plans";

/** Longest question accepted (characters). */
export const MAX_QUESTION_CHARS = 500;
/** Largest shared payload accepted (bytes of the JSON body). */
export const MAX_SHARE_BYTES = 20 * 1024;
/** A public id: 128 random bits as 32 lowercase hex characters. */
export const SHARE_ID_PATTERN = /^[0-9a-f]{32}$/;

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
