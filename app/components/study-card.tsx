import { useRef, useState } from "react";
import type { ApiStudy } from "~/lib/search/types";
import { CitedText, type CitationLike } from "~/components/cited-text";
import { formatAuthors, formatPublicationDate, PROVIDER_LABELS } from "~/lib/format";
import { StudyLibraryActions } from "~/components/library/study-actions";
import { useGuestTrialDialog } from "~/components/guest-trial";
import type { UpgradeFeature } from "~/components/search/upgrade-prompt";
import { useUpgradePrompt } from "~/components/search/upgrade-prompt-state";
import { aiErrorFromThrown, openAiGate, type AiError, type AiPlanFeature } from "~/browser/ai-errors";
import { syncGuestUsage, USAGE_CHANGED_EVENT } from "~/browser/guest-usage";
import { toggleStudy, useIsMetaSelected } from "~/browser/meta-selection";
import { streamSummary } from "~/browser/stream-summary";
import { toast } from "~/browser/toast";
import { loadWhenOpen } from "~/components/on-demand";
import { storedStudyId } from "~/browser/sealed-studies";

const FullTextAnalysisDialog = loadWhenOpen(() =>
  import("~/components/fulltext-analysis-dialog").then((m) => m.FullTextAnalysisDialog),
);
const SpecializedAnalysisDialog = loadWhenOpen(() =>
  import("~/components/specialized-analysis-dialog").then((m) => m.SpecializedAnalysisDialog),
);

type SummaryState =
  | { status: "idle" }
  | { status: "streaming"; text: string; model: string | null }
  | { status: "done"; text: string; model: string; citations: CitationLike[] };

/**
 * The stored summary of GET /api/studies/{id} (grounded text and its citations), or null when
 * the study has none or the request fails.
 */
async function fetchStoredSummary(
  studyId: number,
  signal: AbortSignal,
): Promise<{ text: string; model: string; citations: CitationLike[] } | null> {
  const response = await fetch(`/api/studies/${await storedStudyId(studyId)}`, { credentials: "include", signal });
  if (!response.ok) return null;
  const body = (await response.json()) as Partial<ApiStudy>;
  if (typeof body.aiSummary !== "string" || typeof body.aiSummaryModel !== "string") return null;
  return { text: body.aiSummary, model: body.aiSummaryModel, citations: body.aiSummaryCitations ?? [] };
}

/**
 * One search result (SPEC §2 Study card): title, first three authors, journal, date, source
 * badges, collapsible abstract, and the AI summary, which streams in word by word, always names
 * the model that wrote it, and once stored shows its citations of the abstract (hover or click a
 * mark for the quote). Studies with an open-access copy offer the full-text analysis
 * (Professional; the server's 403 opens the upgrade prompt for everyone else).
 */
