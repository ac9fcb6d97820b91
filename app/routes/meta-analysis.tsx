import * as Dialog from "@radix-ui/react-dialog";
import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { ArrowLeft, Download, FileJson, FileText, FlaskConical, Loader2, Play, Save, Table2, Trash2, X } from "lucide-react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { getUser } from "~/.server/auth/session";
import { useGuestTrialDialog } from "~/components/guest-trial";
import { ResultsView } from "~/components/meta-analysis/analysis-results";
import { ArmExtractionTable } from "~/components/meta-analysis/arm-extraction-table";
import { DataTable } from "~/components/meta-analysis/data-table";
import { SaveReportDialog } from "~/components/meta-analysis/save-report-dialog";
import { useUpgradePrompt } from "~/components/search/upgrade-prompt-state";
import { Button } from "~/components/ui/button";
import { openAiGate } from "~/lib/ai-errors";
import { type ArmStudyRow, rowsForAnalysis } from "~/lib/arms/review";
import { formatAuthors, formatPublicationDate, PROVIDER_LABELS } from "~/lib/format";
import { syncGuestUsage, USAGE_CHANGED_EVENT } from "~/lib/guest-usage";
import { METHOD_LABELS, TEST_LABELS } from "~/lib/meta-analysis/display";
import { extractData, JOB_STAGE_LABELS, JobFailedError, MetaApiError, pollJob, snapshotStage, startJob, type StudyPayload } from "~/lib/meta-analysis/job-client";
import {
  buildExport,
  DEFAULT_OPTIONS,
  downloadText,
  exportFileName,
  exportJsonText,
  METHOD_CHOICES,
  MIN_STUDIES,
  MIN_STUDIES_MESSAGE,
  readiness,
  reportFileName,
  rowsFromExtraction,
  selectionHintText,
  toExtractedData,
  backLink,
  type AnalysisOptions,
  type DataRow,
} from "~/lib/meta-analysis/page-logic";
import { buildReportHtml } from "~/components/meta-analysis/report-html";
import type { ExcludedStudy, JobStage, Measure, MetaAnalysisJobResult, Method, TestType } from "~/lib/meta-analysis/types";
import { removeStudy, useMetaSelection, type MetaStudy } from "~/lib/meta-selection";
import { DEFAULT_POOL_MEASURES, inferGenericMeasure, inferPoolType, parsePoolChoice, poolChoiceKey, type PoolChoice, type ReviewOutcomeExtraction, reviewOutcomeRows } from "~/lib/review-extraction";
import { prismaCountsFromReview, type ReviewPrisma } from "~/lib/reviews";
import { reviewsApi } from "~/lib/reviews-client";
import { gradeInputs, judgementsByOutcome, robApi } from "~/lib/risk-of-bias/client";
import type { RobJudgementSet } from "~/lib/risk-of-bias/types";
import { toast } from "~/lib/toast";
import { withUserHtmlCsp } from "~/lib/user-html";

