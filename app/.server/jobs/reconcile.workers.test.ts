import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  env,
  getQueueResult,
} from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../../workers/app";
import { getLoadContext } from "../context";
import { META_FAILED_MESSAGE } from "../meta-analysis/jobs";
import { d1MultipartTracker } from "../uploads/pending-multipart";
import { R2_PART_BYTES, streamPdfToR2 } from "../uploads/storage";
import { DEAD_LETTER_QUEUE, DEAD_LETTER_UPLOAD_REASON, reconcile, STUCK_UPLOAD_REASON } from "./reconcile";

const HOUR = 60 * 60 * 1000;
type Sent = { body: unknown };

/** The app as the Worker builds it, with a JOBS producer that records what is sent. */
function appWithQueue() {
  const sent: Sent[] = [];
  const jobs = {
    send: async (body: unknown) => void sent.push({ body }),
    sendBatch: async (messages: Sent[]) => void sent.push(...messages),
  };
  const raw = { ...(env as unknown as Record<string, unknown>), JOBS: jobs };
  return { app: getLoadContext(raw as never, { waitUntil: () => {} }).app, sent };
}

let userId: string;
beforeAll(async () => {
  userId = crypto.randomUUID();
  await env.DB.prepare("INSERT INTO users (id, email, password_hash, plan) VALUES (?, ?, 'x', 'pro')")
    .bind(userId, `reconcile-${userId}@metamind.test`)
    .run();
});

const pdf = (size = 2048) => {
  const bytes = new Uint8Array(size).fill(0x20);
  bytes.set(new TextEncoder().encode("%PDF-1.4\n"));
  return bytes;
};

async function insertUpload(status: string, r2Key: string | null, updatedAt: number): Promise<number> {
  const row = await env.DB.prepare(
    "INSERT INTO uploaded_studies (user_id, r2_key, file_name, file_size, status, title, updated_at) VALUES (?, ?, 'a.pdf', 2048, ?, 'a', ?) RETURNING id",
  )
    .bind(userId, r2Key, status, updatedAt)
    .first<{ id: number }>();
  return row!.id;
}

async function uploadRow(id: number) {
  return env.DB.prepare(
    "SELECT status, r2_key AS r2Key, failure_code AS failureCode, failure_reason AS failureReason, updated_at AS updatedAt FROM uploaded_studies WHERE id = ?",
  )
    .bind(id)
    .first<{
      status: string;
      r2Key: string | null;
      failureCode: string | null;
      failureReason: string | null;
      updatedAt: number;
    }>();
}

async function insertJob(status: string, updatedAt: number): Promise<string> {
  const id = crypto.randomUUID();
  await env.DB.prepare(
    "INSERT INTO meta_analysis_jobs (id, user_id, status, request, updated_at) VALUES (?, ?, ?, '{}', ?)",
  )
    .bind(id, userId, status, updatedAt)
    .run();
  return id;
}

async function jobRow(id: string) {
  return env.DB.prepare("SELECT status, error, updated_at AS updatedAt FROM meta_analysis_jobs WHERE id = ?")
    .bind(id)
    .first<{ status: string; error: string | null; updatedAt: number }>();
}

const key = (name: string) => `uploads/${userId}/${name}-${crypto.randomUUID()}.pdf`;