export function StudyCard({ study, signedIn, isPro = false }: { study: ApiStudy; signedIn: boolean; isPro?: boolean }) {
  const selected = useIsMetaSelected(study.id);
  const upgrade = useUpgradePrompt();
  const trial = useGuestTrialDialog();
  const [specializedOpen, setSpecializedOpen] = useState(false);
  const [fullTextOpen, setFullTextOpen] = useState(false);
  const [hasFullText, setHasFullText] = useState(study.fullTextAnalysis != null);
  const [expanded, setExpanded] = useState(false);
  const [summary, setSummary] = useState<SummaryState>(
    study.aiSummary && study.aiSummaryModel
      ? {
          status: "done",
          text: study.aiSummary,
          model: study.aiSummaryModel,
          citations: study.aiSummaryCitations ?? [],
        }
      : { status: "idle" },
  );
  const abortRef = useRef<AbortController | null>(null);
  const hasAbstract = (study.abstract ?? "").trim().length >= 10;

  /** SPEC §8: a 403 opens the upgrade prompt or the guest trial dialog; false for other errors. */
  function gate(error: AiError, fallback: AiPlanFeature): boolean {
    return openAiGate({ ...error, feature: error.feature ?? fallback }, { upgrade: upgrade.open, trial: trial.open });
  }

  async function generate() {
    abortRef.current?.abort();
    const controller = new AbortController();
    abortRef.current = controller;
    const previous = summary;
    setSummary({ status: "streaming", text: "", model: null });
    try {
      const result = await streamSummary(
        study.id,
        (text, model) => setSummary({ status: "streaming", text, model }),
        controller.signal,
      );
      setSummary({ status: "done", text: result.text, model: result.model, citations: [] });
      if (signedIn) window.dispatchEvent(new CustomEvent(USAGE_CHANGED_EVENT));
      else void syncGuestUsage();
      // The stored version is grounded in the abstract: same text (numbers not in the abstract
      // marked as unverified) plus its citations.
      const stored = await fetchStoredSummary(study.id, controller.signal).catch((error: unknown) => {
        if (!controller.signal.aborted) console.warn("could not load the stored summary", error);
        return null;
      });
      if (stored && stored.model === result.model && !controller.signal.aborted)
        setSummary({ status: "done", ...stored });
    } catch (error) {
      if (controller.signal.aborted) return;
      setSummary(previous);
      // SPEC §8: LIMIT_REACHED / PRO_REQUIRED open the upgrade prompt or the guest trial dialog.
      if (gate(aiErrorFromThrown(error), "ai_summaries")) {
        if (!signedIn) void syncGuestUsage();
        return;
      }
      toast({
        title: "Error",
        description: "Failed to regenerate summary. Please try again.",
        variant: "destructive",
      });
      console.warn("summary stream failed", error);
    }
  }

  const date = formatPublicationDate(study.publicationDate);
  return (
    <article
      data-testid="study-card"
      data-study-id={study.id}
      className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
    >
      <div className="flex flex-wrap items-center gap-2 text-xs">
        {study.sources.map((s) => (
          <span
            key={s}
            data-testid="source-badge"
            className="rounded-full bg-brand-50 px-2 py-0.5 font-medium text-brand-700"
          >
            {PROVIDER_LABELS[s] ?? s}
          </span>
        ))}
        <span className="rounded-full bg-slate-100 px-2 py-0.5 text-slate-700">{study.studyType}</span>
        {study.isOpenAccess && (
          <span className="rounded-full bg-emerald-50 px-2 py-0.5 text-emerald-700">Open access</span>
        )}
        {study.citationCount != null && <span className="text-slate-500">{study.citationCount} citations</span>}
      </div>
      <div className="mt-2 flex flex-col-reverse items-start gap-2 sm:flex-row sm:justify-between sm:gap-3">
        <h3 className="w-full min-w-0 text-lg leading-snug font-semibold break-words text-slate-900 sm:w-auto sm:flex-1">
          {study.title}
        </h3>
        <button
          type="button"
          onClick={() => toggleStudy(study)}
          aria-pressed={selected}
          className={`shrink-0 rounded-md border px-2.5 py-1 text-xs font-medium ${selected ? "border-brand-600 bg-brand-600 text-white" : "border-slate-300 text-slate-700 hover:bg-slate-50"}`}
        >
          {selected ? "Added to meta-analysis" : "Add to meta-analysis"}
        </button>
      </div>
      {study.relevanceScore != null && (
        <p data-testid="relevance" className="mt-1 text-xs text-brand-700">
          Relevance {study.relevanceScore.toFixed(1)}/10 · {study.relevanceReason}
        </p>
      )}
      <p className="mt-1 text-sm text-slate-600">{formatAuthors(study.authors)}</p>
      <p className="text-sm text-slate-500">
        {[study.journal, date].filter(Boolean).join(" · ")}
        {study.doi && (
          <>
            {" · "}
            <a
              className="text-brand-700 underline decoration-brand-700/40 underline-offset-2 hover:decoration-brand-700"
              href={`https://doi.org/${study.doi}`}
              target="_blank"
              rel="noreferrer noopener"
            >
              doi:{study.doi}
            </a>
          </>
        )}
        {study.pmid && <span> · PMID {study.pmid}</span>}
      </p>

      {study.abstract ? (
        <div className="mt-3">
          <button
            type="button"
            className="text-sm font-medium text-brand-600 hover:underline"
            aria-expanded={expanded}
            onClick={() => setExpanded((v) => !v)}
          >
            {expanded ? "Hide abstract" : "Show abstract"}
          </button>
          {expanded && (
            <p data-testid="abstract" className="mt-2 text-sm leading-relaxed whitespace-pre-line text-slate-700">
              {study.abstract}
            </p>
          )}
        </div>
      ) : (
        <p className="mt-3 text-sm text-slate-500 italic">No abstract available</p>
      )}

      <StudyLibraryActions study={study} signedIn={signedIn} />
      {(hasAbstract || study.openAccessUrl) && (
        <div className="mt-3 flex flex-wrap gap-2">
          {hasAbstract && (
            <button
              type="button"
              onClick={() => setSpecializedOpen(true)}
              className="rounded-md border border-slate-300 bg-white px-2.5 py-1 text-xs font-medium text-slate-700 hover:bg-slate-100"
            >
              Specialized analysis
            </button>
          )}
          {study.openAccessUrl && (
            <button
              type="button"
              data-testid="fulltext-analysis-button"
              onClick={() => setFullTextOpen(true)}
              className="inline-flex items-center gap-1.5 rounded-md border border-slate-300 bg-white px-2.5 py-1 text-xs font-medium text-slate-700 hover:bg-slate-100"
            >
              {hasFullText ? "View full-text analysis" : "Full-text analysis"}
              {!isPro && (
                <span
                  data-testid="pro-badge"
                  className="rounded-full bg-amber-100 px-1.5 py-px text-[10px] font-semibold tracking-wide text-amber-800 uppercase"
                >
                  Pro
                </span>
              )}
            </button>
          )}
        </div>
      )}
      {study.openAccessUrl && (
        <FullTextAnalysisDialog
          study={{ id: study.id, title: study.title, openAccessUrl: study.openAccessUrl }}
          hasStored={hasFullText}
          checkStoredFirst={isPro}
          open={fullTextOpen}
          onOpenChange={setFullTextOpen}
          onStored={() => setHasFullText(true)}
          onGate={(error) => {
            setFullTextOpen(false);
            gate(error, "full_text_analysis");
            if (!signedIn) void syncGuestUsage();
          }}
        />
      )}
      <SpecializedAnalysisDialog
        study={{ id: study.id, title: study.title, abstract: study.abstract }}
        open={specializedOpen}
        onOpenChange={setSpecializedOpen}
        onGate={(_kind, feature, body) => {
          setSpecializedOpen(false);
          if (body.trial === true)
            trial.open(body.guestFeature === "workoutGeneration" ? "workoutGeneration" : "specializedAnalysis");
          else upgrade.open(feature as UpgradeFeature, String(body.message ?? "Upgrade to Professional"));
        }}
      />

      <section className="mt-4 rounded-lg bg-slate-50 p-3">
        <div className="flex items-center justify-between gap-2">
          <h4 className="text-sm font-semibold text-slate-800">AI summary</h4>
          {hasAbstract && (
            <button
              type="button"
              onClick={generate}
              disabled={summary.status === "streaming"}
              className="rounded-md border border-slate-300 bg-white px-2.5 py-1 text-xs font-medium text-slate-700 hover:bg-slate-100 disabled:opacity-50"
            >
              {summary.status === "streaming"
                ? "Generating..."
                : summary.status === "done"
                  ? "Regenerate"
                  : "Generate summary"}
            </button>
          )}
        </div>
        {summary.status === "idle" && (
          <p className="mt-1 text-sm text-slate-500">
            {hasAbstract
              ? "No summary yet. Generate one from the abstract."
              : "A summary needs an abstract, and this record has none."}
          </p>
        )}
        {summary.status !== "idle" && (
          // Marks draw their labels with CSS: the text content of 'ai-summary' is the summary alone.
          <CitedText
            testId="ai-summary"
            quietMarks
            className="mt-1"
            text={summary.text}
            citations={summary.status === "done" ? summary.citations : []}
            streaming={summary.status === "streaming"}
            sourcesLabel="Sources in the abstract"
          />
        )}
        {summary.status !== "idle" && summary.model && (
          <p data-testid="summary-model" className="mt-1 text-xs text-slate-500">
            {summary.status === "streaming" ? "Writing: " : "Written by "}
            {summary.model}
          </p>
        )}
      </section>
      {upgrade.element}
      {trial.element}
    </article>
  );
}
