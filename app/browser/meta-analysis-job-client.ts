import { aiErrorFromResponse, type AiError } from "~/browser/ai-errors";
import type { ApiGradeRating, RobJudgementSet } from "~/lib/risk-of-bias/types";
import type {
  GenqWeights,
  ExcludedStudy,
  ExtractedStudyData,
  JobStage,
  JobStatus,
  MetaAnalysisJobResult,
  Method,
  TestType,
  ReviewPrismaInput,
} from "~/lib/meta-analysis/types";

/**
 * Browser client of the meta-analysis API (SPEC §7 calls send credentials): extraction, job start
 * and polling. Every failure is thrown as a MetaApiError carrying the classified AI error (so a
 * 403 LIMIT_REACHED / PRO_REQUIRED can open the upgrade prompt or the guest trial dialog).
 */

/** Poll interval of GET /api/meta-analysis/jobs/{jobId} in milliseconds. */
export const POLL_INTERVAL_MS = 700;
/** Consecutive network failures tolerated while polling before giving up. */
export const MAX_POLL_FAILURES = 5;

export class MetaApiError extends Error {
  constructor(readonly ai: AiError) {
    super(ai.message);
    this.name = "MetaApiError";
  }
}

/** A job that finished with status failed; `message` is the server's reason. */
export class JobFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JobFailedError";
  }
}

export interface StudyPayload {
  id: string;
  title: string;
  abstract: string;
  fullTextAnalysis?: string;
}

async function postJson(fetchImpl: typeof fetch, url: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
  const res = await fetchImpl(url, {
    method: "POST",
    credentials: "include",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok) throw new MetaApiError(await aiErrorFromResponse(res));
  return res.json();
}

/** POST /api/meta-analysis/extract → the data table's rows and the studies left out. */
export async function extractData(
  studies: readonly StudyPayload[],
  { fetchImpl = fetch, signal }: { fetchImpl?: typeof fetch; signal?: AbortSignal } = {},
): Promise<{ extracted: ExtractedStudyData[]; excluded: ExcludedStudy[]; model: string }> {
  const body = (await postJson(fetchImpl, "/api/meta-analysis/extract", { studies }, signal)) as {
    extracted?: ExtractedStudyData[];
    excluded?: ExcludedStudy[];
    model?: string;
  };
  return { extracted: body.extracted ?? [], excluded: body.excluded ?? [], model: body.model ?? "" };
}

export interface StartJobInput {
  studies: readonly StudyPayload[];
  method: Method;
  test: TestType;
  /** GENQ/GENQM: the weights' rule (default inverse-variance). */
  genqWeights?: GenqWeights;
  /** The reviewed table (included rows); omitted to let the server extract. */
  data?: ExtractedStudyData[];
  /** A systematic review's PRISMA flow (app/lib/reviews.ts), used by the report as it is. */
  prisma?: ReviewPrismaInput;
  /** The review's RoB 2 judgements by outcome name and study id (GRADE, RoB column, sensitivity analysis). */
  grade?: {
    riskOfBiasByOutcome?: Record<string, Record<string, RobJudgementSet>>;
    /** The review's stored GRADE rating changes and rated-up levels, by outcome name. */
    reviewerRatings?: Record<string, ApiGradeRating>;
    decisionThresholds?: Record<string, number>;
  };
  /** Summary of Findings: the assumed control risk the reviewer entered (a proportion), or per outcome name. */
  summaryOfFindings?: { assumedControlRisk?: number; assumedControlRiskByOutcome?: Record<string, number> };
}

/** POST /api/meta-analysis/enhanced → the queued job's id (202). */
export async function startJob(
  input: StartJobInput,
  { fetchImpl = fetch, signal }: { fetchImpl?: typeof fetch; signal?: AbortSignal } = {},
): Promise<string> {
  const body = (await postJson(fetchImpl, "/api/meta-analysis/enhanced", input, signal)) as { jobId?: string };
  if (typeof body.jobId !== "string") {
    throw new MetaApiError({ kind: "other", feature: null, message: "The server did not return a job id.", status: 0 });
  }
  return body.jobId;
}

export interface JobSnapshot {
  status: JobStatus;
  /** The stage the queue consumer last wrote (absent from servers older than issue 16: derived from status). */
  stage?: JobStage;
  /** What the stage is doing, in words, or null. */
  stageDetail?: string | null;
  progress: number;
  error?: string;
  result?: MetaAnalysisJobResult;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/**
 * Polls GET /api/meta-analysis/jobs/{jobId} every `intervalMs` until the job is done (returns its
 * result) or failed (throws JobFailedError with the server's reason). Reports each snapshot to
 * `onProgress`. HTTP errors throw MetaApiError at once; network errors are retried up to
 * MAX_POLL_FAILURES times in a row. Stops with the signal's reason when aborted.
 */
export async function pollJob(
  jobId: string,
  {
    fetchImpl = fetch,
    signal,
    intervalMs = POLL_INTERVAL_MS,
    onProgress,
  }: {
    fetchImpl?: typeof fetch;
    signal?: AbortSignal;
    intervalMs?: number;
    onProgress?: (s: JobSnapshot) => void;
  } = {},
): Promise<MetaAnalysisJobResult> {
  let failures = 0;
  for (;;) {
    let res: Response;
    try {
      res = await fetchImpl(`/api/meta-analysis/jobs/${encodeURIComponent(jobId)}`, {
        credentials: "include",
        cache: "no-store",
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      failures += 1;
      if (failures >= MAX_POLL_FAILURES) throw error;
      await sleep(intervalMs, signal);
      continue;
    }
    failures = 0;
    if (!res.ok) throw new MetaApiError(await aiErrorFromResponse(res));
    const snap = (await res.json()) as JobSnapshot;
    const progress = Number.isFinite(snap.progress) ? Math.max(0, Math.min(100, snap.progress)) : 0;
    onProgress?.({ ...snap, progress });
    if (snap.status === "done") {
      if (!snap.result) throw new JobFailedError("The analysis finished without a result.");
      return snap.result;
    }
    if (snap.status === "failed") throw new JobFailedError(snap.error || "The analysis failed.");
    await sleep(intervalMs, signal);
  }
}

/** What the progress bar says for each stage of a job. */
export const JOB_STAGE_LABELS: Record<JobStage, string> = {
  queued: "Queued…",
  extracting: "Extracting effect data…",
  pooling: "Pooling effect sizes…",
  writing: "Writing the report…",
  done: "Done",
  failed: "Failed",
};

/** The stage of a snapshot: the server's, else derived from its status (a running job without a stage is extracting). */
export function snapshotStage(snap: Pick<JobSnapshot, "status" | "stage">): JobStage {
  if (snap.stage) return snap.stage;
  return snap.status === "running" ? "extracting" : snap.status;
}
