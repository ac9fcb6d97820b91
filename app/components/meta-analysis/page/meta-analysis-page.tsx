import { Link, useSearchParams } from "@remix-run/react";
import { ArrowLeft, FlaskConical } from "lucide-react";
import { useState } from "react";
import { SaveReportDialog } from "~/components/meta-analysis/save-report-dialog";
import { backLink } from "~/lib/meta-analysis/page-logic";
import { AnalysisActions } from "./analysis-actions";
import { ArmDataSection } from "./arm-data-section";
import { ExtractedDataSection } from "./extracted-data-section";
import { JobProgress } from "./job-progress";
import { ModelSettings } from "./model-settings";
import { ReportDialog } from "./report-dialog";
import { ResultsSection } from "./results-section";
import { SelectedStudies } from "./selected-studies";
import type { Extraction } from "./types";
import { isGenq } from "~/lib/meta-analysis/display";
import { useAnalysisJob } from "./use-analysis-job";
import { useAnalysisOptions } from "./use-analysis-options";
import { useReport } from "./use-report";
import { useStudySelection } from "./use-study-selection";

/**
 * /meta-analysis (SPEC §2): the selected studies with remove buttons and hints for 0, 1 and 2+
 * studies; Extract Data → the reviewable data table with quotes; the model choice (REML with
 * Hartung–Knapp by default); Run Analysis → a queued job polled every 700 ms with a progress bar
 * showing the stage the queue consumer writes (queued, extracting, pooling, writing) →
 * results per outcome, narrative and PRISMA; Save Report, Download Report, Export Results (HTML,
 * JSON) and the results dialog once results exist. With ?review=id it analyses that systematic
 * review's included studies with its data extraction, PRISMA flow, RoB 2 and GRADE settings.
 */
export function MetaAnalysisPage({ signedIn, userLabel }: { signedIn: boolean; userLabel: string }) {
  const [searchParams] = useSearchParams();
  const reviewId = searchParams.get("review");
  const [extraction, setExtraction] = useState<Extraction>({ kind: "idle" });
  const { selection, dropStudy, fromReview, reviewError, reviewData, robJudgements, reviewGrade } = useStudySelection(
    reviewId,
    setExtraction,
  );
  const { options, setOptions, assumedRisk, setAssumedRisk, assumedRiskValue, assumedRiskInvalid } =
    useAnalysisOptions();
  const job = useAnalysisJob({
    signedIn,
    selection,
    fromReview,
    robJudgements,
    reviewGrade,
    options,
    assumedRiskValue,
    assumedRiskInvalid,
    extraction,
    setExtraction,
  });
  const { run, done, busy, rows } = job;
  const [saveOpen, setSaveOpen] = useState(false);
  const [resultsOpen, setResultsOpen] = useState(false);
  const report = useReport(done, job.subgroups, job.moderators, resultsOpen);
  const count = selection.length;

  const back = backLink(reviewId, fromReview?.title);
  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <Link
        to={back.to}
        className="inline-flex items-center gap-1 text-sm text-brand-700 hover:underline"
        data-testid="back-link"
      >
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

      <SelectedStudies
        selection={selection}
        fromReview={fromReview}
        reviewId={reviewId}
        reviewError={reviewError}
        reviewData={reviewData}
        busy={busy}
        onRemove={dropStudy}
      />

      <ModelSettings
        options={options}
        setOptions={setOptions}
        assumedRisk={assumedRisk}
        setAssumedRisk={setAssumedRisk}
        assumedRiskInvalid={assumedRiskInvalid}
        gradeFromReview={!!reviewGrade}
        robFromReview={!!robJudgements}
      />

      <AnalysisActions
        extraction={extraction}
        run={run}
        busy={busy}
        count={count}
        jobId={done ? done.jobId : null}
        onExtract={() => void job.onExtract()}
        onRun={() => void job.onRun()}
        onSave={() => setSaveOpen(true)}
        onDownload={report.downloadReport}
        onExport={report.exportResults}
        onView={() => setResultsOpen(true)}
      />

      {job.notice && (
        <p
          role="alert"
          data-testid="meta-notice"
          className="mt-3 rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900"
        >
          {job.notice}
        </p>
      )}
      {extraction.kind === "error" && (
        <p role="alert" className="mt-3 rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
          {extraction.message}
        </p>
      )}

      {run.kind === "running" && <JobProgress run={run} />}
      {run.kind === "error" && (
        <p
          role="alert"
          data-testid="run-error"
          className="mt-3 rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800"
        >
          {run.message}
        </p>
      )}

      {count > 0 && (
        <ArmDataSection
          selection={selection}
          reviewId={reviewId}
          signedIn={signedIn}
          userLabel={userLabel}
          busy={busy}
          onUse={job.onUseArmData}
          armSummary={job.armSummary}
        />
      )}

      {rows && (
        <ExtractedDataSection
          rows={rows}
          excluded={job.excluded}
          extractedBy={extraction.kind === "done" ? extraction.model || "the extractor" : "the extractor"}
          notExtracted={job.notExtracted}
          onRowChange={busy ? undefined : job.onRowChange}
        />
      )}

      {done && (
        <ResultsSection
          done={done}
          subgroups={job.subgroups}
          setSubgroups={job.setSubgroups}
          moderators={job.moderators}
          setModerators={job.setModerators}
        />
      )}

      {done && (
        <SaveReportDialog
          open={saveOpen}
          onOpenChange={setSaveOpen}
          studyIds={done.studyIds}
          buildHtml={report.buildHtml}
          defaultName={report.reportTitle}
          reportData={{
            method: done.options.method,
            test: done.options.test,
            ...(isGenq(done.options.method) ? { genqWeights: done.options.genqWeights ?? "inverse-variance" } : {}),
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

      <ReportDialog
        open={resultsOpen}
        onOpenChange={setResultsOpen}
        reportHtml={report.reportHtml}
        onDownload={report.downloadReport}
      />

      {job.upgrade.element}
      {job.trial.element}
    </div>
  );
}
