/**
 * The D1 record of R2 multipart uploads in flight (pending_multipart_uploads), written by
 * streamPdfToR2 through {@link d1MultipartTracker} and read by the scheduled reconciliation.
 */
import { eq } from "drizzle-orm";
import { pendingMultipartUploads } from "../../../db/schema";
import type { Database } from "../db/client";
import type { MultipartTracker } from "./storage";

/** A tracker that inserts a row when a multipart upload starts and deletes it when it ends. */
export function d1MultipartTracker(db: Database, now: () => number = Date.now): MultipartTracker {
  return {
    async started(key, uploadId) {
      await db.insert(pendingMultipartUploads).values({ uploadId, r2Key: key, createdAt: now() });
    },
    async ended(uploadId) {
      await db.delete(pendingMultipartUploads).where(eq(pendingMultipartUploads.uploadId, uploadId));
    },
  };
}
