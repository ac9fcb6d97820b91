/**
 * Scheduled reconciliation (issue 11 item 6; the Worker's `scheduled` handler, cron in
 * wrangler.toml) and the dead-letter consumer: repairs what a crash or a lost queue message
 * leaves behind, so nothing stays invisible to its user or stuck for ever.
 *
 * - R2 multipart uploads recorded in pending_multipart_uploads for more than an hour are aborted
 *   (`bucket.resumeMultipartUpload(key, uploadId).abort()`; R2 has no list of them in Workers).
 * - Objects under `uploads/` older than a grace period that no uploaded_studies row refers to
 *   are deleted (the grace keeps in-flight uploads, whose row is written after the file, safe).
 * - Uploads stuck in queued/extracting and meta-analysis jobs stuck in queued/running past a
 *   limit are re-enqueued a bounded number of times (counted in reconcile_requeues), then failed
 *   with a reason (an upload's file is deleted; a job's reserved use is given back).
 * - Messages that exhausted their retries arrive on the dead-letter queue; their rows are marked
 *   failed with the reason.
 */
import { and, eq, inArray, lt, sql } from "drizzle-orm";
import { z } from "zod";
import { metaAnalysisJobs, pendingMultipartUploads, reconcileRequeues, uploadedStudies } from "../../../db/schema";
import type { AppServices } from "../context";
import { failJob, META_FAILED_MESSAGE } from "../meta-analysis/jobs";
import { extractMessageFor } from "../uploads/service";

/** The queue that receives messages of `metamind-jobs` after their last retry (wrangler.toml). */
export const DEAD_LETTER_QUEUE = "metamind-jobs-dlq";

/**
 * True for a dead-letter queue's batch. Each wrangler.toml environment names its own queues
 * (metamind-jobs-staging → metamind-jobs-staging-dlq), so a dead-letter queue is any queue whose
 * name ends in "-dlq" (scripts/check-deploy.mjs enforces the suffix).
 */
export function isDeadLetterQueue(queueName: string): boolean {
  return queueName === DEAD_LETTER_QUEUE || queueName.endsWith("-dlq");
}
/** Prefix of uploaded PDFs in R2 (uploads/{userId}/{uuid}.pdf). */
export const UPLOADS_PREFIX = "uploads/";

/** Time limits and bounds of one reconciliation run. */
export interface ReconcileLimits {
  /** Multipart uploads older than this are aborted (ms; default 1 hour). */
  multipartMaxAgeMs: number;
  /** Objects younger than this are never deleted as orphans (ms; default 1 hour). */
  orphanGraceMs: number;
  /** Items in queued/extracting/running without an update for this long are stuck (ms; default 30 min). */
  stuckAfterMs: number;
  /** Re-enqueues of one stuck item before it is failed (default 2). */
  maxRequeues: number;
  /** R2 objects listed at most per run (default 10,000). */
  maxListedObjects: number;
  /** Rows of each kind handled at most per run (default 200). */
  maxRows: number;
}

export const DEFAULT_RECONCILE_LIMITS: ReconcileLimits = {
  multipartMaxAgeMs: 60 * 60 * 1000,
  orphanGraceMs: 60 * 60 * 1000,
  stuckAfterMs: 30 * 60 * 1000,
  maxRequeues: 2,
  maxListedObjects: 10_000,
  maxRows: 200,
};

/** What one run did; `errors` names each step that failed (the other steps still ran). */
export interface ReconcileReport {
  abortedMultipartUploads: number;
  deletedOrphans: number;
  requeuedUploads: number;
  failedUploads: number;
  requeuedJobs: number;
  failedJobs: number;
  errors: string[];
}

type ReconcileApp = Pick<AppServices, "db" | "bindings" | "env">;

/** D1 allows 100 bound parameters per statement. */
const CHUNK = 90;
/** reconcile_requeues rows untouched for this long are dropped. */
const REQUEUE_RECORD_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export const STUCK_UPLOAD_REASON =
  "Text extraction did not finish after repeated attempts. Please upload the PDF again.";
