import { useCallback, useEffect, useMemo, useRef, useState, type Dispatch, type SetStateAction } from "react";
import { useGuestTrialDialog } from "~/components/guest-trial";
import { useUpgradePrompt } from "~/components/search/upgrade-prompt-state";
import { openAiGate } from "~/browser/ai-errors";
import { type ArmStudyRow, rowsForAnalysis } from "~/lib/arms/review";
import { syncGuestUsage, USAGE_CHANGED_EVENT } from "~/browser/guest-usage";
import {
  extractData,
  JobFailedError,
  MetaApiError,
  pollJob,
  snapshotStage,
  startJob,
  type StudyPayload,
} from "~/browser/meta-analysis-job-client";
import {
  MIN_STUDIES,
  MIN_STUDIES_MESSAGE,
  readiness,
  rowsFromExtraction,
  toExtractedData,
  type AnalysisOptions,
  type DataRow,
} from "~/lib/meta-analysis/page-logic";
import { isGenq } from "~/lib/meta-analysis/display";
import type { Measure } from "~/lib/meta-analysis/types";
import type { MetaStudy } from "~/browser/meta-selection";
import { jobPrismaFromReview } from "~/lib/reviews";
import { toast } from "~/browser/toast";
import type { ArmSummary, Extraction, ReviewGrade, ReviewSource, RobJudgements, Run } from "./types";

const FAILURE_MESSAGE = "Failed to generate meta-analysis. Please try again.";

/** What the analysis of the /meta-analysis page works on. */
export interface AnalysisJobInput {
  signedIn: boolean;
  selection: readonly MetaStudy[];
  fromReview: ReviewSource | null;
  robJudgements: RobJudgements | null;
  reviewGrade: ReviewGrade | null;
  options: AnalysisOptions;
  assumedRiskValue: number | null;
  assumedRiskInvalid: boolean;
  extraction: Extraction;
  setExtraction: Dispatch<SetStateAction<Extraction>>;
}

/**
 * The work of the /meta-analysis page: Extract Data (POST of the selected studies → the reviewable
 * rows), edits of those rows, arm-level rows from the arm extraction table, and Run Analysis — a
 * queued job (with the review's PRISMA flow, RoB 2 judgements, GRADE settings and the assumed
 * control risk when there are any) polled until done, its stage and progress in `run`. One request
 * at a time: a new one, or leaving the page, aborts the one before. Fewer than {@link MIN_STUDIES}
 * studies, rows with problems or an invalid assumed risk set `notice` instead of starting. AI gates
 * (402/429 of a Free or guest user) open the upgrade or guest-trial dialog, whose elements the page
 * renders.
 */
export function useAnalysisJob(input: AnalysisJobInput) {
  const {
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
  } = input;
  const [run, setRun] = useState<Run>({ kind: "idle" });
  const [notice, setNotice] = useState<string | null>(null);
  /** Subgroup analysis chosen per analysis (index → study characteristic); reset by every run. */
  const [subgroups, setSubgroups] = useState<Record<number, string | null>>({});
  /** Meta-regression moderators chosen per analysis; reset by every run. */
  const [moderators, setModerators] = useState<Record<number, string[]>>({});
  const [armSummary, setArmSummary] = useState<ArmSummary | null>(null);
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
          (s) =>
            !extraction.rows.some((r) => r.studyId === String(s.id)) &&
            !extraction.excluded.some((e) => e.studyId === String(s.id)),
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
      setExtraction({
        kind: "done",
        rows: rowsFromExtraction(out.extracted),
        excluded: out.excluded,
        model: out.model,
      });
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
    setArmSummary({
      fromArms: out.fromArms.length,
      fromEstimates: out.fromEstimates.map(titleOf),
      missing: out.missing.map(titleOf),
    });
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
      setNotice(
        "The assumed control risk is a number of events per 1,000 between 0 and 1,000 (leave it empty for the pooled control-group risk).",
      );
      return;
    }
    let data: ReturnType<typeof toExtractedData> | undefined;
    if (rows) {
      const { ready, problems } = readiness(rows);
      if (problems.length > 0) {
        setNotice(
          `Fix or exclude ${problems.length === 1 ? "1 row" : `${problems.length} rows`} before running: ${problems.map((p) => `${p.title} — ${p.message}`).join("; ")}`,
        );
        return;
      }
      if (new Set(ready.map((r) => r.studyId)).size < MIN_STUDIES) {
        setNotice("At least 2 studies need usable data to pool. Include more rows or add studies.");
        return;
      }
      data = toExtractedData(rows);
    }
    // PRISMA comes only from a review's decisions; a hand-picked selection has no screening flow.
    const prisma = fromReview ? jobPrismaFromReview(fromReview.prisma) : null;
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
          ...(isGenq(runOptions.method) ? { genqWeights: runOptions.genqWeights ?? "inverse-variance" } : {}),
          ...(data ? { data } : {}),
          ...(prisma ? { prisma } : {}),
          ...(robJudgements || reviewGrade
            ? {
                grade: {
                  ...(robJudgements ? { riskOfBiasByOutcome: robJudgements } : {}),
                  ...(reviewGrade
                    ? {
                        reviewerRatings: reviewGrade.reviewerRatings,
                        decisionThresholds: reviewGrade.decisionThresholds,
                      }
                    : {}),
                },
              }
            : {}),
          ...(assumedRiskValue !== null || reviewGrade
            ? {
                summaryOfFindings: {
                  ...(assumedRiskValue !== null ? { assumedControlRisk: assumedRiskValue / 1000 } : {}),
                  // A value typed here applies to every outcome; else the review's stored per-outcome values.
                  ...(assumedRiskValue === null && reviewGrade
                    ? { assumedControlRiskByOutcome: reviewGrade.assumedControlRiskByOutcome }
                    : {}),
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
        onProgress: (s) =>
          setRun({ kind: "running", stage: snapshotStage(s), detail: s.stageDetail ?? null, progress: s.progress }),
      });
      if (controller.signal.aborted) return;
      setSubgroups({});
      setModerators({});
      setRun({ kind: "done", result, options: runOptions, studyIds, finishedAt: new Date(), jobId });
      if (extraction.kind !== "done") {
        setExtraction({
          kind: "done",
          rows: rowsFromExtraction(result.extracted),
          excluded: result.excluded,
          model: result.model,
        });
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      const message = handleError(error);
      if (message) toast({ title: "Error", description: FAILURE_MESSAGE, variant: "destructive" });
      setRun(message ? { kind: "error", message } : { kind: "idle" });
    }
  }

  const done = run.kind === "done" ? run : null;
  return {
    run,
    done,
    notice,
    busy,
    rows,
    excluded,
    notExtracted,
    armSummary,
    subgroups,
    setSubgroups,
    moderators,
    setModerators,
    onExtract,
    onRun,
    onRowChange,
    onUseArmData,
    upgrade,
    trial,
  };
}
