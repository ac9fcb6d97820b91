import { Check, Copy, FileStack, Loader2, RotateCcw } from "lucide-react";
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import type {
  CitationSource,
  CombinedResult,
  CombinedStreamLine,
  PartialCombinedSummary,
} from "~/lib/combined-summary";
import { CitedText, type CitationLike } from "~/components/cited-text";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import {
  Dialog,
  DialogBody,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "~/components/ui/dialog";
import { COMBINED_HEADINGS as HEADINGS } from "~/lib/combined-headings";
import { countGuestUse, USAGE_CHANGED_EVENT } from "~/browser/guest-usage";
import { toast } from "~/browser/toast";
import { cn } from "~/lib/utils";

/** A study to combine (the fields the dialog sends; SPEC §3 Study). */
export interface CombinedDialogStudy {
  id: number | string;
  title: string;
  abstract: string | null;
  authors?: string[];
  journal?: string | null;
  publicationDate?: string | null;
}

/** A server refusal that opens the upgrade prompt or the guest trial dialog instead of a toast. */
export type GateKind = "LIMIT_REACHED" | "PRO_REQUIRED";

export interface CombinedSummaryDialogProps {
  studies: readonly CombinedDialogStudy[];
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /**
   * Called on a 403 (the dialog closes first): `kind` is the body's `error`, `feature` its
   * `feature` ("ai_summaries"); `details.trial` is true for a guest at the trial limit.
   */
  onGate: (kind: GateKind, feature: string, details: { trial: boolean; guestFeature?: string }) => void;
  /** Signed-in users refresh the usage card; guests also count the use on this device. */
  signedIn?: boolean;
}

/** SPEC §8 batch error. */
export const COMBINED_ERROR_MESSAGE = "Failed to analyze studies. Please try again.";

type Section = keyof PartialCombinedSummary & keyof typeof HEADINGS;

/** Sections in display order, with the fields of the nested ones. */
const LAYOUT: { section: Section; fields?: readonly string[] }[] = [
  { section: "executiveSummary" },
  {
    section: "quantitativeFindings",
    fields: ["pooledEffectSize", "statisticalHeterogeneity", "sampleSizeTotal", "keyOutcomes"],
  },
  {
    section: "studyCharacteristics",
    fields: ["designQuality", "populationSummary", "interventionDetails", "followUpPeriods"],
  },
  { section: "commonThemes" },
  {
    section: "clinicalRecommendations",
    fields: ["evidenceBasedGuidance", "implementationConsiderations", "patientSelection", "dosageAndTiming"],
  },
  { section: "safetyProfile", fields: ["adverseEvents", "riskBenefitRatio", "contraindications"] },
  { section: "conflictsAndHeterogeneity" },
  { section: "gradeAssessment" },
  { section: "studyQuality" },
  { section: "clinicalImplications" },
  { section: "limitationsAndBiases" },
  { section: "futureResearchPriorities" },
];

const STRENGTH_STYLES: Record<string, { label: string; className: string }> = {
  high: { label: "High", className: "bg-emerald-100 text-emerald-800" },
  moderate: { label: "Moderate", className: "bg-amber-100 text-amber-800" },
  low: { label: "Low", className: "bg-red-100 text-red-800" },
};

type RunState =
  | { status: "idle" }
  | { status: "streaming"; object: PartialCombinedSummary; model: string | null }
  | { status: "done"; result: CombinedResult }
  | { status: "failed" };

/** A refusal that must not become an error toast. */
class GateError extends Error {
  constructor(
    readonly kind: GateKind,
    readonly feature: string,
    readonly trial: boolean,
    readonly guestFeature?: string,
  ) {
    super(kind);
  }
}

/** A 400 whose message the user should see (e.g. 'No studies selected', 'No Content Available'). */
class InputError extends Error {}

/**
 * POSTs the studies to /api/studies/batch-summarize asking for NDJSON and reports each line.
 * @throws GateError on 403, InputError on 400, Error otherwise (non-OK status, an error line, or a
 *   body that ends without a done line).
 */
async function streamCombined(
  studies: readonly CombinedDialogStudy[],
  onPartial: (object: PartialCombinedSummary, model: string | null) => void,
  signal: AbortSignal,
  regenerate: boolean,
): Promise<{ result: CombinedResult; cached: boolean }> {
  const response = await fetch("/api/studies/batch-summarize", {
    method: "POST",
    credentials: "include",
    headers: { "Content-Type": "application/json", Accept: "application/x-ndjson" },
    body: JSON.stringify({
      studies: studies.map((s) => ({
        id: s.id,
        title: s.title,
        abstract: s.abstract,
        journal: s.journal ?? null,
        publicationDate: s.publicationDate ?? null,
      })),
      ...(regenerate ? { regenerate: true } : {}),
    }),
    signal,
  });
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => ({}))) as {
      error?: string;
      message?: string;
      feature?: string;
      trial?: boolean;
      guestFeature?: string;
    };
    if (response.status === 403 && (body.error === "LIMIT_REACHED" || body.error === "PRO_REQUIRED")) {
      throw new GateError(body.error, body.feature ?? "ai_summaries", body.trial === true, body.guestFeature);
    }
    if (response.status === 400 && body.message) throw new InputError(body.message);
    throw new Error(`${response.status}: ${body.message ?? response.statusText}`);
  }
  const model = response.headers.get("X-Model-Name");
  const modelName = model ? decodeURIComponent(model) : null;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (value) buffer += value;
    const lines = buffer.split("\n");
    buffer = done ? "" : lines.pop()!;
    for (const line of lines) {
      if (!line.trim()) continue;
      const parsed = JSON.parse(line) as CombinedStreamLine;
      if (parsed.type === "partial") onPartial(parsed.object, modelName);
      else if (parsed.type === "error") throw new Error(parsed.message);
      else if (parsed.type === "done") {
        const { type: _type, ...result } = parsed;
        return { result, cached: response.headers.get("X-Cache") === "HIT" };
      }
    }
    if (done) throw new Error("The summary stream ended early.");
  }
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v.trim() !== "") : [];