export const meta: MetaFunction = () => [{ title: "Meta-Analysis · MetaMind" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(context.app, request);
  return { signedIn: !!user, userLabel: user?.email ?? "guest" };
}

const FAILURE_MESSAGE = "Failed to generate meta-analysis. Please try again.";

/** Shown as the extractor of rows that come from a review's Data extraction tab. */
const REVIEW_EXTRACTION_MODEL = "the review's data extraction (arm-level rules with the reviewer's corrections)";

/**
 * The type and measure a review outcome was last pooled in on the review's Data extraction tab (kept
 * in this browser), else the type its studies' data suggest (inferPoolType) in that type's default measure.
 */
function storedPoolChoice(reviewId: string, extraction: ReviewOutcomeExtraction): PoolChoice {
  let raw: string | null = null;
  try {
    raw = window.localStorage.getItem(poolChoiceKey(reviewId, extraction.outcome.id));
  } catch {
    raw = null;
  }
  const type = inferPoolType(extraction.studies);
  return parsePoolChoice(raw) ?? { type, measure: type === "generic" ? inferGenericMeasure(extraction.studies) : DEFAULT_POOL_MEASURES[type] };
}

type Extraction =
  | { kind: "idle" }
  | { kind: "loading" }
  | { kind: "done"; rows: DataRow[]; excluded: ExcludedStudy[]; model: string }
  | { kind: "error"; message: string };

type Run =
  | { kind: "idle" }
  | { kind: "running"; stage: JobStage; detail: string | null; progress: number }
  | { kind: "done"; result: MetaAnalysisJobResult; options: AnalysisOptions; studyIds: number[]; finishedAt: Date; jobId: string }
  | { kind: "error"; message: string };

/**
 * /meta-analysis (SPEC §2): the selected studies with remove buttons and hints for 0, 1 and 2+
 * studies; Extract Data → the reviewable data table with quotes; the model choice (REML with
 * Hartung–Knapp by default); Run Analysis → a queued job polled every 700 ms with a progress bar
 * showing the stage the queue consumer writes (queued, extracting, pooling, writing) →
 * results per outcome, narrative and PRISMA; Save Report, Download Report, Export Results (HTML,
 * JSON) and the results dialog once results exist.
 */
export default function MetaAnalysisPage() {
  const { signedIn, userLabel } = useLoaderData<typeof loader>();
  const storedSelection = useMetaSelection();
  const [searchParams] = useSearchParams();
  const reviewId = searchParams.get("review");
  // From a systematic review: its studies included at full text, and its PRISMA flow.
  const [fromReview, setFromReview] = useState<{ title: string; studies: MetaStudy[]; prisma: ReviewPrisma } | null>(null);
  const [reviewError, setReviewError] = useState<string | null>(null);
  useEffect(() => {
    if (!reviewId) return;
    let live = true;
    Promise.all([reviewsApi.get(reviewId), reviewsApi.records(reviewId, { stage: "full_text", decision: "include" }), reviewsApi.prisma(reviewId)])
      .then(([{ review }, { records }, prisma]) => {
        if (!live) return;
        setFromReview({
          title: review.title,
          prisma,
          studies: records.map((r) => ({
            id: r.id,
            title: r.title,
            authors: r.authors,
            journal: r.journal,
            publicationDate: r.year ? String(r.year) : null,
            doi: r.doi,
            pmid: r.pmid,
            abstract: r.abstract,
            source: r.origin,
          })),
        });
      })
      .catch((error: unknown) => live && setReviewError(error instanceof Error ? error.message : "The review could not be loaded."));
    return () => {
      live = false;
    };
  }, [reviewId]);
  const selection = useMemo(() => (reviewId ? (fromReview?.studies ?? []) : storedSelection), [reviewId, fromReview, storedSelection]);
  const dropStudy = (id: number) =>
    reviewId ? setFromReview((r) => (r ? { ...r, studies: r.studies.filter((s) => s.id !== id) } : r)) : removeStudy(id);
  const [extraction, setExtraction] = useState<Extraction>({ kind: "idle" });
  // The review's own extraction: every outcome with its type, measure, values and corrections, as the Data extraction tab pools it.
  const [reviewData, setReviewData] = useState<{ rows: DataRow[]; excluded: ExcludedStudy[]; outcomes: string[] } | null>(null);
  useEffect(() => {
    if (!reviewId) return;
    let live = true;
    reviewsApi
      .outcomes(reviewId)
      .then(({ outcomes }) => Promise.all(outcomes.map((o) => reviewsApi.outcomeExtraction(reviewId, o.id))))
      .then((extractions) => {
        if (!live || extractions.length === 0) return;
        const rows: DataRow[] = [];
        const excluded: ExcludedStudy[] = [];
        for (const extraction of extractions) {
          const out = reviewOutcomeRows(extraction, storedPoolChoice(reviewId, extraction));
          rows.push(...rowsFromExtraction(out.rows));
          excluded.push(...out.excluded);
        }
        setReviewData({ rows, excluded, outcomes: extractions.map((e) => e.outcome.name) });
        setExtraction({ kind: "done", rows, excluded, model: REVIEW_EXTRACTION_MODEL });
      })
      .catch((error: unknown) => live && setReviewError(error instanceof Error ? error.message : "The review's data extraction could not be loaded."));
    return () => {
      live = false;
    };
  }, [reviewId]);
  const [options, setOptions] = useState<AnalysisOptions>(DEFAULT_OPTIONS);
  // The review's RoB 2 judgements (issue 28): sent with the job for GRADE, the forest plot's RoB column and the sensitivity analysis.
  const [robJudgements, setRobJudgements] = useState<Record<string, Record<string, RobJudgementSet>> | null>(null);
  // The review's stored GRADE settings per outcome (rating changes, rated-up levels, thresholds, assumed control risks).
  const [reviewGrade, setReviewGrade] = useState<ReturnType<typeof gradeInputs> | null>(null);
  useEffect(() => {
    if (!reviewId) return;
    let live = true;
    robApi
      .overview(reviewId)
      .then((o) => live && o.assessments.length > 0 && setRobJudgements(judgementsByOutcome(o)))
      .catch(() => live && setRobJudgements(null));
    robApi
      .gradeSettings(reviewId)
      .then(({ settings }) => live && settings.length > 0 && setReviewGrade(gradeInputs(settings)))
      .catch(() => live && setReviewGrade(null));
    return () => {
      live = false;
    };
  }, [reviewId]);
  // Summary of Findings: the assumed control risk per 1,000 the reviewer enters ("" = pooled control-group risk).
  const [assumedRisk, setAssumedRisk] = useState("");
  const assumedRiskValue = assumedRisk.trim() === "" ? null : Number(assumedRisk);
  const assumedRiskInvalid = assumedRiskValue !== null && !(assumedRiskValue > 0 && assumedRiskValue < 1000);
  const [run, setRun] = useState<Run>({ kind: "idle" });
  const [notice, setNotice] = useState<string | null>(null);
  const [saveOpen, setSaveOpen] = useState(false);
  const [resultsOpen, setResultsOpen] = useState(false);
  /** Subgroup analysis chosen per analysis (index → study characteristic); reset by every run. */
  const [subgroups, setSubgroups] = useState<Record<number, string | null>>({});
  /** Meta-regression moderators chosen per analysis; reset by every run. */
  const [moderators, setModerators] = useState<Record<number, string[]>>({});
  const [armSummary, setArmSummary] = useState<{ fromArms: number; fromEstimates: string[]; missing: string[] } | null>(null);
  const estimateRowsRef = useRef<DataRow[]>([]);
  const upgrade = useUpgradePrompt();
  const trial = useGuestTrialDialog();
  const abortRef = useRef<AbortController | null>(null);

  useEffect(() => () => abortRef.current?.abort(), []);

  const count = selection.length;
  const studies: StudyPayload[] = useMemo(
    () =>
      selection.map((s) => ({
        id: String(s.id),
        title: s.title,
        abstract: s.abstract ?? "",
        ...(s.fullTextAnalysis ? { fullTextAnalysis: s.fullTextAnalysis } : {}),
      })),
    [selection],
  );
  const selectedIds = useMemo(() => new Set(selection.map((s) => String(s.id))), [selection]);
  const rows = useMemo(
    () => (extraction.kind === "done" ? extraction.rows.filter((r) => selectedIds.has(r.studyId)) : null),
    [extraction, selectedIds],
  );
  const excluded = extraction.kind === "done" ? extraction.excluded.filter((e) => selectedIds.has(e.studyId)) : [];
  const busy = extraction.kind === "loading" || run.kind === "running";
  const notExtracted =
    extraction.kind === "done"
      ? selection.filter(
          (s) => !extraction.rows.some((r) => r.studyId === String(s.id)) && !extraction.excluded.some((e) => e.studyId === String(s.id)),
        ).length
      : 0;

  const handleError = useCallback(
    (error: unknown): string => {
      if (error instanceof MetaApiError) {
        const gated = openAiGate(error.ai, {
          upgrade: (feature, reason) => upgrade.open(feature, reason),
          trial: () => trial.open("metaAnalysis"),
        });
        if (gated) return "";
        if (error.ai.status === 400 || error.ai.status === 413) return error.ai.message;
      }
      if (error instanceof JobFailedError) return `${FAILURE_MESSAGE} (${error.message})`;
      console.warn("meta-analysis request failed", error);
      return FAILURE_MESSAGE;
    },
    [upgrade, trial],
  );

  function needTwo(): boolean {
    if (count >= MIN_STUDIES) return true;
    setNotice(MIN_STUDIES_MESSAGE);
    toast({ title: "Not enough studies", description: MIN_STUDIES_MESSAGE, variant: "destructive" });
    return false;
  }

  async function onExtract() {
    setNotice(null);
    if (!needTwo()) return;
    abortRef.current?.abort();
    const controller = new AbortController();
    abortRef.current = controller;
    setExtraction({ kind: "loading" });
    try {
      const out = await extractData(studies, { signal: controller.signal });
      if (controller.signal.aborted) return;
      setExtraction({ kind: "done", rows: rowsFromExtraction(out.extracted), excluded: out.excluded, model: out.model });
    } catch (error) {
      if (controller.signal.aborted) return;
      const message = handleError(error);
      setExtraction(message ? { kind: "error", message } : { kind: "idle" });
    }
  }

  function onRowChange(index: number, row: DataRow) {
    setExtraction((current) => {
      if (current.kind !== "done") return current;
      const visible = current.rows.filter((r) => selectedIds.has(r.studyId));
      const target = visible[index];
      if (!target) return current;
      return { ...current, rows: current.rows.map((r) => (r === target ? row : r)) };
    });
  }

  /** Arm-level rows replace the selected studies' rows for that outcome; reported estimates fill in only where arm data are missing. */
  function onUseArmData(armRows: ArmStudyRow[], outcome: string, measures: { binary: Measure; continuous: Measure }) {
    if (extraction.kind === "done" && !armSummary) estimateRowsRef.current = extraction.rows;
    const out = rowsForAnalysis(armRows, estimateRowsRef.current, outcome, measures);
    const titleOf = (id: string) => armRows.find((r) => r.studyId === id)?.title ?? id;
    setArmSummary({ fromArms: out.fromArms.length, fromEstimates: out.fromEstimates.map(titleOf), missing: out.missing.map(titleOf) });
    setExtraction((current) => ({
      kind: "done",
      rows: out.rows,
      excluded: current.kind === "done" ? current.excluded : [],
      model: current.kind === "done" ? current.model : "arm-level rules",
    }));
  }

  async function onRun() {
    setNotice(null);
    if (!needTwo()) return;
    if (assumedRiskInvalid) {
      setNotice("The assumed control risk is a number of events per 1,000 between 0 and 1,000 (leave it empty for the pooled control-group risk).");
      return;
    }
    let data: ReturnType<typeof toExtractedData> | undefined;
    if (rows) {
      const { ready, problems } = readiness(rows);
      if (problems.length > 0) {
        setNotice(`Fix or exclude ${problems.length === 1 ? "1 row" : `${problems.length} rows`} before running: ${problems.map((p) => `${p.title} — ${p.message}`).join("; ")}`);
        return;
      }
      if (new Set(ready.map((r) => r.studyId)).size < MIN_STUDIES) {
        setNotice("At least 2 studies need usable data to pool. Include more rows or add studies.");
        return;
      }
      data = toExtractedData(rows);
    }
    // PRISMA comes only from a review's decisions; a hand-picked selection has no screening flow.
    const prisma = fromReview
      ? (() => {
          const p = fromReview.prisma;
          const { excluded, awaitingScreening, maybe, soughtForRetrieval, notRetrieved, assessed, awaitingFullText, fullTextMaybe, excludedWithReasons, included } = p;
          return {
            identified: p.identified,
            duplicatesRemoved: p.duplicatesRemoved,
            screened: p.screened,
            review: { excluded, awaitingScreening, maybe, soughtForRetrieval, notRetrieved, assessed, awaitingFullText, fullTextMaybe, excludedWithReasons, included },
          };
        })()
      : null;
    abortRef.current?.abort();
    const controller = new AbortController();
    abortRef.current = controller;
    const runOptions = { ...options };
    const studyIds = selection.map((s) => s.id);
    setRun({ kind: "running", stage: "queued", detail: null, progress: 0 });
    try {
      const jobId = await startJob(
        {
          studies,
          method: runOptions.method,
          test: runOptions.test,
          ...(data ? { data } : {}),
          ...(prisma ? { prisma } : {}),
          ...(robJudgements || reviewGrade
            ? {
                grade: {
                  ...(robJudgements ? { riskOfBiasByOutcome: robJudgements } : {}),
                  ...(reviewGrade ? { reviewerRatings: reviewGrade.reviewerRatings, decisionThresholds: reviewGrade.decisionThresholds } : {}),
                },
              }
            : {}),
          ...(assumedRiskValue !== null || reviewGrade
            ? {
                summaryOfFindings: {
                  ...(assumedRiskValue !== null ? { assumedControlRisk: assumedRiskValue / 1000 } : {}),
                  // A value typed here applies to every outcome; else the review's stored per-outcome values.
                  ...(assumedRiskValue === null && reviewGrade ? { assumedControlRiskByOutcome: reviewGrade.assumedControlRiskByOutcome } : {}),
                },
              }
            : {}),
        },
        { signal: controller.signal },
      );
      if (!signedIn) void syncGuestUsage();
      else window.dispatchEvent(new CustomEvent(USAGE_CHANGED_EVENT));
      const result = await pollJob(jobId, {
        signal: controller.signal,
        onProgress: (s) => setRun({ kind: "running", stage: snapshotStage(s), detail: s.stageDetail ?? null, progress: s.progress }),
      });
      if (controller.signal.aborted) return;
      setSubgroups({});
      setModerators({});
      setRun({ kind: "done", result, options: runOptions, studyIds, finishedAt: new Date(), jobId });
      if (extraction.kind !== "done") {
        setExtraction({ kind: "done", rows: rowsFromExtraction(result.extracted), excluded: result.excluded, model: result.model });
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      const message = handleError(error);
      if (message) toast({ title: "Error", description: FAILURE_MESSAGE, variant: "destructive" });
      setRun(message ? { kind: "error", message } : { kind: "idle" });
    }
  }

  const done = run.kind === "done" ? run : null;
  const reportTitle = done
    ? `Meta-analysis: ${done.result.analyses.map((a) => a.outcome).join(", ") || `${done.studyIds.length} studies`}`.slice(0, 100)
    : "";
  const buildHtml = useCallback(
    (title: string, description: string) =>
      done
        ? buildReportHtml({ title, description, result: done.result, options: done.options, generatedAt: done.finishedAt, subgroups, moderators })
        : "",
    [done, subgroups, moderators],
  );
  const reportHtml = useMemo(() => (resultsOpen && done ? buildHtml(reportTitle, "") : ""), [resultsOpen, done, buildHtml, reportTitle]);

  function downloadReport() {
    if (!done) return;
    downloadText(reportFileName(), withUserHtmlCsp(buildHtml(reportTitle, "")), "text/html;charset=utf-8");
    toast({ title: "Download Started", description: "Your meta-analysis report is downloading." });
  }

  function exportResults(format: "html" | "json") {
    if (!done) return;
    if (format === "html") downloadText(exportFileName("html"), withUserHtmlCsp(buildHtml(reportTitle, "")), "text/html;charset=utf-8");
    else downloadText(exportFileName("json"), exportJsonText(buildExport(done.result, done.options)), "application/json");
    toast({ title: "Download Started", description: `Results exported as ${format.toUpperCase()}.` });
  }

  const back = backLink(reviewId, fromReview?.title);
  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <Link to={back.to} className="inline-flex items-center gap-1 text-sm text-brand-700 hover:underline" data-testid="back-link">
        <ArrowLeft className="size-4" aria-hidden />
        {back.label}
      </Link>
      <h1 className="mt-3 flex items-center gap-2 text-2xl font-bold text-slate-900">
        <FlaskConical className="size-6 text-brand-600" aria-hidden />
        Meta-Analysis
      </h1>
      <p className="mt-1 text-sm text-slate-600">
        Pool the effect sizes of the selected studies with metafor-exact statistics: forest and funnel plots,
        heterogeneity, sensitivity, GRADE certainty and a PRISMA 2020 flow diagram.
      </p>

      <section aria-labelledby="selected-heading" className="mt-6 rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id="selected-heading" className="text-lg font-semibold text-slate-900">
            {fromReview ? `Included studies of “${fromReview.title}”` : "Selected studies"} ({count})
          </h2>
          {count === 0 && (
            <Button asChild variant="outline" size="sm">
              <Link to="/search">Find studies</Link>
            </Button>
          )}
        </div>
        {reviewError && (
          <p role="alert" className="mt-1 text-sm text-red-700">
            {reviewError}
          </p>
        )}
        {fromReview && (
          <p className="mt-1 text-xs text-slate-600" data-testid="review-source">
            From the systematic review: {prismaCountsFromReview(fromReview.prisma).included} studies included at full text; the report uses the
            review&apos;s PRISMA 2020 flow.{" "}
            <Link className="text-brand-700 underline" to={`/reviews/${encodeURIComponent(reviewId ?? "")}?tab=prisma`}>
              Back to the review
            </Link>
          </p>
        )}
        {reviewData && (
          <p className="mt-1 text-xs text-slate-600" data-testid="review-data-source">
            Data from the review&apos;s Data extraction: {reviewData.outcomes.join(", ")} — the same outcome types, measures, values and corrections
            the review pools ({reviewData.rows.length} {reviewData.rows.length === 1 ? "row" : "rows"}).
          </p>
        )}
        <p data-testid="selection-hint" className={`mt-1 text-sm ${count >= MIN_STUDIES ? "text-emerald-700" : "text-slate-600"}`}>
          {selectionHintText(count)}
        </p>
        {count > 0 && (
          <ul className="mt-4 space-y-2" aria-label="Selected studies">
            {selection.map((s) => (
              <li key={s.id} data-testid="meta-page-study" className="flex items-start gap-3 rounded-lg border border-slate-200 p-3">
                <div className="min-w-0 flex-1">
                  <p className="text-sm font-medium text-slate-900">{s.title}</p>
                  <p className="text-xs text-slate-600">
                    {[formatAuthors(s.authors), s.journal, formatPublicationDate(s.publicationDate), PROVIDER_LABELS[s.source]]
                      .filter(Boolean)
                      .join(" · ")}
                  </p>
                </div>
                <Button
                  variant="ghost"
                  size="icon"
                  className="size-8 shrink-0 text-slate-500 hover:bg-red-50 hover:text-red-700"
                  aria-label={`Remove "${s.title}" from the meta-analysis`}
                  disabled={busy}
                  onClick={() => dropStudy(s.id)}
                >
                  <Trash2 aria-hidden />
                </Button>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="model-heading" className="mt-6 rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
        <h2 id="model-heading" className="text-lg font-semibold text-slate-900">
          Model
        </h2>
        <div className="mt-3 grid min-w-0 gap-4 sm:grid-cols-2">
          <label className="flex min-w-0 flex-col gap-1 text-sm text-slate-700">
            τ² estimator
            <select
              data-testid="method-select"
              value={options.method}
              onChange={(e) => setOptions((o) => ({ ...o, method: e.target.value as Method }))}
              className="w-full min-w-0 max-w-full truncate rounded-md border border-slate-300 px-2 py-1.5"
            >
              {METHOD_CHOICES.map((m) => (
                <option key={m} value={m}>
                  {m} — {METHOD_LABELS[m]}
                  {m === "EE" ? " (no τ²)" : ""}
                </option>
              ))}
            </select>
          </label>
          <label className="flex min-w-0 flex-col gap-1 text-sm text-slate-700">
            Test and confidence intervals
            <select
              data-testid="test-select"
              value={options.test}
              onChange={(e) => setOptions((o) => ({ ...o, test: e.target.value as TestType }))}
              className="w-full min-w-0 max-w-full truncate rounded-md border border-slate-300 px-2 py-1.5"
            >
              <option value="knha">{TEST_LABELS.knha}</option>
              <option value="z">{TEST_LABELS.z}</option>
            </select>
          </label>
          <label className="flex min-w-0 flex-col gap-1 text-sm text-slate-700">
            Assumed control risk per 1,000 (Summary of Findings)
            <input
              type="number"
              inputMode="decimal"
              min={0}
              max={1000}
              step="any"
              data-testid="assumed-control-risk"
              value={assumedRisk}
              onChange={(e) => setAssumedRisk(e.target.value)}
              placeholder="Pooled control-group risk"
              aria-invalid={assumedRiskInvalid || undefined}
              className="w-full min-w-0 rounded-md border border-slate-300 px-2 py-1.5"
            />
          </label>
        </div>
        {reviewGrade && (
          <p className="mt-2 text-xs text-slate-600" data-testid="grade-from-review">
            The review&apos;s GRADE settings are used: your rating changes, rated-up levels, decision thresholds and assumed control risks.
          </p>
        )}
        {robJudgements && (
          <p className="mt-2 text-xs text-slate-600" data-testid="rob-from-review">
            The review&apos;s RoB 2 judgements are used: a risk-of-bias column beside each forest plot, the sensitivity analysis by risk of bias and
            GRADE&apos;s risk-of-bias rating.
          </p>
        )}
        <p className="mt-2 text-xs text-slate-600">
          Defaults: REML with the Hartung–Knapp adjustment, as Cochrane&apos;s current guidance recommends.
          {(options.method !== DEFAULT_OPTIONS.method || options.test !== DEFAULT_OPTIONS.test) && (
            <button type="button" className="ml-2 text-brand-700 hover:underline" onClick={() => setOptions(DEFAULT_OPTIONS)}>
              Restore defaults
            </button>
          )}
        </p>
      </section>

      <div className="mt-6 flex flex-wrap gap-2">
        <Button variant="outline" onClick={() => void onExtract()} disabled={busy || count === 0}>
          {extraction.kind === "loading" ? <Loader2 className="animate-spin" aria-hidden /> : <Table2 aria-hidden />}
          {extraction.kind === "loading" ? "Extracting..." : extraction.kind === "done" ? "Extract Again" : "Extract Data"}
        </Button>
        <Button onClick={() => void onRun()} disabled={busy || count === 0}>
          {run.kind === "running" ? <Loader2 className="animate-spin" aria-hidden /> : <Play aria-hidden />}
          {run.kind === "running" ? "Analyzing..." : "Run Analysis"}
        </Button>
        {done && (
          <>
            <Button variant="outline" onClick={() => setSaveOpen(true)}>
              <Save aria-hidden />
              Save Report
            </Button>
            <Button variant="outline" onClick={downloadReport}>
              <Download aria-hidden />
              Download Report
            </Button>
            <ExportMenu onExport={exportResults} jobId={done.jobId} />
            <Button variant="ghost" onClick={() => setResultsOpen(true)}>
              <FileText aria-hidden />
              View Report
            </Button>
          </>
        )}
      </div>

      {notice && (
        <p role="alert" data-testid="meta-notice" className="mt-3 rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
          {notice}
        </p>
      )}
      {extraction.kind === "error" && (
        <p role="alert" className="mt-3 rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
          {extraction.message}
        </p>
      )}

      {run.kind === "running" && (
        <div className="mt-6" data-testid="job-progress" data-stage={run.stage}>
          <div className="flex justify-between gap-2 text-sm text-slate-700" aria-live="polite">
            <span>
              <span data-testid="job-stage">{JOB_STAGE_LABELS[run.stage]}</span>
              {run.detail && <span className="text-slate-500"> {run.detail}</span>}
            </span>
            <span className="tabular-nums">{Math.round(run.progress)}%</span>
          </div>
          <div
            role="progressbar"
            aria-label="Meta-analysis progress"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={Math.round(run.progress)}
            className="mt-1 h-2 overflow-hidden rounded-full bg-slate-200"
          >
            <div className="h-full bg-brand-600 transition-[width] duration-500" style={{ width: `${run.progress}%` }} />
          </div>
        </div>
      )}
      {run.kind === "error" && (
        <p role="alert" data-testid="run-error" className="mt-3 rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
          {run.message}
        </p>
      )}

      {count > 0 && (
        <section aria-labelledby="arm-heading" className="mt-8 rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
          <h2 id="arm-heading" className="text-lg font-semibold text-slate-900">
            Data extraction per outcome (arm level)
          </h2>
          <p className="mt-1 text-sm text-slate-600">
            Name the intervention, comparator and outcome: MetaMind reads each study&apos;s events and group sizes, or means, SDs and
            group sizes, from its text and tables. Click a value to see where it was read; correct it if needed. The analysis
            computes effect sizes from these arm data.
          </p>
          <div className="mt-4">
            <ArmExtractionTable
              studies={selection.map((s) => ({
                id: String(s.id),
                title: s.title,
                text: [s.title, s.abstract, s.fullTextAnalysis].filter(Boolean).join("\n\n"),
                pmcid: s.pmcid ?? null,
                // From a review: the record's best text on the server (Europe PMC, uploaded PDF, attached full text).
                ...(reviewId
                  ? {
                      reportUrl: `/api/reviews/${encodeURIComponent(reviewId)}/records/${s.id}/report`,
                      studyKey: `review:${reviewId}:${s.id}`,
                    }
                  : {}),
              }))}
              signedIn={signedIn}
              userLabel={userLabel}
              disabled={busy}
              onUse={onUseArmData}
            />
          </div>
          {armSummary && (
            <p role="note" data-testid="arm-summary" className="mt-3 rounded-md bg-slate-50 p-2 text-sm text-slate-700">
              {armSummary.fromArms} {armSummary.fromArms === 1 ? "study is" : "studies are"} analysed from arm-level data.
              {armSummary.fromEstimates.length > 0 && ` Arm data are missing for ${armSummary.fromEstimates.join("; ")}: the reported estimate with its CI is used instead.`}
              {armSummary.missing.length > 0 && ` No usable data for ${armSummary.missing.join("; ")}.`}
            </p>
          )}
        </section>
      )}

      {rows && (
        <section aria-labelledby="data-heading" className="mt-8 rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
          <h2 id="data-heading" className="text-lg font-semibold text-slate-900">
            Extracted data
          </h2>
          <p className="mt-1 text-sm text-slate-600">
            Extracted by {extraction.kind === "done" ? extraction.model || "the extractor" : "the extractor"}. Hover or click
            a value&apos;s quote mark to see the sentence it came from; edit values, the outcome or the measure, and untick
            rows to leave them out. Studies are pooled only when their outcomes match (same outcome, measure and a compatible
            timepoint); give rows the same pool group to merge them, or different groups to split them. A meta-analysis&apos;s
            own pooled result is listed, not pooled again with primary studies.
          </p>
          {notExtracted > 0 && (
            <p role="note" data-testid="not-extracted" className="mt-2 rounded-md bg-amber-50 p-2 text-sm text-amber-900">
              {notExtracted === 1 ? "1 selected study was" : `${notExtracted} selected studies were`} added after the
              extraction and {notExtracted === 1 ? "is" : "are"} not in the table: choose Extract Again to include{" "}
              {notExtracted === 1 ? "it" : "them"}.
            </p>
          )}
          <div className="mt-4">
            <DataTable rows={rows} excluded={excluded} onChange={busy ? undefined : onRowChange} />
          </div>
        </section>
      )}

      {done && (
        <section aria-labelledby="results-heading" className="mt-8 rounded-xl border border-slate-200 bg-white p-5 shadow-sm" data-testid="meta-results">
          <h2 id="results-heading" className="text-lg font-semibold text-slate-900">
            Results
          </h2>
          <p className="mt-1 text-sm text-slate-600">
            {METHOD_LABELS[done.options.method]} ({done.options.method}) · {TEST_LABELS[done.options.test]} · computed by
            MetaMind&apos;s metafor-compatible engine
          </p>
          <div className="mt-6">
            <ResultsView
              result={done.result}
              subgroups={subgroups}
              onSubgroupChange={(index, key) => setSubgroups((prev) => ({ ...prev, [index]: key }))}
              moderators={moderators}
              onModeratorsChange={(index, keys) => setModerators((prev) => ({ ...prev, [index]: keys }))}
            />
          </div>
        </section>
      )}

      {done && (
        <SaveReportDialog
          open={saveOpen}
          onOpenChange={setSaveOpen}
          studyIds={done.studyIds}
          buildHtml={buildHtml}
          defaultName={reportTitle}
          reportData={{
            method: done.options.method,
            test: done.options.test,
            outcomes: done.result.analyses.map((a) => ({
              outcome: a.outcome,
              measure: a.measure,
              k: a.k,
              estimate: a.estimate,
              ci_lb: a.ci_lb,
              ci_ub: a.ci_ub,
            })),
          }}
        />
      )}

      <Dialog.Root open={resultsOpen} onOpenChange={setResultsOpen}>
        <Dialog.Portal>
          <Dialog.Overlay className="fixed inset-0 z-50 bg-slate-900/50" />
          <Dialog.Content
            data-testid="results-dialog"
            className="fixed inset-4 z-50 flex flex-col rounded-xl border border-slate-200 bg-white shadow-xl focus:outline-none"
          >
            <div className="flex items-center justify-between gap-4 border-b border-slate-200 p-4">
              <Dialog.Title className="text-lg font-semibold text-slate-900">Meta-analysis report</Dialog.Title>
              <Dialog.Description className="sr-only">The report as it is saved and downloaded.</Dialog.Description>
              <div className="flex gap-2">
                <Button size="sm" variant="outline" onClick={downloadReport}>
                  <Download aria-hidden />
                  Download
                </Button>
                <Dialog.Close asChild>
                  <Button variant="ghost" size="icon" className="size-8" aria-label="Close">
                    <X aria-hidden />
                  </Button>
                </Dialog.Close>
              </div>
            </div>
            <iframe title="Meta-analysis report" srcDoc={reportHtml} sandbox="" className="w-full flex-1 rounded-b-xl" />
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>

      {upgrade.element}
      {trial.element}
    </div>
  );
}

/** Export Results: the report as HTML, data and results as JSON, and the job's R script, study rows and Summary of Findings table (server downloads). */
function ExportMenu({ onExport, jobId }: { onExport: (format: "html" | "json") => void; jobId: string }) {
  const itemClass = "cursor-pointer rounded px-3 py-1.5 text-sm outline-none data-[highlighted]:bg-slate-100";
  const href = (format: "r" | "csv" | "sof" | "robvis") => `/api/meta-analysis/jobs/${encodeURIComponent(jobId)}/export?format=${format}`;
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger asChild>
        <Button variant="outline">
          <FileJson aria-hidden />
          Export Results
        </Button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content align="start" sideOffset={4} className="z-50 min-w-48 rounded-md border border-slate-200 bg-white p-1 shadow-lg">
          {(["html", "json"] as const).map((f) => (
            <DropdownMenu.Item key={f} onSelect={() => onExport(f)} className={itemClass}>
              {f === "html" ? "HTML report" : "JSON (data + results)"}
            </DropdownMenu.Item>
          ))}
          <DropdownMenu.Item asChild className={itemClass}>
            <a href={href("r")} download>
              R script (metafor)
            </a>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={itemClass}>
            <a href={href("csv")} download>
              Study data (CSV)
            </a>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={itemClass}>
            <a href={href("sof")} download data-testid="export-sof">
              Summary of findings (CSV)
            </a>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={itemClass}>
            <a href={href("robvis")} download data-testid="export-robvis">
              Risk of bias, robvis layout (CSV)
            </a>
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
