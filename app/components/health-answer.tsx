import Bookmark from "lucide-react/icons/bookmark";
import Bot from "lucide-react/icons/bot";
import { Suspense } from "react";
import { HealthAnswerPending } from "~/components/health-question";
import { lazyComponent } from "~/components/on-demand";
import { AnswerText, CitedStudies, NOT_MEDICAL_ADVICE } from "~/components/sharing/answer-view";
import { Button } from "~/components/ui/button";
import { aiErrorFromResponse, openAiGate, type AiPlanFeature } from "~/browser/ai-errors";
import { USAGE_CHANGED_EVENT, type GuestFeature } from "~/browser/guest-usage";
import { createNdjsonParser, createShareLink, hideSourceMarkers } from "~/browser/health-answer-client";
import type { AnswerStudy, HealthAnswer } from "~/lib/sharing";
import { toast } from "~/browser/toast";

/**
 * The answering half of 'Ask a health question' (issue 14): the request, its NDJSON stream and the
 * answer's view. Loaded on demand (issue 17 page budgets) by `HealthQuestion` when the question
 * box is first focused or submitted, so the pages that show the box (/, /search) do not carry it in
 * their initial JavaScript.
 */

/** One question's progress: streaming text and meta, then the finished answer. */
export type HealthAnswerState =
  | {
      status: "streaming";
      question: string;
      text: string;
      model: string | null;
      studyCount: number | null;
      studies: AnswerStudy[];
    }
  | { status: "done"; answer: HealthAnswer };

const FAILED = "Failed to generate an answer. Please try again.";

/**
 * Asks POST /api/health-answer (body `{question, id}`, an NDJSON stream of `HealthAnswerEvent`s)
 * and reports each step through `onState`: a streaming state per event, the finished answer, or
 * `null` when there is no answer (a gated 403 opens its dialog through `gates`; other failures show
 * an error toast). Fires `USAGE_CHANGED_EVENT` after a stream so the usage counters refresh. An
 * abort through `signal` ends it silently.
 */
export async function askHealthQuestion(
  question: string,
  options: {
    signal: AbortSignal;
    onState: (state: HealthAnswerState | null) => void;
    gates: {
      upgrade: (feature: AiPlanFeature, reason: string) => void;
      trial: (feature: GuestFeature | undefined) => void;
    };
  },
): Promise<void> {
  const { signal, onState } = options;
  let current: HealthAnswerState = {
    status: "streaming",
    question,
    text: "",
    model: null,
    studyCount: null,
    studies: [],
  };
  onState(current);
  try {
    const res = await fetch("/api/health-answer", {
      method: "POST",
      credentials: "include",
      headers: { "Content-Type": "application/json", Accept: "application/x-ndjson" },
      body: JSON.stringify({ question, id: String(Date.now()).slice(-6) }),
      signal,
    });
    if (!res.ok || !res.body) {
      const error = await aiErrorFromResponse(res);
      onState(null);
      if (openAiGate(error, options.gates)) return;
      toast({
        title: "Error",
        description: res.status === 404 || res.status === 400 ? error.message : FAILED,
        variant: "destructive",
      });
      return;
    }
    let failed = null as string | null;
    const parse = createNdjsonParser((e) => {
      if (e.type === "meta" && current.status === "streaming")
        current = { ...current, model: e.model, studyCount: e.studyCount, studies: e.studies };
      else if (e.type === "delta" && current.status === "streaming")
        current = { ...current, text: current.text + e.text };
      else if (e.type === "done") current = { status: "done", answer: e.answer };
      else if (e.type === "error") failed = e.message;
      onState(current);
    });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parse(value);
    }
    parse("", true);
    window.dispatchEvent(new CustomEvent(USAGE_CHANGED_EVENT));
    if (failed || (current as HealthAnswerState).status !== "done") {
      onState(null);
      toast({ title: "Error", description: failed ?? FAILED, variant: "destructive" });
    }
  } catch (error) {
    if (signal.aborted) return;
    console.warn("health answer failed", error);
    onState(null);
    toast({ title: "Error", description: FAILED, variant: "destructive" });
  }
}