describe("multipart uploads", () => {
  it("streamPdfToR2 records a multipart upload while it is in flight and clears it when complete", async () => {
    const { app } = appWithQueue();
    const seen: number[] = [];
    const tracker = d1MultipartTracker(app.db);
    const watching = {
      started: async (k: string, id: string) => {
        await tracker.started(k, id);
        const n = await env.DB.prepare("SELECT count(*) AS n FROM pending_multipart_uploads WHERE upload_id = ?")
          .bind(id)
          .first<{ n: number }>();
        seen.push(n!.n);
      },
      ended: tracker.ended,
    };
    const target = key("multipart");
    const size = R2_PART_BYTES + 1000;
    await streamPdfToR2(
      env.BUCKET,
      target,
      (async function* () {
        yield pdf(size);
      })(),
      { fileName: "m.pdf", tracker: watching },
    );
    expect(seen).toEqual([1]);
    expect((await env.BUCKET.head(target))?.size).toBe(size);
    const left = await env.DB.prepare("SELECT count(*) AS n FROM pending_multipart_uploads WHERE r2_key = ?")
      .bind(target)
      .first<{ n: number }>();
    expect(left!.n).toBe(0);
  });

  it("aborts a recorded multipart upload older than an hour and keeps a recent one", async () => {
    const { app } = appWithQueue();
    const now = Date.now();
    const staleKey = key("stale");
    const stale = await env.BUCKET.createMultipartUpload(staleKey);
    await stale.uploadPart(1, new Uint8Array(R2_PART_BYTES).fill(1));
    await d1MultipartTracker(app.db, () => now - 2 * HOUR).started(staleKey, stale.uploadId);
    const freshKey = key("fresh");
    const fresh = await env.BUCKET.createMultipartUpload(freshKey);
    await d1MultipartTracker(app.db, () => now - 5 * 60 * 1000).started(freshKey, fresh.uploadId);

    const report = await reconcile(app, { now });
    expect(report.abortedMultipartUploads).toBe(1);
    expect(report.errors).toEqual([]);
    const { results } = await env.DB.prepare("SELECT r2_key AS k FROM pending_multipart_uploads").all<{ k: string }>();
    expect(results.map((r) => r.k)).toContain(freshKey);
    expect(results.map((r) => r.k)).not.toContain(staleKey);
    // The aborted upload can no longer take parts; the recent one still can.
    await expect(
      env.BUCKET.resumeMultipartUpload(staleKey, stale.uploadId).uploadPart(2, new Uint8Array(10)),
    ).rejects.toThrow();
    await expect(
      env.BUCKET.resumeMultipartUpload(freshKey, fresh.uploadId).uploadPart(1, new Uint8Array(10)),
    ).resolves.toBeTruthy();
    await fresh.abort();
  });
});

describe("orphaned objects under uploads/", () => {
  it("deletes objects no row refers to once past the grace period, and nothing else", async () => {
    const { app } = appWithQueue();
    const orphan = key("orphan");
    const held = key("held");
    const elsewhere = `exports/${crypto.randomUUID()}.pdf`;
    for (const k of [orphan, held, elsewhere]) await env.BUCKET.put(k, pdf());
    await insertUpload("ready", held, Date.now());

    const early = await reconcile(app, { now: Date.now() });
    expect(early.deletedOrphans).toBe(0);
    expect(await env.BUCKET.head(orphan)).not.toBeNull();

    const later = await reconcile(app, { now: Date.now() + 2 * HOUR });
    expect(later.errors).toEqual([]);
    expect(later.deletedOrphans).toBeGreaterThanOrEqual(1);
    expect(await env.BUCKET.head(orphan)).toBeNull();
    expect(await env.BUCKET.head(held)).not.toBeNull();
    expect(await env.BUCKET.head(elsewhere)).not.toBeNull();
  });
});

