/**
 * Saved health answers (SPEC §3: browser storage only): {id, question, answer, studyCount,
 * savedAt}, newest first, under one localStorage key. The health-answer feature writes them with
 * {@link saveAnswer}; the profile lists and removes them.
 */

export const SAVED_ANSWERS_KEY = "metamind:saved-answers:v1";
/** SPEC §9: answer cards show this many characters until expanded. */
export const ANSWER_PREVIEW_CHARS = 200;

export interface SavedAnswer {
  id: string;
  question: string;
  answer: string;
  studyCount: number;
  savedAt: string;
}

function isAnswer(v: unknown): v is SavedAnswer {
  const a = v as SavedAnswer;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof a.id === "string" &&
    typeof a.question === "string" &&
    typeof a.answer === "string"
  );
}

/** The saved answers (malformed entries left out); [] when storage is unavailable. */
export function loadSavedAnswers(): SavedAnswer[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(SAVED_ANSWERS_KEY) ?? "[]");
    return Array.isArray(parsed)
      ? parsed
          .filter(isAnswer)
          .map((a) => ({ ...a, studyCount: Number(a.studyCount) || 0, savedAt: String(a.savedAt ?? "") }))
      : [];
  } catch (error) {
    console.warn("Ignoring unreadable saved answers", error);
    return [];
  }
}

function store(answers: SavedAnswer[]): void {
  try {
    localStorage.setItem(SAVED_ANSWERS_KEY, JSON.stringify(answers));
  } catch (error) {
    console.warn("Could not store saved answers", error);
  }
}

/** Saves an answer (replacing one with the same id) at the top of the list. */
export function saveAnswer(answer: SavedAnswer): void {
  store([answer, ...loadSavedAnswers().filter((a) => a.id !== answer.id)]);
}

/** Removes a saved answer by id. */
export function removeSavedAnswer(id: string): SavedAnswer[] {
  const next = loadSavedAnswers().filter((a) => a.id !== id);
  store(next);
  return next;
}

/** The first 200 characters (cut at a word boundary when one is near) and whether text was cut. */
export function answerPreview(text: string, max = ANSWER_PREVIEW_CHARS): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return { text: `${(space > max * 0.8 ? cut.slice(0, space) : cut).trimEnd()}...`, truncated: true };
}
