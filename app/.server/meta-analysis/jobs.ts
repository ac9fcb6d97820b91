/**
 * Meta-analysis jobs: created by POST /api/meta-analysis/enhanced, run by the queue consumer
 * (queue.ts), read by GET /api/meta-analysis/jobs/{id}.
 *
 * Metering (SPEC §6; billing/metering.ts): a use is reserved when the job is created (Free users
 * against AI_SUMMARIES_PER_MONTH with the other AI analyses, guests against their 'metaAnalysis'
 * trial counter, 5 per 24 h; Professional unlimited) and settled by the job: committed once when
 * it is done, given back when it finally fails. The reservation travels in the row as its ticket.
 */
import { and, eq, isNull, ne } from "drizzle-orm";
import type { JobStage, MetaAnalysisJobResult } from "~/lib/meta-analysis/types";
import { metaAnalysisJobs, type MetaAnalysisJobRow, type UserRow } from "../../../db/schema";
import { getAiUsage } from "../billing/usage";
import {
  getGuestUsage,
  guestDeviceId,
  reserveAiUse,
  settleReservationTicket,
  type MeteredAction,
  type ReservationTicket,
} from "../billing/metering";
import type { AppServices } from "../context";
import { AppError } from "../http/errors";
import { formatSofRow, sofTableCsv } from "~/lib/meta-analysis/summary-of-findings";
import { robvisCsv } from "~/lib/risk-of-bias/robvis";
import { buildStudyDataCsv } from "./export-csv";
import { buildRScript } from "./export-r";
import type { EnhancedRequest } from "./request";

/** The metered action of a meta-analysis job. */
export const META_ANALYSIS_ACTION: MeteredAction = { planFeature: "ai_summaries", guestFeature: "metaAnalysis" };

/** Queue message body of a meta-analysis job. */
export interface MetaAnalysisMessage {
  kind: "meta-analysis";
  jobId: string;
}

/** SPEC §8 message for a failed meta-analysis. */
export const META_FAILED_MESSAGE = "Failed to generate meta-analysis. Please try again.";

type JobsApp = Pick<AppServices, "db" | "env" | "bindings">;

/**
 * Creates a job for a validated request: reserves the use (403 LIMIT_REACHED at the limit),
 * writes the row, enqueues `{kind:'meta-analysis', jobId}` on JOBS. When enqueueing fails the row
 * is deleted and the use given back (nothing half-written) and 503 QUEUE_UNAVAILABLE is thrown.
 *
 * @returns the job id and the headers to add (guest device cookie, X-AI-Uses-Remaining).
 */
export async function createMetaAnalysisJob(
  app: JobsApp,
  ctx: { user: UserRow | null; request: Request },
  input: EnhancedRequest,
): Promise<{ jobId: string; headers: Headers }> {
  const reservation = await reserveAiUse(app, ctx, META_ANALYSIS_ACTION);
  const jobId = crypto.randomUUID();
  const ticket = reservation.ticket;
  try {
    await app.db.insert(metaAnalysisJobs).values({
      id: jobId,
      userId: ctx.user?.id ?? null,
      deviceKey: ctx.user ? null : ticket.kind === "guest" ? ticket.deviceId : null,
      status: "queued",
      stage: "queued",
      progress: 0,
      request: input,
      meter: ticket,
    });
  } catch (error) {
    await reservation.release();
    throw error;
  }
  try {
    const message: MetaAnalysisMessage = { kind: "meta-analysis", jobId };
    await app.bindings.JOBS.send(message);
  } catch (error) {
    await app.db.delete(metaAnalysisJobs).where(eq(metaAnalysisJobs.id, jobId));
    await reservation.release();
    console.error("meta-analysis: could not enqueue job", error);
    throw new AppError("QUEUE_UNAVAILABLE", "The analysis queue is not available. Please try again.", 503);
  }
  const headers = new Headers();
  for (const cookie of reservation.headers.getSetCookie()) headers.append("Set-Cookie", cookie);
  if (reservation.remaining !== null) headers.set("X-AI-Uses-Remaining", String(reservation.remaining));
  return { jobId, headers };
}

/** A job as GET /api/meta-analysis/jobs/{id} returns it. */
export interface JobView {
  id: string;
  status: MetaAnalysisJobRow["status"];
  /** Where the job is (queued → extracting → pooling → writing → done | failed), from the queue consumer. */
  stage: JobStage;
  /** What the stage is doing, in words ("Study 2 of 5"), or null. */
  stageDetail: string | null;
  /** Percent done, 0–100. */
  progress: number;
  /** Why the job failed (status failed only). */
  error?: string;
  result?: MetaAnalysisJobResult;
  createdAt: number;
  updatedAt: number;
}

