/**
 * D1 tables of the scheduled reconciliation (issue 11 item 6). Re-exported by db/schema.ts.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

const now = sql`(unixepoch('subsec') * 1000)`;

/**
 * R2 multipart uploads in flight. R2 has no "list multipart uploads" in Workers, so each one is
 * recorded when it starts and removed when it is completed or aborted; a row older than an hour
 * is an upload a crash left behind, which the reconciler aborts.
 */
export const pendingMultipartUploads = sqliteTable(
  "pending_multipart_uploads",
  {
    uploadId: text("upload_id").primaryKey(),
    r2Key: text("r2_key").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("pending_multipart_uploads_created_idx").on(t.createdAt)],
);

/**
 * How often the reconciler re-enqueued a stuck item: `kind` 'upload' (uploaded_studies.id) or
 * 'meta-analysis' (meta_analysis_jobs.id). Bounds the re-enqueues before the item is failed.
 */
export const reconcileRequeues = sqliteTable(
  "reconcile_requeues",
  {
    kind: text("kind", { enum: ["upload", "meta-analysis"] }).notNull(),
    itemId: text("item_id").notNull(),
    count: integer("count").notNull().default(0),
    updatedAt: integer("updated_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.kind, t.itemId] })],
);