/** "Title of study 2 (sentence 5)" for a sentence id "T2.S5" (issue 16: sources named by title, never by id). */
export function citationLabel(id: string, studies: readonly { title: string }[]): string {
  const m = /^T(\d+)\.S(\d+)$/.exec(id);
  const title = m ? studies[Number(m[1]) - 1]?.title : undefined;
  return m && title ? `${title} (sentence ${m[2]})` : id;
}

function SectionSources({
  citations,
  studies,
}: {
  citations: readonly CitationLike[];
  studies: readonly { title: string }[];
}) {
  if (citations.length === 0) return null;
  return (
    <details className="mt-2 text-xs text-slate-600" data-testid="section-sources">
      <summary className="cursor-pointer font-medium text-slate-700">Sources ({citations.length})</summary>
      <ol className="mt-1 list-decimal space-y-1 pl-5">
        {citations.map((c) => (
          <li key={c.id}>
            <span className="font-semibold">{citationLabel(c.id, studies)}</span> <q className="italic">{c.quote}</q>
          </li>
        ))}
      </ol>
    </details>
  );
}

function FieldText({ value, streaming }: { value: unknown; streaming: boolean }) {
  if (Array.isArray(value)) {
    const items = strings(value);
    if (items.length === 0) return null;
    return (
      <ul className="list-disc space-y-1 pl-5">
        {items.map((item, i) => (
          <li key={i}>
            <CitedText text={item} streaming={streaming && i === items.length - 1} showSources={false} />
          </li>
        ))}
      </ul>
    );
  }
  const t = text(value);
  return t ? <CitedText text={t} streaming={streaming} showSources={false} /> : null;
}

/** One section: heading, its text or fields, and (once done) its cited source sentences. */
function SummarySection({
  section,
  fields,
  object,
  citations,
  streaming,
  studies,
}: {
  section: Section;
  fields?: readonly string[];
  object: PartialCombinedSummary;
  citations: readonly CitationLike[];
  streaming: boolean;
  studies: readonly { title: string }[];
}) {
  const value = object[section] as unknown;
  if (value === undefined || value === null) return null;
  let body: ReactNode;
  if (fields) {
    const record = (typeof value === "object" ? value : {}) as Record<string, unknown>;
    const present = fields.filter((f) => record[f] !== undefined);
    if (present.length === 0) return null;
    body = (
      <dl className="space-y-3">
        {present.map((f) => (
          <div key={f}>
            <dt className="text-xs font-semibold tracking-wide text-slate-500 uppercase">
              {HEADINGS[f as keyof typeof HEADINGS]}
            </dt>
            <dd className="mt-0.5">
              <FieldText value={record[f]} streaming={streaming && f === present[present.length - 1]} />
            </dd>
          </div>
        ))}
      </dl>
    );
  } else if (typeof value === "string" && !streaming && citations.length > 0) {
    body = <CitedText text={value} citations={citations} showSources={false} />;
  } else {
    body = <FieldText value={value} streaming={streaming} />;
  }
  return (
    <section data-testid={`combined-${section}`} aria-label={HEADINGS[section]}>
      <h3 className="mb-1.5 text-sm font-semibold text-slate-900">{HEADINGS[section]}</h3>
      {body}
      {!streaming && <SectionSources citations={citations} studies={studies} />}
    </section>
  );
}

