/** State shapes of the /meta-analysis page, shared by its hooks and step components. */
import type { AnalysisOptions, DataRow } from "~/lib/meta-analysis/page-logic";
import type { ExcludedStudy, JobStage, MetaAnalysisJobResult } from "~/lib/meta-analysis/types";
import type { MetaStudy } from "~/browser/meta-selection";
import type { ReviewPrisma } from "~/lib/reviews";
import type { gradeInputs } from "~/lib/risk-of-bias/job-inputs";
import type { RobJudgementSet } from "~/lib/risk-of-bias/types";

/** The extracted data table: not yet asked for, being extracted, ready, or failed. */
export type Extraction =
  | { kind: "idle" }
  | { kind: "loading" }
  | { kind: "done"; rows: DataRow[]; excluded: ExcludedStudy[]; model: string }
  | { kind: "error"; message: string };

/** The analysis job: not started, queued or running (stage and progress as the queue consumer writes them), done, or failed. */
export type Run =
  | { kind: "idle" }
  | { kind: "running"; stage: JobStage; detail: string | null; progress: number }
  | {
      kind: "done";
      result: MetaAnalysisJobResult;
      options: AnalysisOptions;
      studyIds: number[];
      finishedAt: Date;
      jobId: string;
    }
  | { kind: "error"; message: string };

/** A finished run. */
export type DoneRun = Extract<Run, { kind: "done" }>;

/** A systematic review the page analyses (?review=id): its studies included at full text and its PRISMA flow. */
export interface ReviewSource {
  title: string;
  studies: MetaStudy[];
  prisma: ReviewPrisma;
}

/** The review's own extraction: every outcome with its type, measure, values and corrections, as its Data extraction tab pools it. */
export interface ReviewData {
  rows: DataRow[];
  excluded: ExcludedStudy[];
  outcomes: string[];
}

/** The review's RoB 2 judgements per outcome and study (issue 28). */
export type RobJudgements = Record<string, Record<string, RobJudgementSet>>;

/** The review's stored GRADE settings per outcome (rating changes, rated-up levels, thresholds, assumed control risks). */
export type ReviewGrade = ReturnType<typeof gradeInputs>;

/** Which studies the arm-level rows cover, which fall back to reported estimates and which have no usable data. */
export interface ArmSummary {
  fromArms: number;
  fromEstimates: string[];
  missing: string[];
}