/** Saves a finished answer in browser storage (Profile → Saved Answers); `onSaved` on success. */
async function saveHealthAnswer(answer: HealthAnswer, onSaved: () => void): Promise<void> {
  let saveAnswer;
  try {
    ({ saveAnswer } = await import("~/browser/saved-answers"));
  } catch (error) {
    console.warn("could not load saved answers", error);
    toast({
      title: "Error",
      description: "Could not save the answer. Check your connection and try again.",
      variant: "destructive",
    });
    return;
  }
  saveAnswer({ ...answer, savedAt: new Date().toISOString() });
  onSaved();
  toast({ title: "Answer saved", description: "Find it in your Profile under Saved Answers." });
}

/** Shown with a finished answer only: loaded then. */
const ShareButton = lazyComponent(() => import("~/components/share-button").then((m) => m.ShareButton));

/**
 * The answer under the question box: the study count, the text as it streams (each claim linked
 * to its study), the 'not medical advice' line, the model's name; once done, Save (browser
 * storage; `onSaved` after it, and `saved` disables the button) and Share, and the cited studies
 * with their quotes.
 */
export function HealthAnswerView({
  state,
  saved,
  onSaved,
}: {
  state: HealthAnswerState;
  saved: boolean;
  onSaved: () => void;
}) {
  const busy = state.status === "streaming";
  const model = state.status === "done" ? state.answer.model : state.model;
  const studyCount = state.status === "done" ? state.answer.studyCount : state.studyCount;
  return (
    <>
      {studyCount !== null && (
        <p className="text-sm font-medium text-slate-700" data-testid="answer-study-count">
          Based on {studyCount} {studyCount === 1 ? "study" : "studies"}
        </p>
      )}
      <div
        className="mt-2 text-base leading-relaxed whitespace-pre-line text-slate-800"
        data-testid="health-answer-text"
      >
        {state.status === "streaming" ? (
          state.text ? (
            <AnswerText text={hideSourceMarkers(state.text)} studyCount={state.studyCount ?? 0} />
          ) : (
            <HealthAnswerPending />
          )
        ) : (
          <AnswerText text={state.answer.answer} studyCount={state.answer.studyCount} />
        )}
      </div>
      <p
        className="mt-3 rounded-lg bg-amber-50 p-3 text-sm text-amber-900"
        role="note"
        data-testid="not-medical-advice"
      >
        {NOT_MEDICAL_ADVICE}
      </p>
      {model && (
        <p className="mt-3 flex items-center gap-2 text-xs text-slate-600" data-testid="answer-model">
          <Bot className="size-4" aria-hidden /> {busy ? "Writing: " : "Generated by "}
          {model}
          {/offline/i.test(model)
            ? " — every claim is quoted from a study's conclusions."
            : " — each claim is checked against the quoted study sentence."}
        </p>
      )}
      {state.status === "done" && (
        <>
          <div className="mt-3 flex flex-wrap items-start gap-2">
            <Button
              type="button"
              variant="outline"
              size="sm"
              onClick={() => void saveHealthAnswer(state.answer, onSaved)}
              disabled={saved}
              data-testid="save-answer"
            >
              <Bookmark aria-hidden /> {saved ? "Saved" : "Save"}
            </Button>
            <Suspense fallback={null}>
              <ShareButton
                create={() => createShareLink({ kind: "answer", answer: state.answer })}
                title={state.answer.question}
                text={`${state.answer.question} — an answer from ${state.answer.studyCount} studies on MetaMind`}
              />
            </Suspense>
          </div>
          <h3 className="mt-5 mb-2 text-sm font-semibold text-slate-900">Studies cited</h3>
          <CitedStudies studies={state.answer.studies.filter((s) => s.quotes.length > 0)} />
        </>
      )}
    </>
  );
}
