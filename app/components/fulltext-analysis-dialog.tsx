import { Bot, ExternalLink, FileText, Loader2, RotateCcw } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { CitedText, type CitationLike } from "~/components/cited-text";
import { Button } from "~/components/ui/button";
import {
  Dialog,
  DialogBody,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from "~/components/ui/dialog";
import { aiErrorFromBody, type AiError } from "~/browser/ai-errors";
import { USAGE_CHANGED_EVENT } from "~/browser/guest-usage";
import { toast } from "~/browser/toast";
import { httpUrl } from "~/lib/user-html";
import { storedStudyId } from "~/browser/sealed-studies";

/** SPEC §8: the toast of any failed full-text analysis. */
export const FULLTEXT_FAILED_TITLE = "Analysis failed";
export const FULLTEXT_FAILED_MESSAGE =
  "Some publishers restrict automated access. Try a different open access paper or this paper may require institutional access.";

/** The seven sections of a full-text analysis (app/.server/fulltext/analysis-prompt.ts ANALYSIS_SECTIONS). */
export const FULLTEXT_SECTIONS = [
  "Objective",
  "Design & Population",
  "Interventions / Exposures",
  "Outcomes & Effect Sizes",
  "Adverse Events",
  "Limitations",
  "Conclusion",
] as const;
const SECTION_NAMES = new Map(FULLTEXT_SECTIONS.map((name) => [name.toLowerCase(), name]));

/** One part of a sectioned analysis: a heading (null for a lead-in) and the body under it. */
export interface AnalysisPart {
  heading: string | null;
  body: string;
  /** Offset of `body` in the whole text. */
  bodyStart: number;
  /** The part's range in the whole text (heading line included): [start, end). */
  start: number;
  end: number;
}

/** A heading line: "## Name" / "### Name", or a bare section name ("Limitations", "**Conclusion:**"). */
function headingOf(line: string): string | null {
  const marked = /^\s*#{2,3}\s+(.+?)\s*#*\s*$/.exec(line);
  if (marked) return marked[1]!;
  const bare = line
    .trim()
    .replace(/^\*\*(.*)\*\*$/, "$1")
    .replace(/:$/, "")
    .trim();
  return SECTION_NAMES.get(bare.toLowerCase()) ?? null;
}

/**
 * Splits an analysis into parts at its heading lines (see `headingOf`); text before the first
 * heading is a part without heading (dropped when blank). Bodies are trimmed.
 */
export function splitAnalysis(text: string): AnalysisPart[] {
  const parts: AnalysisPart[] = [];
  const starts: { at: number; heading: string | null; bodyFrom: number }[] = [{ at: 0, heading: null, bodyFrom: 0 }];
  let offset = 0;
  for (const line of text.split("\n")) {
    const heading = headingOf(line);
    if (heading !== null)
      starts.push({ at: offset, heading, bodyFrom: Math.min(offset + line.length + 1, text.length) });
    offset += line.length + 1;
  }
  starts.forEach((s, i) => {
    const end = i + 1 < starts.length ? starts[i + 1]!.at : text.length;
    const raw = text.slice(s.bodyFrom, Math.max(s.bodyFrom, end));
    const body = raw.trim();
    if (s.heading === null && body === "") return;
    parts.push({
      heading: s.heading,
      body,
      bodyStart: s.bodyFrom + (raw.length - raw.trimStart().length),
      start: s.at,
      end,
    });
  });
  return parts;
}

/**
 * The citations whose anchors fall in `part`, with anchors moved into its body, and the number each
 * has in the whole list (so marks are numbered alike in every section).
 */
export function partCitations(
  part: AnalysisPart,
  citations: readonly CitationLike[],
  isLast: boolean,
): { citations: CitationLike[]; numbers: number[] } {
  const out: CitationLike[] = [];
  const numbers: number[] = [];
  citations.forEach((c, i) => {
    const anchors = (c.anchors ?? [])
      .filter((a) => a >= part.start && (a < part.end || (isLast && a === part.end)))
      .map((a) => Math.min(Math.max(a - part.bodyStart, 0), part.body.length));
    if (anchors.length === 0) return;
    out.push({ ...c, anchors: [...new Set(anchors)] });
    numbers.push(i + 1);
  });
  return { citations: out, numbers };
}

type State =
  | { status: "idle" }
  | { status: "loading" }
  | { status: "streaming"; text: string; model: string | null }
  | {
      status: "done";
      text: string;
      model: string;
      citations: CitationLike[];
      /** The URL the analysis was made from, and whether only its author sees it. */
      sourceUrl?: string | null;
      visibility?: "public" | "private";
    };

/** A reply already handed to `onGate` (no toast). */
class GatedError extends Error {}

/** Raw [Sx] markers, for a streamed text shown without its stored, grounded version. */
const RAW_MARKERS = /\s?\[\s*[Ss]\d+(?:\s*(?:[-–—,;&]|to|and)\s*[Ss]?\d+)*\s*\]/g;

/** GET /api/studies/{id}/fulltext-analysis, or null when nothing is stored (`fullTextAnalysis: null`). */
async function fetchStored(
  studyId: number,
  signal: AbortSignal,
): Promise<{
  text: string;
  model: string;
  citations: CitationLike[];
  sourceUrl: string | null;
  visibility: "public" | "private";
} | null> {
  const response = await fetch(`/api/studies/${await storedStudyId(studyId)}/fulltext-analysis`, {
    credentials: "include",
    signal,
  });
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`${response.status}: ${await response.text().catch(() => response.statusText)}`);
  const body = (await response.json()) as {
    fullTextAnalysis?: unknown;
    model?: unknown;
    citations?: unknown;
    sourceUrl?: unknown;
    visibility?: unknown;
  };
  if (body.fullTextAnalysis === null) return null;
  if (typeof body.fullTextAnalysis !== "string" || typeof body.model !== "string") {
    throw new Error("Malformed full-text analysis");
  }
  const citations = Array.isArray(body.citations)
    ? body.citations.filter(
        (c): c is CitationLike =>
          typeof c === "object" && c !== null && typeof c.id === "string" && typeof c.quote === "string",
      )
    : [];
  return {
    text: body.fullTextAnalysis,
    model: body.model,
    citations,
    sourceUrl: typeof body.sourceUrl === "string" ? body.sourceUrl : null,
    visibility: body.visibility === "private" ? "private" : "public",
  };
}