/**
 * The job if it belongs to the requester: the signed-in user's own jobs, or for a guest the jobs
 * of the same signed device cookie (and no user). Anything else — unknown id, another user's or
 * device's job — is 404 NOT_FOUND, so ids cannot be probed.
 */
export async function getJobForRequester(
  app: JobsApp,
  ctx: { user: UserRow | null; request: Request },
  jobId: string,
): Promise<JobView> {
  const notFound = new AppError("NOT_FOUND", "No such meta-analysis job.", 404);
  if (!/^[0-9a-f-]{36}$/i.test(jobId)) throw notFound;
  let owner;
  if (ctx.user) owner = eq(metaAnalysisJobs.userId, ctx.user.id);
  else {
    const deviceId = await guestDeviceId(app, ctx.request);
    if (!deviceId) throw notFound;
    owner = and(isNull(metaAnalysisJobs.userId), eq(metaAnalysisJobs.deviceKey, deviceId));
  }
  const [row] = await app.db
    .select()
    .from(metaAnalysisJobs)
    .where(and(eq(metaAnalysisJobs.id, jobId), owner))
    .limit(1);
  if (!row) throw notFound;
  return {
    id: row.id,
    status: row.status,
    stage: row.stage,
    stageDetail: row.stageDetail,
    progress: row.progress,
    ...(row.status === "failed" && row.error ? { error: row.error } : {}),
    ...(row.status === "done" && row.result ? { result: row.result as MetaAnalysisJobResult } : {}),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * Records where a running job is: its stage, percent done (0–100, rounded and clamped) and a
 * detail in words (null clears it). Called by the queue consumer at each step of the work, so a
 * page polling GET /api/meta-analysis/jobs/{id} sees the real stage. A job that is no longer
 * running (finished, or put back to queued) is left alone.
 */
export async function setJobStage(
  app: Pick<AppServices, "db">,
  jobId: string,
  update: { stage: Exclude<JobStage, "queued" | "done" | "failed">; progress: number; detail?: string | null },
): Promise<void> {
  await app.db
    .update(metaAnalysisJobs)
    .set({
      stage: update.stage,
      stageDetail: update.detail ?? null,
      progress: Math.max(0, Math.min(100, Math.round(update.progress))),
      updatedAt: Date.now(),
    })
    .where(and(eq(metaAnalysisJobs.id, jobId), eq(metaAnalysisJobs.status, "running")));
}

/**
 * Moves a job that is neither done nor failed to its final state and settles its reserved use
 * exactly once: the ticket is read first and only the update that actually finished the job
 * settles it (a redelivered or concurrent run finds nothing to update).
 */
async function finishJob(
  app: JobsApp,
  jobId: string,
  set: Partial<typeof metaAnalysisJobs.$inferInsert>,
  outcome: "commit" | "release",
): Promise<void> {
  const [row] = await app.db
    .select({ meter: metaAnalysisJobs.meter })
    .from(metaAnalysisJobs)
    .where(eq(metaAnalysisJobs.id, jobId));
  if (!row) return;
  const updated = await app.db
    .update(metaAnalysisJobs)
    .set({ ...set, meter: null, updatedAt: Date.now() })
    .where(
      and(eq(metaAnalysisJobs.id, jobId), ne(metaAnalysisJobs.status, "done"), ne(metaAnalysisJobs.status, "failed")),
    )
    .returning({ id: metaAnalysisJobs.id });
  if (updated.length === 0 || !row.meter) return;
  await settleReservationTicket(app, row.meter as ReservationTicket, outcome);
}

/** Stores a finished job's result (status done, progress 100) and commits its reserved use. */
export function completeJob(app: JobsApp, jobId: string, result: MetaAnalysisJobResult): Promise<void> {
  return finishJob(
    app,
    jobId,
    { status: "done", stage: "done", stageDetail: null, progress: 100, result, error: null },
    "commit",
  );
}

/**
 * Marks a job failed with a human reason and gives its reserved use back (a use counts once per
 * successful job, never for a failure).
 */
export function failJob(app: JobsApp, jobId: string, reason: string): Promise<void> {
  return finishJob(app, jobId, { status: "failed", stage: "failed", stageDetail: null, error: reason }, "release");
}

/**
 * Marks a job running for this delivery (stage extracting, progress 0 again on a retry) and
 * returns its row, or null when there is nothing to do (unknown id, or already done/failed:
 * redelivery is harmless).
 */
export async function startJob(
  app: Pick<AppServices, "db">,
  jobId: string,
  attempts: number,
): Promise<MetaAnalysisJobRow | null> {
  const [row] = await app.db
    .update(metaAnalysisJobs)
    .set({
      status: "running",
      stage: "extracting",
      stageDetail: null,
      progress: 0,
      attempts,
      error: null,
      updatedAt: Date.now(),
    })
    .where(
      and(eq(metaAnalysisJobs.id, jobId), ne(metaAnalysisJobs.status, "done"), ne(metaAnalysisJobs.status, "failed")),
    )
    .returning();
  return row ?? null;
}

/** Puts a job back to queued after a failed attempt that will be retried, noting why (also as its stage detail). */
export async function requeueJob(app: Pick<AppServices, "db">, jobId: string, note: string): Promise<void> {
  await app.db
    .update(metaAnalysisJobs)
    .set({ status: "queued", stage: "queued", stageDetail: note, progress: 0, error: note, updatedAt: Date.now() })
    .where(and(eq(metaAnalysisJobs.id, jobId), eq(metaAnalysisJobs.status, "running")));
}

/**
 * Refuses (403, same bodies as reserveAiUse) a requester with no meta-analysis use left, without
 * counting one: for POST /api/meta-analysis/extract with a language model, which prepares a job
 * that is counted when it runs. Professional users always pass.
 */
export async function assertMetaAnalysisAvailable(
  app: JobsApp,
  ctx: { user: UserRow | null; request: Request },
): Promise<void> {
  if (ctx.user?.plan === "pro") return;
  if (ctx.user) {
    const limit = app.env.AI_SUMMARIES_PER_MONTH;
    const used = await getAiUsage(app, { userId: ctx.user.id, now: new Date() });
    if (used >= limit) {
      throw new AppError("LIMIT_REACHED", `You've used all ${limit} free AI analyses this month`, 403, {
        feature: META_ANALYSIS_ACTION.planFeature,
        limit,
        used,
      });
    }
    return;
  }
  const usage = (await getGuestUsage(app, ctx.request)).metaAnalysis;
  if (usage.used >= usage.limit) {
    throw new AppError("LIMIT_REACHED", "Trial Limit Reached", 403, {
      feature: META_ANALYSIS_ACTION.planFeature,
      guestFeature: META_ANALYSIS_ACTION.guestFeature,
      trial: true,
      limit: usage.limit,
      used: usage.limit,
    });
  }
}

/** Formats of GET /api/meta-analysis/jobs/{id}/export. */
export type JobExportFormat = "r" | "csv" | "sof" | "robvis";

/**
 * A finished job's analyses as a download: the R script that reproduces them with metafor
 * (`text/x-r`), the study rows as CSV (`text/csv`) or the Summary of Findings table as CSV (`sof`:
 * GRADEpro's columns, one row per pooled analysis that has one) or the studies' RoB 2 judgements in
 * robvis's CSV layout with their meta-analysis weights in percent (`robvis`: Study, D1…D5, Overall,
 * Weight; the outcome in brackets after the study when several analyses have judgements), with a
 * file name. The job must be the
 * requester's (404 NOT_FOUND otherwise, as getJobForRequester) and done (409 JOB_NOT_DONE while it
 * is queued or running, or when it failed).
 */
export async function exportJob(
  app: JobsApp,
  ctx: { user: UserRow | null; request: Request },
  jobId: string,
  format: JobExportFormat,
  now: Date = new Date(),
): Promise<{ body: string; contentType: string; fileName: string }> {
  const job = await getJobForRequester(app, ctx, jobId);
  if (job.status !== "done" || !job.result) {
    throw new AppError("JOB_NOT_DONE", "The meta-analysis has not finished, so there is nothing to export yet.", 409, {
      status: job.status,
    });
  }
  const stem = `metamind-meta-analysis-${job.id.slice(0, 8)}`;
  if (format === "r") {
    return {
      body: buildRScript(job.result, { jobId: job.id, generatedAt: now }),
      contentType: "text/x-r; charset=utf-8",
      fileName: `${stem}.R`,
    };
  }
  if (format === "robvis") {
    const assessed = job.result.analyses.filter((a) => a.riskOfBiasDomains);
    const rows = assessed.flatMap((a) =>
      a.effects.flatMap((e, i) => {
        const j = a.riskOfBiasDomains![i];
        return j
          ? [
              {
                study: assessed.length > 1 ? `${e.label} (${a.outcome})` : e.label,
                judgements: j,
                weight: a.weights[i] ?? 0,
              },
            ]
          : [];
      }),
    );
    return { body: robvisCsv(rows), contentType: "text/csv; charset=utf-8", fileName: `${stem}-risk-of-bias.csv` };
  }
  if (format === "sof") {
    const rows = job.result.analyses.flatMap((a) =>
      a.summaryOfFindings ? [formatSofRow(a.outcome, a.summaryOfFindings)] : [],
    );
    return {
      body: sofTableCsv(rows),
      contentType: "text/csv; charset=utf-8",
      fileName: `${stem}-summary-of-findings.csv`,
    };
  }
  return {
    body: buildStudyDataCsv(job.result),
    contentType: "text/csv; charset=utf-8",
    fileName: `${stem}-study-data.csv`,
  };
}