export const DEAD_LETTER_UPLOAD_REASON =
  "The PDF could not be processed: its processing job failed on every retry. Please upload it again.";

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Adds one re-enqueue to an item's count atomically and returns the new count. */
async function countRequeue(
  app: ReconcileApp,
  kind: "upload" | "meta-analysis",
  itemId: string,
  now: number,
): Promise<number> {
  const [row] = await app.db
    .insert(reconcileRequeues)
    .values({ kind, itemId, count: 1, updatedAt: now })
    .onConflictDoUpdate({
      target: [reconcileRequeues.kind, reconcileRequeues.itemId],
      set: { count: sql`${reconcileRequeues.count} + 1`, updatedAt: now },
    })
    .returning({ count: reconcileRequeues.count });
  return row!.count;
}

async function requeueCount(app: ReconcileApp, kind: "upload" | "meta-analysis", itemId: string): Promise<number> {
  const [row] = await app.db
    .select({ count: reconcileRequeues.count })
    .from(reconcileRequeues)
    .where(and(eq(reconcileRequeues.kind, kind), eq(reconcileRequeues.itemId, itemId)));
  return row?.count ?? 0;
}

/** Aborts multipart uploads recorded more than `multipartMaxAgeMs` ago; returns how many. */
export async function abortStaleMultipartUploads(
  app: ReconcileApp,
  now: number,
  limits: ReconcileLimits,
): Promise<number> {
  const stale = await app.db
    .select()
    .from(pendingMultipartUploads)
    .where(lt(pendingMultipartUploads.createdAt, now - limits.multipartMaxAgeMs))
    .limit(limits.maxRows);
  let aborted = 0;
  for (const row of stale) {
    try {
      await app.bindings.BUCKET.resumeMultipartUpload(row.r2Key, row.uploadId).abort();
      aborted++;
    } catch (error) {
      // Already completed or aborted (R2 answers NoSuchUpload): nothing is left to abort.
      console.warn(
        `reconcile: multipart upload ${row.uploadId} of ${row.r2Key} could not be aborted: ${message(error)}`,
      );
    }
    await app.db.delete(pendingMultipartUploads).where(eq(pendingMultipartUploads.uploadId, row.uploadId));
  }
  return aborted;
}