export interface FullTextAnalysisDialogProps {
  study: { id: number; title: string; openAccessUrl: string | null };
  /** A stored analysis exists: the dialog shows it instead of starting a new one. */
  hasStored: boolean;
  /**
   * Look for a stored analysis before starting one (search results do not say whether one
   * exists). Pass true only for Professional users: everyone else goes straight to the POST,
   * whose 403 is the authority on who may use the feature.
   */
  checkStoredFirst?: boolean;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** A 403 LIMIT_REACHED / PRO_REQUIRED reply (the caller opens the upgrade prompt or trial dialog). */
  onGate: (error: AiError) => void;
  /** A new analysis was stored. */
  onStored?: () => void;
}

/**
 * The full-text analysis dialog (SPEC §1 Professional, §7 analyze-fulltext, §8 'Analysis failed').
 * Opening it shows the stored analysis (GET /api/studies/{id}/fulltext-analysis) with a Regenerate
 * button, or, when there is none (see `hasStored`, `checkStoredFirst`), starts one: POST /api/studies/{id}/analyze-fulltext streams the
 * analysis as the model writes it ('Generated by {X-Model-Name}'), then the stored, grounded
 * version replaces it, section by section, with citation marks that show the quoted passage of the
 * paper and unverified numbers marked. A 403 goes to `onGate` (the server decides who may use it);
 * every other failure toasts 'Analysis failed' with the SPEC §8 message.
 */
