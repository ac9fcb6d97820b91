import { HeartPulse, Loader2 } from "lucide-react";
import { Suspense, useRef, useState, type FormEvent } from "react";
import type { HealthAnswerState } from "~/components/health-answer";
import { useGuestTrialDialog } from "~/components/guest-trial";
import { lazyComponent } from "~/components/on-demand";
import { useUpgradePrompt } from "~/components/search/upgrade-prompt-state";
import { Button } from "~/components/ui/button";
import { MAX_QUESTION_CHARS } from "~/lib/sharing";
import { toast } from "~/browser/toast";

/**
 * The answering code (request, stream, answer view) is not in the initial JavaScript of the pages
 * that show the box (issue 17 page budgets): it loads when the box is first focused, or on submit.
 */
const loadAnswer = () => import("~/components/health-answer");
const HealthAnswerView = lazyComponent(() => loadAnswer().then((m) => m.HealthAnswerView));

/** Before the question's first answer words arrive (also while the answering code loads). */
export function HealthAnswerPending() {
  return (
    <span className="flex items-center gap-2 text-sm text-slate-500">
      <Loader2 className="size-4 animate-spin" aria-hidden /> Searching the research…
    </span>
  );
}

const NOT_LOADED = "Could not reach MetaMind. Check your connection and try again.";

/**
 * 'Ask a health question' (issue 14): MetaMind searches, picks the most relevant studies and
 * streams a plain-language answer grounded in them, with the study count, each claim's study and
 * quote, the model's name and a 'not medical advice' line; then Save (browser storage) and Share.
 */
export function HealthQuestion({ id = "ask" }: { id?: string }) {
  const [question, setQuestion] = useState("");
  /** "loading": asked, the answering code is still loading. */
  const [state, setState] = useState<HealthAnswerState | "loading" | null>(null);
  const [saved, setSaved] = useState(false);
  const abortRef = useRef<AbortController | null>(null);
  const upgrade = useUpgradePrompt();
  const trial = useGuestTrialDialog();
  const trimmed = question.trim();
  const busy = state === "loading" || state?.status === "streaming";

  async function ask(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!trimmed || busy) return;
    abortRef.current?.abort();
    const controller = new AbortController();
    abortRef.current = controller;
    setSaved(false);
    setState("loading");
    let answering;
    try {
      answering = await loadAnswer();
    } catch (error) {
      console.warn("could not load the health answer code", error);
      setState(null);
      toast({ title: "Error", description: NOT_LOADED, variant: "destructive" });
      return;
    }
    await answering.askHealthQuestion(trimmed, {
      signal: controller.signal,
      onState: setState,
      gates: { upgrade: upgrade.open, trial: trial.open },
    });
  }

  return (
    <section
      id={id}
      className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
      aria-labelledby={`${id}-title`}
      data-testid="health-question"
    >
      <h2 id={`${id}-title`} className="flex items-center gap-2 text-lg font-semibold text-slate-900">
        <HeartPulse className="size-5 text-brand-600" aria-hidden /> Ask a health question
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        MetaMind searches the research, picks the most relevant studies and answers in plain language, citing each
        study.
      </p>
      <form onSubmit={ask} className="mt-3 flex flex-col gap-2 sm:flex-row">
        <label htmlFor={`${id}-input`} className="sr-only">
          Your health question
        </label>
        <input
          id={`${id}-input`}
          value={question}
          onChange={(e) => setQuestion(e.target.value)}
          onFocus={HealthAnswerView.preload}
          maxLength={MAX_QUESTION_CHARS}
          placeholder="e.g. Does vitamin D prevent fractures in older adults?"
          className="flex-1 rounded-lg border border-slate-300 px-3 py-2 text-base outline-none focus:border-brand-500 focus:ring-2 focus:ring-brand-100"
        />
        <Button type="submit" disabled={!trimmed || busy}>
          {busy ? <Loader2 className="animate-spin" aria-hidden /> : <HeartPulse aria-hidden />}
          {busy ? "Answering..." : "Ask"}
        </Button>
      </form>

      {state !== null && (
        <div className="mt-4" aria-busy={busy} aria-live="polite">
          {state === "loading" ? (
            <div className="mt-2">
              <HealthAnswerPending />
            </div>
          ) : (
            <Suspense fallback={<HealthAnswerPending />}>
              <HealthAnswerView state={state} saved={saved} onSaved={() => setSaved(true)} />
            </Suspense>
          )}
        </div>
      )}
      {upgrade.element}
      {trial.element}
    </section>
  );
}