/** Deletes objects under `uploads/` older than the grace period that no upload row refers to. */
export async function deleteOrphanedObjects(app: ReconcileApp, now: number, limits: ReconcileLimits): Promise<number> {
  const bucket = app.bindings.BUCKET;
  const candidates: string[] = [];
  let cursor: string | undefined;
  let listed = 0;
  do {
    const page = await bucket.list({ prefix: UPLOADS_PREFIX, cursor, limit: 1000 });
    listed += page.objects.length;
    for (const object of page.objects) {
      if (object.uploaded.getTime() < now - limits.orphanGraceMs) candidates.push(object.key);
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor && listed < limits.maxListedObjects);

  const orphans: string[] = [];
  for (let i = 0; i < candidates.length; i += CHUNK) {
    const keys = candidates.slice(i, i + CHUNK);
    const held = await app.db
      .select({ key: uploadedStudies.r2Key })
      .from(uploadedStudies)
      .where(inArray(uploadedStudies.r2Key, keys));
    const referenced = new Set(held.map((h) => h.key));
    orphans.push(...keys.filter((k) => !referenced.has(k)));
  }
  for (let i = 0; i < orphans.length; i += 1000) await bucket.delete(orphans.slice(i, i + 1000));
  return orphans.length;
}

/**
 * Re-enqueues uploads stuck in queued/extracting (no update for `stuckAfterMs`) up to
 * `maxRequeues` times each; after that, or when the row has no file, fails them with
 * {@link STUCK_UPLOAD_REASON} and deletes their object.
 */
export async function reconcileStuckUploads(
  app: ReconcileApp,
  now: number,
  limits: ReconcileLimits,
): Promise<{ requeued: number; failed: number }> {
  const stuck = await app.db
    .select({ id: uploadedStudies.id, userId: uploadedStudies.userId, r2Key: uploadedStudies.r2Key })
    .from(uploadedStudies)
    .where(
      and(
        inArray(uploadedStudies.status, ["queued", "extracting"]),
        lt(uploadedStudies.updatedAt, now - limits.stuckAfterMs),
      ),
    )
    .limit(limits.maxRows);
  let requeued = 0;
  let failed = 0;
  const isStuck = (id: number) =>
    and(
      eq(uploadedStudies.id, id),
      inArray(uploadedStudies.status, ["queued", "extracting"]),
      lt(uploadedStudies.updatedAt, now - limits.stuckAfterMs),
    );
  for (const row of stuck) {
    const itemId = String(row.id);
    if (row.r2Key && (await requeueCount(app, "upload", itemId)) < limits.maxRequeues) {
      const claimed = await app.db
        .update(uploadedStudies)
        .set({ status: "queued", progress: 0, stageDetail: null, updatedAt: now })
        .where(isStuck(row.id))
        .returning({ id: uploadedStudies.id });
      if (claimed.length === 0) continue;
      await countRequeue(app, "upload", itemId, now);
      await app.bindings.JOBS.send(extractMessageFor(row));
      requeued++;
      continue;
    }
    const done = await app.db
      .update(uploadedStudies)
      .set({
        status: "failed",
        failureCode: "PROCESSING_STUCK",
        failureReason: STUCK_UPLOAD_REASON,
        r2Key: null,
        fullTextContent: null,
        progress: 100,
        stageDetail: null,
        updatedAt: now,
      })
      .where(isStuck(row.id))
      .returning({ id: uploadedStudies.id });
    if (done.length === 0) continue;
    if (row.r2Key) await app.bindings.BUCKET.delete(row.r2Key);
    failed++;
  }
  return { requeued, failed };
}

/**
 * Re-enqueues meta-analysis jobs stuck in queued/running (no update for `stuckAfterMs`) up to
 * `maxRequeues` times each; after that fails them (failJob: the reserved use is given back).
 */
export async function reconcileStuckJobs(
  app: ReconcileApp,
  now: number,
  limits: ReconcileLimits,
): Promise<{ requeued: number; failed: number }> {
  const isStuck = (id: string) =>
    and(
      eq(metaAnalysisJobs.id, id),
      inArray(metaAnalysisJobs.status, ["queued", "running"]),
      lt(metaAnalysisJobs.updatedAt, now - limits.stuckAfterMs),
    );
  const stuck = await app.db
    .select({ id: metaAnalysisJobs.id })
    .from(metaAnalysisJobs)
    .where(
      and(
        inArray(metaAnalysisJobs.status, ["queued", "running"]),
        lt(metaAnalysisJobs.updatedAt, now - limits.stuckAfterMs),
      ),
    )
    .limit(limits.maxRows);
  let requeued = 0;
  let failed = 0;
  for (const row of stuck) {
    const count = await requeueCount(app, "meta-analysis", row.id);
    if (count < limits.maxRequeues) {
      const claimed = await app.db
        .update(metaAnalysisJobs)
        .set({
          status: "queued",
          stage: "queued",
          stageDetail: "Restarted after it stalled",
          progress: 0,
          updatedAt: now,
        })
        .where(isStuck(row.id))
        .returning({ id: metaAnalysisJobs.id });
      if (claimed.length === 0) continue;
      await countRequeue(app, "meta-analysis", row.id, now);
      await app.bindings.JOBS.send({ kind: "meta-analysis", jobId: row.id });
      requeued++;
      continue;
    }
    const [still] = await app.db.select({ id: metaAnalysisJobs.id }).from(metaAnalysisJobs).where(isStuck(row.id));
    if (!still) continue;
    await failJob(app, row.id, `${META_FAILED_MESSAGE} The analysis did not finish after ${count + 1} tries.`);
    failed++;
  }
  return { requeued, failed };
}

/**
 * One reconciliation run (see the module comment). Each step runs even when an earlier one
 * failed; failures are logged and named in `errors`.
 *
 * @param options.now the run's time in epoch ms (the cron's scheduledTime); options.limits
 *   overrides {@link DEFAULT_RECONCILE_LIMITS}.
 */
export async function reconcile(
  app: ReconcileApp,
  options: { now?: number; limits?: Partial<ReconcileLimits> } = {},
): Promise<ReconcileReport> {
  const now = options.now ?? Date.now();
  const limits = { ...DEFAULT_RECONCILE_LIMITS, ...options.limits };
  const report: ReconcileReport = {
    abortedMultipartUploads: 0,
    deletedOrphans: 0,
    requeuedUploads: 0,
    failedUploads: 0,
    requeuedJobs: 0,
    failedJobs: 0,
    errors: [],
  };
  const step = async (name: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      console.error(`reconcile: ${name} failed`, error);
      report.errors.push(`${name}: ${message(error)}`);
    }
  };
  await step("multipart uploads", async () => {
    report.abortedMultipartUploads = await abortStaleMultipartUploads(app, now, limits);
  });
  await step("orphaned objects", async () => {
    report.deletedOrphans = await deleteOrphanedObjects(app, now, limits);
  });
  await step("stuck uploads", async () => {
    const r = await reconcileStuckUploads(app, now, limits);
    report.requeuedUploads = r.requeued;
    report.failedUploads = r.failed;
  });
  await step("stuck meta-analysis jobs", async () => {
    const r = await reconcileStuckJobs(app, now, limits);
    report.requeuedJobs = r.requeued;
    report.failedJobs = r.failed;
  });
  await step("re-enqueue records", async () => {
    await app.db.delete(reconcileRequeues).where(lt(reconcileRequeues.updatedAt, now - REQUEUE_RECORD_TTL_MS));
  });
  return report;
}

