import { Bookmark, Bot, HeartPulse, Loader2 } from "lucide-react";
import { Suspense, useRef, useState, type FormEvent } from "react";
import { useGuestTrialDialog } from "~/components/guest-trial";
import { useUpgradePrompt } from "~/components/search/upgrade-prompt-state";
import { AnswerText, CitedStudies, NOT_MEDICAL_ADVICE } from "~/components/sharing/answer-view";
import { lazyComponent } from "~/components/on-demand";
import { Button } from "~/components/ui/button";
import { aiErrorFromResponse, openAiGate } from "~/lib/ai-errors";
import { USAGE_CHANGED_EVENT } from "~/lib/guest-usage";
import { createNdjsonParser, createShareLink, hideSourceMarkers } from "~/lib/health-answer-client";
import { MAX_QUESTION_CHARS, type AnswerStudy, type HealthAnswer } from "~/lib/sharing";
import { toast } from "~/lib/toast";

/** Shown with a finished answer only: loaded then (issue 17 page budgets). */
const ShareButton = lazyComponent(() => import("~/components/share-button").then((m) => m.ShareButton));

type State =
  | { status: "idle" }
  | { status: "streaming"; question: string; text: string; model: string | null; studyCount: number | null; studies: AnswerStudy[] }
  | { status: "done"; answer: HealthAnswer };

const FAILED = "Failed to generate an answer. Please try again.";

/**
 * 'Ask a health question' (issue 14): MetaMind searches, picks the most relevant studies and
 * streams a plain-language answer grounded in them, with the study count, each claim's study and
 * quote, the model's name and a 'not medical advice' line; then Save (browser storage) and Share.
 */
