/**
 * D1 tables for the uploads area. Re-exported by db/schema.ts (drizzle-kit reads that file).
 */
import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./schema";

const now = sql`(unixepoch('subsec') * 1000)`;

/** Processing states of an uploaded PDF (issue 6): queued → extracting → ready | failed. */
export const UPLOAD_STATUSES = ["queued", "extracting", "ready", "failed"] as const;
export type UploadStatus = (typeof UPLOAD_STATUSES)[number];

/**
 * SPEC §3 Uploaded study: one row per PDF a user uploaded. The file lives in R2 under `r2Key`
 * while the row is queued, extracting or ready; a failed extraction deletes the object and keeps
 * only this row (status 'failed' + reason) until the user deletes it.
 */
export const uploadedStudies = sqliteTable(
  "uploaded_studies",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** R2 object key; null once the object was removed (failed extraction). */
    r2Key: text("r2_key"),
    fileName: text("file_name").notNull(),
    /** Bytes. */
    fileSize: integer("file_size").notNull(),
    status: text("status", { enum: UPLOAD_STATUSES }).notNull().default("queued"),
    /** Percent of the processing done (0–100), written by the extraction job as it reads the PDF. */
    progress: integer("progress").notNull().default(0),
    /** What the job is doing, in words ("Reading page 3 of 12"); null when queued or finished. */
    stageDetail: text("stage_detail"),
    /** Why processing failed, in words (status 'failed'). */
    failureReason: text("failure_reason"),
    /** Machine code of the failure (FullTextErrorCode or PROCESSING_FAILED). */
    failureCode: text("failure_code"),
    title: text("title").notNull(),
    authors: text("authors", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    journal: text("journal"),
    publicationDate: text("publication_date"),
    doi: text("doi"),
    abstract: text("abstract"),
    fullTextContent: text("full_text_content"),
    studyType: text("study_type"),
    keywords: text("keywords", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    meshTerms: text("mesh_terms", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    journalImpactFactor: real("journal_impact_factor"),
    /** Pages whose text was read, and pages in the PDF. */
    pagesRead: integer("pages_read"),
    totalPages: integer("total_pages"),
    aiSummary: text("ai_summary"),
    aiSummaryModel: text("ai_summary_model"),
    fullTextAnalysis: text("full_text_analysis"),
    fullTextAnalysisModel: text("full_text_analysis_model"),
    uploadedAt: integer("uploaded_at", { mode: "number" }).notNull().default(now),
    updatedAt: integer("updated_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("uploaded_studies_user_idx").on(t.userId, t.uploadedAt)],
);

export type UploadedStudyRow = typeof uploadedStudies.$inferSelect;