export function FullTextAnalysisDialog({
  study,
  hasStored,
  checkStoredFirst = false,
  open,
  onOpenChange,
  onGate,
  onStored,
}: FullTextAnalysisDialogProps) {
  const [state, setState] = useState<State>({ status: "idle" });
  const abortRef = useRef<AbortController | null>(null);
  // What to show again when a run is cancelled by closing the dialog.
  const restoreRef = useRef<State>({ status: "idle" });

  const stop = useCallback(() => {
    abortRef.current?.abort();
    abortRef.current = null;
  }, []);

  const begin = useCallback(() => {
    stop();
    const controller = new AbortController();
    abortRef.current = controller;
    return controller;
  }, [stop]);

  const run = useCallback(
    async (previous: State) => {
      const controller = begin();
      restoreRef.current = previous.status === "done" ? previous : { status: "idle" };
      setState({ status: "streaming", text: "", model: null });
      try {
        const response = await fetch(`/api/studies/${await storedStudyId(study.id)}/analyze-fulltext`, {
          method: "POST",
          credentials: "include",
          headers: { "Content-Type": "application/json", Accept: "text/plain" },
          body: JSON.stringify({ openAccessUrl: study.openAccessUrl }),
          signal: controller.signal,
        });
        if (!response.ok || !response.body) {
          const raw = await response.text().catch(() => "");
          let body: unknown = null;
          try {
            body = JSON.parse(raw);
          } catch {
            body = { message: raw };
          }
          const error = aiErrorFromBody(response.status, body);
          if (error.kind !== "other") {
            onGate(error);
            throw new GatedError();
          }
          throw new Error(`${response.status}: ${raw || response.statusText}`);
        }
        const model = decodeURIComponent(response.headers.get("X-Model-Name") ?? "AI model");
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let text = "";
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          text += value;
          setState({ status: "streaming", text, model });
        }
        onStored?.();
        window.dispatchEvent(new CustomEvent(USAGE_CHANGED_EVENT));
        let stored: Awaited<ReturnType<typeof fetchStored>> = null;
        try {
          stored = await fetchStored(study.id, controller.signal);
        } catch (error) {
          if (controller.signal.aborted) throw error;
          console.warn("could not load the stored full-text analysis", error);
        }
        setState(
          stored
            ? { status: "done", ...stored }
            : { status: "done", text: text.replace(RAW_MARKERS, "").trim(), model, citations: [] },
        );
      } catch (error) {
        if (controller.signal.aborted) return;
        setState(restoreRef.current);
        if (error instanceof GatedError) return;
        console.warn("full-text analysis failed", error);
        toast({ title: FULLTEXT_FAILED_TITLE, description: FULLTEXT_FAILED_MESSAGE, variant: "destructive" });
      } finally {
        if (abortRef.current === controller) abortRef.current = null;
      }
    },
    [begin, onGate, onStored, study.id, study.openAccessUrl],
  );

  /** Shows the stored analysis; when there is none, starts one (`runIfMissing`) or shows the idle view. */
  const load = useCallback(
    async (runIfMissing: boolean) => {
      const controller = begin();
      setState({ status: "loading" });
      try {
        const stored = await fetchStored(study.id, controller.signal);
        if (stored) {
          setState({ status: "done", ...stored });
          onStored?.();
        } else if (runIfMissing) {
          if (abortRef.current === controller) abortRef.current = null;
          void run({ status: "idle" });
        } else {
          setState({ status: "idle" });
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        console.warn("could not load the full-text analysis", error);
        setState({ status: "idle" });
      } finally {
        if (abortRef.current === controller) abortRef.current = null;
      }
    },
    [begin, onStored, run, study.id],
  );

  // Opening shows the stored analysis or starts one; closing cancels whatever is under way.
  useEffect(() => {
    if (!open) {
      stop();
      setState((s) =>
        s.status === "streaming" ? restoreRef.current : s.status === "loading" ? { status: "idle" } : s,
      );
      return;
    }
    if (state.status !== "idle") return;
    if (hasStored || checkStoredFirst) void load(!hasStored);
    else void run(state);
    // Only opening and closing drive this; `state` is read at that moment.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);
  useEffect(() => stop, [stop]);

  const streaming = state.status === "streaming";
  const model = state.status === "streaming" || state.status === "done" ? state.model : null;
  const text = state.status === "streaming" || state.status === "done" ? state.text : "";
  const citations = state.status === "done" ? state.citations : [];
  const parts = splitAnalysis(text);
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        data-testid="fulltext-analysis-dialog"
        data-status={state.status}
        layout="sections"
        className="max-w-3xl"
      >
        <DialogHeader
          actions={
            state.status === "done" && (
              <Button variant="outline" size="sm" onClick={() => void run(state)}>
                <RotateCcw aria-hidden />
                Regenerate
              </Button>
            )
          }
        >
          <div className="min-w-0">
            <DialogTitle>Full-text analysis</DialogTitle>
            <DialogDescription className="line-clamp-2">{study.title}</DialogDescription>
            {httpUrl(study.openAccessUrl) && (
              <a
                href={httpUrl(study.openAccessUrl)!}
                target="_blank"
                rel="noreferrer noopener"
                className="mt-1 inline-flex items-center gap-1 text-xs text-brand-600 hover:underline"
              >
                Open access full text <ExternalLink className="size-3" aria-hidden />
              </a>
            )}
          </div>
        </DialogHeader>

        <DialogBody aria-busy={streaming || state.status === "loading"}>
          {state.status === "idle" && (
            <div className="text-sm text-slate-600">
              <p>
                Reads the open-access paper (PDF or web page) and analyses it section by section: objective, design and
                population, interventions, outcomes and effect sizes, adverse events, limitations and conclusion. Each
                statement links to the passage of the paper it rests on.
              </p>
              <Button className="mt-4" size="sm" onClick={() => void run(state)}>
                <FileText aria-hidden />
                Analyse full text
              </Button>
            </div>
          )}
          {(state.status === "loading" || (streaming && !text)) && (
            <p className="flex items-center gap-2 text-sm text-slate-500">
              <Loader2 className="size-4 animate-spin" aria-hidden />
              {state.status === "loading" ? "Loading the analysis…" : "Fetching the full text…"}
            </p>
          )}
          {text && (
            <div data-testid="fulltext-analysis" className="space-y-4">
              {parts.map((part, i) => {
                const isLast = i === parts.length - 1;
                const own = partCitations(part, citations, isLast);
                return (
                  <section key={`${i}-${part.heading ?? ""}`} aria-label={part.heading ?? undefined}>
                    {part.heading && <h3 className="mb-1 text-sm font-semibold text-slate-900">{part.heading}</h3>}
                    {part.body && (
                      <CitedText
                        text={part.body}
                        citations={own.citations}
                        citationNumbers={own.numbers}
                        streaming={streaming && isLast}
                        showSources={false}
                      />
                    )}
                  </section>
                );
              })}
              {state.status === "done" && citations.length > 0 && (
                <details className="text-xs text-slate-600">
                  <summary className="cursor-pointer font-medium text-slate-700">
                    Quoted passages of the paper ({citations.length})
                  </summary>
                  <ol className="mt-1 list-decimal space-y-1 pl-5">
                    {citations.map((c) => (
                      <li key={c.id}>
                        <span className="font-semibold">{c.id}</span> <q className="italic">{c.quote}</q>
                      </li>
                    ))}
                  </ol>
                </details>
              )}
            </div>
          )}
          {model && (
            <div
              data-testid="fulltext-generator"
              className="mt-4 flex items-start gap-2 rounded-lg bg-slate-50 p-3 text-xs text-slate-600"
            >
              <Bot className="mt-0.5 size-4 shrink-0 text-slate-500" aria-hidden />
              <div>
                <p className="font-medium text-slate-800">Generated by {model}</p>
                {state.status === "done" && state.sourceUrl && (
                  <p className="mt-0.5 break-all" data-testid="fulltext-analysis-source">
                    Analysed from {state.sourceUrl}
                    {state.visibility === "private" ? " (a source you supplied: only you see this analysis)" : ""}
                  </p>
                )}
                <p className="mt-0.5">
                  {/offline/i.test(model)
                    ? "An offline extractive model: every sentence is quoted from the paper, except labelled framing lines."
                    : "AI-generated from the full text. Check the cited passages; numbers not found in the paper are marked and are not facts."}
                </p>
              </div>
            </div>
          )}
        </DialogBody>
      </DialogContent>
    </Dialog>
  );
}