/**
 * The combined research summary dialog (SPEC §2): opened with a list of studies, it streams the
 * summary from POST /api/studies/batch-summarize (NDJSON) and renders every section as it fills
 * in, with the strength-of-evidence badge, "Generated by {model}", the cited source sentences of
 * each section (hover a mark or open "Sources"), and copy-to-clipboard of the plain text
 * ('Copied to Clipboard'). Failures show the toast 'Failed to analyze studies. Please try again.';
 * a 403 closes the dialog and calls `onGate`. Reopening it for the same studies shows the finished
 * summary again without a new (metered) request; Regenerate asks for a fresh one.
 */
export function CombinedSummaryDialog({ studies, open, onOpenChange, onGate, signedIn }: CombinedSummaryDialogProps) {
  const [state, setState] = useState<RunState>({ status: "idle" });
  const [copied, setCopied] = useState(false);
  const abortRef = useRef<AbortController | null>(null);
  const studiesRef = useRef(studies);
  studiesRef.current = studies;
  const callbacks = useRef({ onOpenChange, onGate, signedIn });
  callbacks.current = { onOpenChange, onGate, signedIn };
  /** The study set of the last finished summary: reopening the dialog for it costs no new AI use. */
  const doneKey = useRef<string | null>(null);
  const studiesKey = studies.map((s) => `${s.id}`).join("|");

  const run = useCallback(async (regenerate = false) => {
    abortRef.current?.abort();
    const controller = new AbortController();
    abortRef.current = controller;
    const list = studiesRef.current;
    if (list.length === 0) {
      toast({
        title: "No studies selected",
        description: "Select at least one study to combine.",
        variant: "destructive",
      });
      callbacks.current.onOpenChange(false);
      return;
    }
    setCopied(false);
    doneKey.current = null;
    setState({ status: "streaming", object: {}, model: null });
    try {
      const { result, cached } = await streamCombined(
        list,
        (object, model) => {
          if (!controller.signal.aborted) setState({ status: "streaming", object, model });
        },
        controller.signal,
        regenerate,
      );
      if (controller.signal.aborted) return;
      doneKey.current = list.map((s) => `${s.id}`).join("|");
      setState({ status: "done", result });
      if (cached) return; // answered from the server's cache: no use was counted
      if (callbacks.current.signedIn) window.dispatchEvent(new CustomEvent(USAGE_CHANGED_EVENT));
      else countGuestUse("aiSummaries");
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof GateError) {
        setState({ status: "idle" });
        callbacks.current.onOpenChange(false);
        callbacks.current.onGate(error.kind, error.feature, { trial: error.trial, guestFeature: error.guestFeature });
        return;
      }
      setState({ status: "failed" });
      if (error instanceof InputError) {
        toast({ title: error.message, variant: "destructive" });
      } else {
        toast({ title: "Error", description: COMBINED_ERROR_MESSAGE, variant: "destructive" });
        console.warn("combined summary failed", error);
      }
    }
  }, []);

  useEffect(() => {
    if (!open) {
      abortRef.current?.abort();
      return;
    }
    if (doneKey.current !== studiesKey) void run();
    return () => abortRef.current?.abort();
  }, [open, run, studiesKey]);

  const object: PartialCombinedSummary =
    state.status === "done" ? state.result.combinedSummary : state.status === "streaming" ? state.object : {};
  const streaming = state.status === "streaming";
  const model = state.status === "done" ? state.result.model : state.status === "streaming" ? state.model : null;
  const sources: Record<string, CitationSource> = state.status === "done" ? state.result.citationSources : {};
  const citationsOf = (section: Section): CitationLike[] => {
    const ids = strings((object.citations as Record<string, unknown> | undefined)?.[section]);
    const sectionText = text(object[section]);
    return ids.flatMap((id) => {
      const source = sources[id];
      if (!source) return [];
      // A sentence copied whole into a text section gets its mark right after the copy.
      const at = sectionText ? sectionText.indexOf(source.quote) : -1;
      return [{ id, quote: source.quote, anchors: at === -1 ? [] : [at + source.quote.length] }];
    });
  };
  const strength = STRENGTH_STYLES[text(object.strengthOfEvidence)];
  const notes = state.status === "done" ? state.result.notes : [];

  async function copy() {
    if (state.status !== "done") return;
    try {
      await navigator.clipboard.writeText(state.result.combinedText);
      setCopied(true);
      toast({ title: "Copied to Clipboard", description: "The combined summary was copied as plain text." });
    } catch (error) {
      toast({ title: "Copy failed", description: "Your browser did not allow copying.", variant: "destructive" });
      console.warn("clipboard write failed", error);
    }
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        data-testid="combined-summary-dialog"
        data-status={state.status}
        layout="sections"
        className="max-h-[90vh] max-w-3xl"
      >
        <DialogHeader>
          <div className="min-w-0">
            <DialogTitle className="flex items-center gap-2">
              <FileStack className="size-5 text-brand-600" aria-hidden />
              Combined Research Summary
            </DialogTitle>
            <DialogDescription className="flex flex-wrap items-center gap-2">
              <span>
                {studies.length} {studies.length === 1 ? "study" : "studies"}
              </span>
              {strength && (
                <Badge data-testid="strength-of-evidence" className={cn("border-transparent", strength.className)}>
                  Strength of evidence: {strength.label}
                </Badge>
              )}
            </DialogDescription>
          </div>
        </DialogHeader>

        <DialogBody className="space-y-5" aria-busy={streaming}>
          {streaming && (
            <p className="flex items-center gap-2 text-sm text-brand-700" role="status">
              <Loader2 className="size-4 animate-spin" aria-hidden />
              Analyzing {studies.length} {studies.length === 1 ? "study" : "studies"}…
            </p>
          )}
          {notes.length > 0 && (
            <ul className="rounded-lg bg-amber-50 px-4 py-2 text-sm text-amber-900" data-testid="combined-notes">
              {notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          )}
          {LAYOUT.map(({ section, fields }, i) => {
            // While streaming, the last section that has arrived is the one still being written.
            const arrived = LAYOUT.filter((l) => object[l.section] !== undefined).map((l) => l.section);
            const writing = streaming && arrived[arrived.length - 1] === section;
            return (
              <SummarySection
                key={section}
                section={section}
                fields={fields}
                object={object}
                citations={citationsOf(section)}
                streaming={writing || (streaming && i === 0 && arrived.length === 0)}
                studies={studies}
              />
            );
          })}
          {state.status === "failed" && (
            <div className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800" role="alert">
              {COMBINED_ERROR_MESSAGE}
            </div>
          )}
          {(model || text(object.generatedBy)) && (
            <section className="rounded-lg bg-slate-50 p-3 text-xs text-slate-600" data-testid="combined-generator">
              {model && (
                <p className="font-medium text-slate-700">
                  Generated by <span data-testid="combined-model">{model}</span>
                </p>
              )}
              {text(object.generatedBy) && text(object.generatedBy) !== model && (
                <p className="mt-1">{text(object.generatedBy)}</p>
              )}
              {strings(object.unsupportedNumbers).length > 0 && (
                <p className="mt-1 text-amber-800">
                  Numbers not found in the sources (marked, not shown as facts):{" "}
                  {strings(object.unsupportedNumbers).join(", ")}
                </p>
              )}
            </section>
          )}
          {studies.length > 0 && (
            <details className="text-sm text-slate-700">
              <summary className="cursor-pointer font-medium">Studies analyzed ({studies.length})</summary>
              <ol className="mt-2 space-y-1">
                {studies.map((s, i) => (
                  <li key={`${s.id}-${i}`} className="flex gap-2">
                    <span className="font-semibold text-slate-500">T{i + 1}</span>
                    <span>
                      {s.title}
                      {!s.abstract?.trim() && <span className="ml-1 text-xs text-slate-500 italic">(no abstract)</span>}
                    </span>
                  </li>
                ))}
              </ol>
            </details>
          )}
        </DialogBody>

        <DialogFooter>
          {(state.status === "failed" || state.status === "done") && (
            <Button variant="outline" size="sm" onClick={() => void run(state.status === "done")}>
              <RotateCcw aria-hidden />
              {state.status === "failed" ? "Try again" : "Regenerate"}
            </Button>
          )}
          <Button variant="outline" size="sm" onClick={() => void copy()} disabled={state.status !== "done"}>
            {copied ? <Check aria-hidden /> : <Copy aria-hidden />}
            {copied ? "Copied" : "Copy"}
          </Button>
          <DialogClose asChild>
            <Button size="sm">Close</Button>
          </DialogClose>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