describe("stuck uploads", () => {
  it("re-enqueues an upload stuck in queued or extracting twice, then fails it with the reason and deletes its file", async () => {
    const { app, sent } = appWithQueue();
    let now = Date.now();
    const file = key("stuck");
    await env.BUCKET.put(file, pdf());
    const stuck = await insertUpload("extracting", file, now - HOUR);
    // Updated a minute before the last run below: never stuck in any of them.
    const recent = await insertUpload("queued", key("recent"), now + 2 * HOUR - 60_000);
    const finished = await insertUpload("ready", key("finished"), now - 10 * HOUR);

    for (let round = 1; round <= 2; round++) {
      const report = await reconcile(app, { now });
      expect(report.requeuedUploads).toBe(1);
      expect(await uploadRow(stuck)).toMatchObject({ status: "queued", r2Key: file, updatedAt: now });
      expect(sent).toHaveLength(round);
      expect(sent.at(-1)!.body).toEqual({ kind: "pdf-extract", uploadId: stuck, userId, r2Key: file });
      // Not stuck again until the limit has passed once more.
      expect((await reconcile(app, { now: now + 60_000 })).requeuedUploads).toBe(0);
      now += HOUR;
    }
    const last = await reconcile(app, { now });
    expect(last).toMatchObject({ requeuedUploads: 0, failedUploads: 1 });
    expect(await uploadRow(stuck)).toMatchObject({
      status: "failed",
      r2Key: null,
      failureCode: "PROCESSING_STUCK",
      failureReason: STUCK_UPLOAD_REASON,
    });
    expect(await env.BUCKET.head(file)).toBeNull();
    expect(sent).toHaveLength(2);
    expect((await uploadRow(recent))!.status).toBe("queued");
    expect((await uploadRow(finished))!.status).toBe("ready");
  });
});

describe("stuck meta-analysis jobs", () => {
  it("re-enqueues a job stuck in queued or running twice, then fails it with the reason", async () => {
    const { app, sent } = appWithQueue();
    let now = Date.now();
    const running = await insertJob("running", now - HOUR);
    const done = await insertJob("done", now - 10 * HOUR);
    for (let round = 1; round <= 2; round++) {
      const report = await reconcile(app, { now });
      expect(report.requeuedJobs).toBe(1);
      expect(await jobRow(running)).toMatchObject({ status: "queued", updatedAt: now });
      expect(sent.at(-1)!.body).toEqual({ kind: "meta-analysis", jobId: running });
      now += HOUR;
    }
    expect(await reconcile(app, { now })).toMatchObject({ failedJobs: 1, requeuedJobs: 0 });
    const failed = await jobRow(running);
    expect(failed!.status).toBe("failed");
    expect(failed!.error).toContain(META_FAILED_MESSAGE);
    expect(failed!.error).toContain("did not finish after 3 tries");
    expect((await jobRow(done))!.status).toBe("done");
  });
});

describe("the Worker's queue and scheduled handlers", () => {
  it("a dead-letter batch marks its upload and its job failed with the reason and acknowledges every message", async () => {
    const file = key("dead");
    await env.BUCKET.put(file, pdf());
    const upload = await insertUpload("queued", file, Date.now());
    const job = await insertJob("running", Date.now());
    const batch = createMessageBatch(DEAD_LETTER_QUEUE, [
      {
        id: "m1",
        timestamp: Date.now(),
        attempts: 1,
        body: { kind: "pdf-extract", uploadId: upload, userId, r2Key: file },
      },
      { id: "m2", timestamp: Date.now(), attempts: 1, body: { kind: "meta-analysis", jobId: job } },
      { id: "m3", timestamp: Date.now(), attempts: 1, body: { kind: "something-else" } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env as never, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["m1", "m2", "m3"]);
    expect(result.retryMessages).toEqual([]);
    expect(await uploadRow(upload)).toMatchObject({
      status: "failed",
      r2Key: null,
      failureCode: "DEAD_LETTER",
      failureReason: DEAD_LETTER_UPLOAD_REASON,
    });
    expect(await env.BUCKET.head(file)).toBeNull();
    const failed = await jobRow(job);
    expect(failed!.status).toBe("failed");
    expect(failed!.error).toContain("failed on every retry");
  });

  it("the cron's scheduled handler runs the reconciliation", async () => {
    const orphan = key("cron-orphan");
    await env.BUCKET.put(orphan, pdf());
    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ scheduledTime: Date.now() + 2 * HOUR, cron: "*/15 * * * *" }),
      env as never,
      ctx,
    );
    expect(await env.BUCKET.head(orphan)).toBeNull();
  });
});