export function HealthQuestion({ id = "ask" }: { id?: string }) {
  const [question, setQuestion] = useState("");
  const [state, setState] = useState<State>({ status: "idle" });
  const [saved, setSaved] = useState(false);
  const abortRef = useRef<AbortController | null>(null);
  const upgrade = useUpgradePrompt();
  const trial = useGuestTrialDialog();
  const trimmed = question.trim();
  const busy = state.status === "streaming";

  async function ask(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!trimmed || busy) return;
    abortRef.current?.abort();
    const controller = new AbortController();
    abortRef.current = controller;
    setSaved(false);
    let current: State = { status: "streaming", question: trimmed, text: "", model: null, studyCount: null, studies: [] };
    setState(current);
    try {
      const res = await fetch("/api/health-answer", {
        method: "POST",
        credentials: "include",
        headers: { "Content-Type": "application/json", Accept: "application/x-ndjson" },
        body: JSON.stringify({ question: trimmed, id: String(Date.now()).slice(-6) }),
        signal: controller.signal,
      });
      if (!res.ok || !res.body) {
        const error = await aiErrorFromResponse(res);
        setState({ status: "idle" });
        if (openAiGate(error, { upgrade: upgrade.open, trial: trial.open })) return;
        toast({ title: "Error", description: res.status === 404 || res.status === 400 ? error.message : FAILED, variant: "destructive" });
        return;
      }
      let failed = null as string | null;
      const parse = createNdjsonParser((e) => {
        if (e.type === "meta" && current.status === "streaming") current = { ...current, model: e.model, studyCount: e.studyCount, studies: e.studies };
        else if (e.type === "delta" && current.status === "streaming") current = { ...current, text: current.text + e.text };
        else if (e.type === "done") current = { status: "done", answer: e.answer };
        else if (e.type === "error") failed = e.message;
        setState(current);
      });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parse(value);
      }
      parse("", true);
      window.dispatchEvent(new CustomEvent(USAGE_CHANGED_EVENT));
      if (failed || (current as State).status !== "done") {
        setState({ status: "idle" });
        toast({ title: "Error", description: failed ?? FAILED, variant: "destructive" });
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      console.warn("health answer failed", error);
      setState({ status: "idle" });
      toast({ title: "Error", description: FAILED, variant: "destructive" });
    }
  }

  async function save(answer: HealthAnswer) {
    let saveAnswer;
    try {
      ({ saveAnswer } = await import("~/lib/saved-answers"));
    } catch (error) {
      console.warn("could not load saved answers", error);
      toast({ title: "Error", description: "Could not save the answer. Check your connection and try again.", variant: "destructive" });
      return;
    }
    saveAnswer({ ...answer, savedAt: new Date().toISOString() });
    setSaved(true);
    toast({ title: "Answer saved", description: "Find it in your Profile under Saved Answers." });
  }

  const model = state.status === "done" ? state.answer.model : state.status === "streaming" ? state.model : null;
  const studyCount = state.status === "done" ? state.answer.studyCount : state.status === "streaming" ? state.studyCount : null;
  return (
    <section id={id} className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm" aria-labelledby={`${id}-title`} data-testid="health-question">
      <h2 id={`${id}-title`} className="flex items-center gap-2 text-lg font-semibold text-slate-900">
        <HeartPulse className="size-5 text-brand-600" aria-hidden /> Ask a health question
      </h2>
      <p className="mt-1 text-sm text-slate-600">MetaMind searches the research, picks the most relevant studies and answers in plain language, citing each study.</p>
      <form onSubmit={ask} className="mt-3 flex flex-col gap-2 sm:flex-row">
        <label htmlFor={`${id}-input`} className="sr-only">
          Your health question
        </label>
        <input
          id={`${id}-input`}
          value={question}
          onChange={(e) => setQuestion(e.target.value)}
          maxLength={MAX_QUESTION_CHARS}
          placeholder="e.g. Does vitamin D prevent fractures in older adults?"
          className="flex-1 rounded-lg border border-slate-300 px-3 py-2 text-base outline-none focus:border-brand-500 focus:ring-2 focus:ring-brand-100"
        />
        <Button type="submit" disabled={!trimmed || busy}>
          {busy ? <Loader2 className="animate-spin" aria-hidden /> : <HeartPulse aria-hidden />}
          {busy ? "Answering..." : "Ask"}
        </Button>
      </form>

      {state.status !== "idle" && (
        <div className="mt-4" aria-busy={busy} aria-live="polite">
          {studyCount !== null && (
            <p className="text-sm font-medium text-slate-700" data-testid="answer-study-count">
              Based on {studyCount} {studyCount === 1 ? "study" : "studies"}
            </p>
          )}
          <div className="mt-2 text-base leading-relaxed whitespace-pre-line text-slate-800" data-testid="health-answer-text">
            {state.status === "streaming" ? (
              state.text ? (
                <AnswerText text={hideSourceMarkers(state.text)} studyCount={state.studyCount ?? 0} />
              ) : (
                <span className="flex items-center gap-2 text-sm text-slate-500">
                  <Loader2 className="size-4 animate-spin" aria-hidden /> Searching the research…
                </span>
              )
            ) : (
              <AnswerText text={state.answer.answer} studyCount={state.answer.studyCount} />
            )}
          </div>
          <p className="mt-3 rounded-lg bg-amber-50 p-3 text-sm text-amber-900" role="note" data-testid="not-medical-advice">
            {NOT_MEDICAL_ADVICE}
          </p>
          {model && (
            <p className="mt-3 flex items-center gap-2 text-xs text-slate-600" data-testid="answer-model">
              <Bot className="size-4" aria-hidden /> {busy ? "Writing: " : "Generated by "}
              {model}
              {/offline/i.test(model) ? " — every claim is quoted from a study's conclusions." : " — each claim is checked against the quoted study sentence."}
            </p>
          )}
          {state.status === "done" && (
            <>
              <div className="mt-3 flex flex-wrap items-start gap-2">
                <Button type="button" variant="outline" size="sm" onClick={() => void save(state.answer)} disabled={saved} data-testid="save-answer">
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
        </div>
      )}
      {upgrade.element}
      {trial.element}
    </section>
  );
}
