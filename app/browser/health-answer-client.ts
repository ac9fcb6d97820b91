/**
 * Browser side of health answers: reading the NDJSON stream of POST /api/health-answer and
 * creating share links (POST /api/shared-answers, /api/shared-plans).
 */
import type { MealPlan, Workout } from "~/lib/plans";
import type { HealthAnswer, HealthAnswerEvent } from "~/lib/sharing";

/** Parses NDJSON chunks into events; keeps an incomplete last line for the next chunk. */
export function createNdjsonParser(
  onEvent: (event: HealthAnswerEvent) => void,
): (chunk: string, end?: boolean) => void {
  let buffer = "";
  return (chunk, end = false) => {
    buffer += chunk;
    const lines = buffer.split("\n");
    buffer = end ? "" : lines.pop()!;
    for (const line of lines) {
      if (!line.trim()) continue;
      onEvent(JSON.parse(line) as HealthAnswerEvent);
    }
  };
}

/** Hides a remote model's [Sx] markers (also a half-written one at the end) while it streams. */
export function hideSourceMarkers(text: string): string {
  return text.replace(/\s*\[\s*S\d+(?:\s*[,;–-]\s*S?\d+)*\s*\]/g, "").replace(/\s*\[(?:S[\d,;\s–-]*)?$/, "");
}

/** Creates a share link; `{id, url}` on success. @throws Error("{status}: {body}") otherwise. */
export async function createShareLink(
  body:
    | { kind: "answer"; answer: HealthAnswer }
    | { kind: "workout"; plan: Workout }
    | { kind: "meal-plan"; plan: MealPlan },
): Promise<{ id: string; url: string }> {
  const res =
    body.kind === "answer"
      ? await fetch("/api/shared-answers", {
          method: "POST",
          credentials: "include",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            id: body.answer.id,
            question: body.answer.question,
            answer: body.answer.answer,
            studyCount: body.answer.studyCount,
            studies: body.answer.studies,
            model: body.answer.model,
          }),
        })
      : await fetch("/api/shared-plans", {
          method: "POST",
          credentials: "include",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ kind: body.kind, plan: body.plan }),
        });
  if (!res.ok) throw new Error(`${res.status}: ${await res.text().catch(() => res.statusText)}`);
  return (await res.json()) as { id: string; url: string };
}
