import { storedStudyId } from "~/browser/sealed-studies";
/**
 * Client side of POST /api/studies/{id}/regenerate-summary: reads the streamed plain-text body
 * chunk by chunk and reports the text so far. The model's name comes in the X-Model-Name header.
 * @throws Error "status: body" for non-OK responses (SPEC §7 error convention).
 */
export async function streamSummary(
  studyId: number,
  onText: (textSoFar: string, model: string) => void,
  signal?: AbortSignal,
): Promise<{ text: string; model: string }> {
  const response = await fetch(`/api/studies/${await storedStudyId(studyId)}/regenerate-summary`, {
    method: "POST",
    credentials: "include",
    signal,
  });
  if (!response.ok || !response.body) {
    const body = await response.text().catch(() => "");
    throw new Error(`${response.status}: ${body || response.statusText}`);
  }
  const model = decodeURIComponent(response.headers.get("X-Model-Name") ?? "AI model");
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
    onText(text, model);
  }
  return { text, model };
}
