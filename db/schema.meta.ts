/**
 * D1 tables for the meta area. Re-exported by db/schema.ts (drizzle-kit reads that file).
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./schema";

const now = sql`(unixepoch('subsec') * 1000)`;

/**
 * Queued meta-analysis jobs (POST /api/meta-analysis/enhanced → queue → GET
 * /api/meta-analysis/jobs/{id}). Owned by a user (`user_id`) or, for guests, by the signed device
 * cookie (`device_key`); exactly one of the two is set. `request` is the validated request body,
 * `result` the MetaAnalysisJobResult once done, `meter` how to settle the reserved AI use (see
 * app/.server/billing/metering.ts ReservationTicket), `attempts` the queue deliveries so far.
 */
export const metaAnalysisJobs = sqliteTable(
  "meta_analysis_jobs",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    deviceKey: text("device_key"),
    status: text("status", { enum: ["queued", "running", "done", "failed"] })
      .notNull()
      .default("queued"),
    progress: integer("progress").notNull().default(0),
    /** The job's stage (app/lib/meta-analysis/types.ts JOB_STAGES), written by the queue consumer as it works. */
    stage: text("stage", { enum: ["queued", "extracting", "pooling", "writing", "done", "failed"] })
      .notNull()
      .default("queued"),
    /** What the stage is doing, in words ("Study 2 of 5: …"); null when there is nothing to add. */
    stageDetail: text("stage_detail"),
    error: text("error"),
    request: text("request", { mode: "json" }).$type<unknown>().notNull(),
    result: text("result", { mode: "json" }).$type<unknown>(),
    meter: text("meter", { mode: "json" }).$type<unknown>(),
    attempts: integer("attempts").notNull().default(0),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
    updatedAt: integer("updated_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    index("meta_analysis_jobs_user_idx").on(t.userId, t.createdAt),
    index("meta_analysis_jobs_device_idx").on(t.deviceKey, t.createdAt),
  ],
);

export type MetaAnalysisJobRow = typeof metaAnalysisJobs.$inferSelect;
