import type { AppServices } from "../context";
import type { JobAttempt, JobHandler } from "../jobs/types";
import type { CombinedSummary } from "../ai/combined-schema";
import type { ResolvedModel } from "../ai/registry";
import { extractStudies, resolveMetaModel } from "./extract";
import { completeJob, failJob, META_FAILED_MESSAGE, requeueJob, setJobProgress, startJob } from "./jobs";
import { phraseNarrative } from "./narrative";
import { EnhancedRequestSchema } from "./request";
import { runMetaAnalysis } from "./run";

/** Progress after extraction (extraction runs from 5 to this). */
const EXTRACTED_AT = 70;

/** Turns an error into the human reason stored on a failed job. */
export function failureReason(error: unknown, attempts: number): string {
  const cause = error instanceof Error ? error.message : String(error);
  return `${META_FAILED_MESSAGE} The analysis stopped after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${cause}`;
}

/**
 * Runs one delivery of a meta-analysis job: marks it running, extracts effect data per study
 * (progress 5 → 70; the user-edited `data` replaces extraction when present), runs the analyses
 * (→ 85), phrases the narrative with a real model (→ 95; the template otherwise or when the model
 * adds numbers), stores the result (100) and commits the metered use.
 *
 * A failure throws so the queue retries (the job shows `queued` with the attempt's error); on
 * the last attempt the job is marked `failed` with the reason and the use is given back before
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
    await setJobProgress(app, jobId, 5);
    let extraction;
    if (request.data) {
      const ids = new Set(request.data.map((r) => r.studyId));
      extraction = {
        extracted: request.data,
        excluded: request.studies
          .map((s, i) => ({ studyId: s.id === undefined || s.id === null || String(s.id).trim() === "" ? `study-${i + 1}` : String(s.id), title: s.title }))
          .filter((s) => !ids.has(s.studyId))
          .map((s) => ({ ...s, reason: "No data rows for this study in the reviewed table" })),
        model: model ? model.name : "user-reviewed data",
      };
    } else {
      extraction = await extractStudies({ model }, request.studies, (done, total) =>
        setJobProgress(app, jobId, 5 + ((EXTRACTED_AT - 5) * done) / total),
      );
    }
    await setJobProgress(app, jobId, EXTRACTED_AT);
    const result = runMetaAnalysis(
      { studyCount: request.studies.length, extracted: extraction.extracted, excluded: extraction.excluded, prisma: request.prisma, model: extraction.model },
      { measure: request.measure, method: request.method, test: request.test },
    );
    await setJobProgress(app, jobId, 85);
    if (model && result.analyses.length > 0) {
      const phrased = await phraseNarrative({ model: model.model, provider: model.provider, modelName: model.name }, result.narrative as CombinedSummary);
      result.narrative = phrased.narrative;
      await setJobProgress(app, jobId, 95);
    }
    await completeJob(app, jobId, result);
  } catch (error) {
    if (attempt.isLastAttempt) await failJob(app, jobId, failureReason(error, attempt.attempts));
    else await requeueJob(app, jobId, `Attempt ${attempt.attempts} failed (${error instanceof Error ? error.message : String(error)}); retrying.`);
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
