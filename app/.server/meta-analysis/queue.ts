import type { AppServices } from "../context";
import type { JobAttempt, JobHandler } from "../job-types";
import type { CombinedSummary } from "~/lib/combined-summary";
import type { ResolvedModel } from "../ai/registry";
import { extractStudies, resolveMetaModel } from "../extraction/service";
import { completeJob, failJob, META_FAILED_MESSAGE, requeueJob, setJobStage, startJob } from "./jobs";
import { phraseNarrative } from "./narrative";
import { EnhancedRequestSchema } from "./request";
import { DEFAULT_METHOD, DEFAULT_TEST, runMetaAnalysis } from "./run";

/** Percent done when extraction starts and ends (it runs between the two, study by study). */
const EXTRACTING_AT = 5;
const EXTRACTED_AT = 70;
/** Percent done when the narrative report is being written (pooling runs from EXTRACTED_AT to this). */
const WRITING_AT = 85;

const studiesWord = (n: number) => `${n} ${n === 1 ? "study" : "studies"}`;

/** Turns an error into the human reason stored on a failed job. */
export function failureReason(error: unknown, attempts: number): string {
  const cause = error instanceof Error ? error.message : String(error);
  return `${META_FAILED_MESSAGE} The analysis stopped after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${cause}`;
}

/**
 * Runs one delivery of a meta-analysis job, writing its stage to the row as the work happens
 * (jobs.ts setJobStage; the page polls it):
 * - extracting (5 → 70%): effect data study by study ("2 of 5 studies read"); the user-edited
 *   `data` replaces extraction when present;
 * - pooling (70%): the analyses with the statistics engine (run.ts);
 * - writing (85%): the narrative, phrased by a real model (the template otherwise or when the
 *   model adds numbers);
 * - done (100%): the result is stored and the metered use committed.
 *
 * A failure throws so the queue retries (the job shows stage `queued` with the attempt's error);
 * on the last attempt the job is marked `failed` with the reason and the use is given back before
 * throwing. `deps.model` overrides the configured model (tests).
 */
export async function runMetaAnalysisJob(
  app: AppServices,
  jobId: string,
  attempt: JobAttempt,
  deps: { model?: Pick<ResolvedModel, "model" | "name" | "provider"> | null } = {},
): Promise<void> {
  const row = await startJob(app, jobId, attempt.attempts);
  if (!row) return;
  try {
    const parsed = EnhancedRequestSchema.safeParse(row.request);
    if (!parsed.success) throw new Error("the stored request is not a valid meta-analysis request");
    const request = parsed.data;
    const model = deps.model !== undefined ? deps.model : resolveMetaModel(app.env, app.fetch, request.model);
    const total = request.studies.length;
    let extraction;
    if (request.data) {
      await setJobStage(app, jobId, {
        stage: "extracting",
        progress: EXTRACTING_AT,
        detail: `Using your reviewed data table (${request.data.length} rows)`,
      });
      const ids = new Set(request.data.map((r) => r.studyId));
      extraction = {
        extracted: request.data,
        excluded: request.studies
          .map((s, i) => ({
            studyId:
              s.id === undefined || s.id === null || String(s.id).trim() === "" ? `study-${i + 1}` : String(s.id),
            title: s.title,
          }))
          .filter((s) => !ids.has(s.studyId))
          .map((s) => ({ ...s, reason: "No data rows for this study in the reviewed table" })),
        model: model ? model.name : "user-reviewed data",
      };
    } else {
      await setJobStage(app, jobId, {
        stage: "extracting",
        progress: EXTRACTING_AT,
        detail: `0 of ${studiesWord(total)} read`,
      });
      extraction = await extractStudies({ model }, request.studies, (done) =>
        setJobStage(app, jobId, {
          stage: "extracting",
          progress: EXTRACTING_AT + ((EXTRACTED_AT - EXTRACTING_AT) * done) / total,
          detail: `${done} of ${studiesWord(total)} read`,
        }),
      );
    }
    const method = request.method ?? DEFAULT_METHOD;
    const test = request.test ?? DEFAULT_TEST;
    await setJobStage(app, jobId, {
      stage: "pooling",
      progress: EXTRACTED_AT,
      detail: `${extraction.extracted.length} data rows, ${method}${test === "knha" ? " with Hartung–Knapp" : ""}`,
    });
    const result = runMetaAnalysis(
      {
        studyCount: request.studies.length,
        extracted: extraction.extracted,
        excluded: extraction.excluded,
        prisma: request.prisma,
        model: extraction.model,
      },
      {
        measure: request.measure,
        method: request.method,
        test: request.test,
        genqWeights: request.genqWeights,
        summaryOfFindings: request.summaryOfFindings,
        grade: request.grade,
      },
    );
    const pooled = result.analyses.length;
    await setJobStage(app, jobId, {
      stage: "writing",
      progress: WRITING_AT,
      detail: `${pooled} pooled ${pooled === 1 ? "outcome" : "outcomes"}${model && pooled > 0 ? `; ${model.name} phrases the narrative` : ""}`,
    });
    if (model && result.analyses.length > 0) {
      const phrased = await phraseNarrative(
        { model: model.model, provider: model.provider, modelName: model.name },
        result.narrative as CombinedSummary,
      );
      result.narrative = phrased.narrative;
    }
    await completeJob(app, jobId, result);
  } catch (error) {
    if (attempt.isLastAttempt) await failJob(app, jobId, failureReason(error, attempt.attempts));
    else
      await requeueJob(
        app,
        jobId,
        `Attempt ${attempt.attempts} failed (${error instanceof Error ? error.message : String(error)}); retrying.`,
      );
    throw error;
  }
}

/**
 * Queue handler for `{kind: "meta-analysis", jobId}` messages (wired in jobs/dispatch.ts). A body
 * without a job id is dropped with a warning (nothing to retry).
 */
export const metaAnalysisJobHandler: JobHandler = async (body, app, attempt) => {
  const jobId = (body as { jobId?: unknown } | null)?.jobId;
  if (typeof jobId !== "string" || !jobId) {
    console.warn("meta-analysis: message without a job id dropped");
    return;
  }
  await runMetaAnalysisJob(app, jobId, attempt);
};
