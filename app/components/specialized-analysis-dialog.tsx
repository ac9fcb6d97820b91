import { Bot, Loader2, RotateCcw } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import type { Focus } from "~/lib/specialized-focus";
import { CitedText, type CitationLike } from "~/components/cited-text";
import { PlanGenerator } from "~/components/plan-generator";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import {
  Dialog,
  DialogBody,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from "~/components/ui/dialog";
import { USAGE_CHANGED_EVENT } from "~/browser/guest-usage";
import { toast } from "~/browser/toast";
import { cn } from "~/lib/utils";
import { storedStudyId } from "~/browser/sealed-studies";

/** Labels of the seven focus values (SPEC §1), in the order the picker shows them. */
export const FOCUS_OPTIONS: Record<Focus, string> = {
  nutrition: "Nutrition",
  exercise: "Exercise",
  longevity: "Longevity",
  cognitive: "Cognitive",
  cardiovascular: "Cardiovascular",
  musculoskeletal: "Musculoskeletal",
  mechanisms: "Mechanisms",
};
const FOCUSES = Object.keys(FOCUS_OPTIONS) as Focus[];

/** SPEC §8. */
export const SPECIALIZED_ERROR_MESSAGE = "Failed to generate specialized summary. Please try again.";

/** The 403 errors that open the upgrade prompt or the guest trial dialog instead of a toast. */
export type GateKind = "LIMIT_REACHED" | "PRO_REQUIRED";

export interface SpecializedAnalysisDialogProps {
  study: { id: number; title: string; abstract: string | null };
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /**
   * Called on a 403 LIMIT_REACHED / PRO_REQUIRED with the `feature` of the reply
   * ('specialized_analysis') and the whole reply body (a guest's carries `trial: true`).
   */
  onGate: (kind: GateKind, feature: string, body: Record<string, unknown>) => void;
}

type State =
  | { status: "idle" }
  | { status: "streaming"; focus: Focus; text: string; model: string | null }
  | { status: "done"; focus: Focus; summary: string; model: string; citations: CitationLike[] };

/** Thrown for a reply that must not be toasted (a 403 gate was handed to `onGate`). */
class GatedError extends Error {}

/** The stored analysis of GET /api/studies/{id}/specialized?focus=. */
async function fetchStored(
  studyId: number,
  focus: Focus,
  signal: AbortSignal,
): Promise<{ summary: string; model: string; citations: CitationLike[] }> {
  const response = await fetch(`/api/studies/${await storedStudyId(studyId)}/specialized?focus=${focus}`, {
    credentials: "include",
    signal,
  });
  if (!response.ok) throw new Error(`${response.status}: ${await response.text().catch(() => response.statusText)}`);
  const body = (await response.json()) as { summary?: unknown; model?: unknown; citations?: unknown };
  if (typeof body.summary !== "string" || typeof body.model !== "string") throw new Error("Malformed analysis");
  const citations = Array.isArray(body.citations)
    ? body.citations.filter(
        (c): c is CitationLike =>
          typeof c === "object" && c !== null && typeof c.id === "string" && typeof c.quote === "string",
      )
    : [];
  return { summary: body.summary, model: body.model, citations };
}

/**
 * The specialized-analysis dialog (SPEC §2): a focus picker with the seven focus badges; the
 * analysis streams in as the model writes it (POST /api/studies/specialized-summarize with
 * `Accept: text/plain`), then the stored, grounded version replaces it (GET
 * /api/studies/{id}/specialized?focus=): citation marks that show the quoted abstract sentence,
 * unverified numbers marked as such, the focus badge and the generator section naming the model.
 * A 403 LIMIT_REACHED / PRO_REQUIRED calls `onGate` instead of showing an error toast; other
 * failures toast 'Failed to generate specialized summary. Please try again.'.
 */
export function SpecializedAnalysisDialog({ study, open, onOpenChange, onGate }: SpecializedAnalysisDialogProps) {
  const [state, setState] = useState<State>({ status: "idle" });
  const abortRef = useRef<AbortController | null>(null);
  const hasAbstract = (study.abstract ?? "").trim().length >= 10;

  const stop = useCallback(() => {
    abortRef.current?.abort();
    abortRef.current = null;
  }, []);

  useEffect(() => {
    if (!open) stop();
  }, [open, stop]);
  useEffect(() => stop, [stop]);

  async function run(focus: Focus, regenerate = false) {
    stop();
    const controller = new AbortController();
    abortRef.current = controller;
    const previous = state;
    setState({ status: "streaming", focus, text: "", model: null });
    try {
      const response = await fetch("/api/studies/specialized-summarize", {
        method: "POST",
        credentials: "include",
        headers: { "Content-Type": "application/json", Accept: "text/plain" },
        body: JSON.stringify({
          studyId: await storedStudyId(study.id),
          focus,
          ...(regenerate ? { regenerate: true } : {}),
        }),
        signal: controller.signal,
      });
      if (!response.ok || !response.body) {
        const raw = await response.text().catch(() => "");
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          // not JSON: keep the raw text for the error message
        }
        if (response.status === 403 && (body.error === "LIMIT_REACHED" || body.error === "PRO_REQUIRED")) {
          onGate(body.error, typeof body.feature === "string" ? body.feature : "specialized_analysis", body);
          throw new GatedError();
        }
        throw new Error(`${response.status}: ${raw || response.statusText}`);
      }
      const model = decodeURIComponent(response.headers.get("X-Model-Name") ?? "AI model");
      const fresh = response.headers.get("X-Cache") !== "HIT";
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += value;
        setState({ status: "streaming", focus, text, model });
      }
      const stored = await fetchStored(study.id, focus, controller.signal);
      setState({ status: "done", focus, ...stored });
      if (fresh) window.dispatchEvent(new CustomEvent(USAGE_CHANGED_EVENT));
    } catch (error) {
      if (controller.signal.aborted) {
        // Closed mid-stream (no newer run took over): back to the last finished state.
        if (abortRef.current === null) setState(previous.status === "done" ? previous : { status: "idle" });
        return;
      }
      setState(previous.status === "done" ? previous : { status: "idle" });
      if (error instanceof GatedError) return;
      console.warn("specialized analysis failed", error);
      toast({ title: "Error", description: SPECIALIZED_ERROR_MESSAGE, variant: "destructive" });
    } finally {
      if (abortRef.current === controller) abortRef.current = null;
    }
  }

  const busy = state.status === "streaming";
  const activeFocus = state.status === "idle" ? null : state.focus;
  const model = state.status === "idle" ? null : state.model;
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent data-testid="specialized-analysis-dialog" layout="sections" className="max-w-2xl">
        <DialogHeader>
          <div className="min-w-0">
            <DialogTitle>Specialized analysis</DialogTitle>
            <DialogDescription className="line-clamp-2">{study.title}</DialogDescription>
          </div>
        </DialogHeader>

        <DialogBody>
          {!hasAbstract ? (
            <p data-testid="no-abstract" className="text-sm text-slate-500 italic">
              No Abstract Available
            </p>
          ) : (
            <>
              <fieldset>
                <legend className="text-sm font-medium text-slate-800">Choose a focus</legend>
                <div className="mt-2 flex flex-wrap gap-2" role="group">
                  {FOCUSES.map((focus) => (
                    <button
                      key={focus}
                      type="button"
                      data-focus={focus}
                      disabled={busy}
                      aria-pressed={activeFocus === focus}
                      onClick={() => run(focus)}
                      className={cn(
                        "rounded-full border px-3 py-1 text-xs font-medium transition-colors disabled:opacity-60",
                        activeFocus === focus
                          ? "border-brand-600 bg-brand-600 text-white"
                          : "border-slate-300 text-slate-700 hover:bg-slate-50",
                      )}
                    >
                      {FOCUS_OPTIONS[focus]}
                    </button>
                  ))}
                </div>
              </fieldset>

              {state.status === "idle" && (
                <p className="mt-4 text-sm text-slate-500">
                  Pick a focus to analyse the abstract through that lens. Each statement links to the abstract sentence
                  it rests on.
                </p>
              )}

              {state.status !== "idle" && (
                <section className="mt-5" aria-label="Analysis" aria-busy={busy}>
                  <div className="flex flex-wrap items-center justify-between gap-2">
                    <Badge data-testid="focus-badge" variant="secondary">
                      {FOCUS_OPTIONS[state.focus]}
                    </Badge>
                    {state.status === "done" && (
                      <Button variant="outline" size="sm" onClick={() => run(state.focus, true)}>
                        <RotateCcw aria-hidden />
                        Regenerate
                      </Button>
                    )}
                  </div>
                  <div data-testid="specialized-summary" className="mt-3">
                    {state.status === "streaming" && !state.text ? (
                      <p className="flex items-center gap-2 text-sm text-slate-500">
                        <Loader2 className="size-4 animate-spin" aria-hidden /> Generating…
                      </p>
                    ) : (
                      <CitedText
                        text={state.status === "done" ? state.summary : state.text}
                        citations={state.status === "done" ? state.citations : []}
                        streaming={state.status === "streaming"}
                        sourcesLabel="Sources in the abstract"
                      />
                    )}
                  </div>
                  {model && (
                    <div
                      data-testid="generator-section"
                      className="mt-4 flex items-start gap-2 rounded-lg bg-slate-50 p-3 text-xs text-slate-600"
                    >
                      <Bot className="mt-0.5 size-4 shrink-0 text-slate-500" aria-hidden />
                      <div>
                        <p className="font-medium text-slate-800">
                          {busy ? "Writing: " : "Generated by "}
                          {model}
                        </p>
                        <p className="mt-0.5">
                          {/offline/i.test(model)
                            ? "An offline extractive model: every sentence is quoted from the abstract, except a labelled framing line."
                            : "AI-generated from the abstract. Check the cited sentences; numbers not found in the abstract are marked and are not facts."}
                        </p>
                      </div>
                    </div>
                  )}
                  {state.status === "done" && (state.focus === "exercise" || state.focus === "nutrition") && (
                    <PlanGenerator
                      key={`${state.focus}-${study.id}`}
                      kind={state.focus === "exercise" ? "workout" : "meal-plan"}
                      study={{ id: study.id, title: study.title }}
                      analysis={state.summary}
                      onGate={onGate}
                    />
                  )}
                </section>
              )}
            </>
          )}
        </DialogBody>
      </DialogContent>
    </Dialog>
  );
}