const DeadUploadSchema = z.object({
  kind: z.literal("pdf-extract"),
  uploadId: z.number().int().positive(),
  userId: z.string().min(1),
  r2Key: z.string(),
});
const DeadJobSchema = z.object({ kind: z.literal("meta-analysis"), jobId: z.string().min(1) });

/**
 * Marks the row of one dead-lettered message failed with the reason: an upload still queued or
 * extracting becomes 'failed' (code DEAD_LETTER, {@link DEAD_LETTER_UPLOAD_REASON}) and its file
 * is deleted; a meta-analysis job not yet done or failed is failed (its use given back). Rows
 * already finished are left alone; unknown bodies are logged and dropped.
 */
export async function failDeadLetter(app: ReconcileApp, body: unknown): Promise<void> {
  const upload = DeadUploadSchema.safeParse(body);
  if (upload.success) {
    const { uploadId, userId } = upload.data;
    const [row] = await app.db
      .update(uploadedStudies)
      .set({
        status: "failed",
        failureCode: "DEAD_LETTER",
        failureReason: DEAD_LETTER_UPLOAD_REASON,
        r2Key: null,
        fullTextContent: null,
        progress: 100,
        stageDetail: null,
        updatedAt: Date.now(),
      })
      .where(
        and(
          eq(uploadedStudies.id, uploadId),
          eq(uploadedStudies.userId, userId),
          inArray(uploadedStudies.status, ["queued", "extracting"]),
        ),
      )
      .returning({ id: uploadedStudies.id });
    if (row && upload.data.r2Key) await app.bindings.BUCKET.delete(upload.data.r2Key);
    return;
  }
  const job = DeadJobSchema.safeParse(body);
  if (job.success) {
    await failJob(app, job.data.jobId, `${META_FAILED_MESSAGE} The analysis job failed on every retry.`);
    return;
  }
  console.warn("dead-letter: dropping a message of unknown shape");
}

/**
 * Consumes a batch of the dead-letter queue: each message's row is marked failed
 * ({@link failDeadLetter}) and the message acknowledged; when D1 or R2 fails the message is
 * retried so the row is not left behind.
 */
export async function handleDeadLetters(batch: MessageBatch<unknown>, app: ReconcileApp): Promise<void> {
  for (const msg of batch.messages) {
    try {
      await failDeadLetter(app, msg.body);
      msg.ack();
    } catch (error) {
      console.warn(`dead-letter: message ${msg.id} not recorded yet: ${message(error)}`);
      msg.retry({ delaySeconds: 30 });
    }
  }
}
