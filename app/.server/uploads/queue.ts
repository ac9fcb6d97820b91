/**
 * The 'pdf-extract' queue job (issue 6): reads an uploaded PDF from R2, extracts its text with
 * unpdf under page and time limits (fulltext/fetch.ts extractPdfDocument), detects its metadata
 * (metadata.ts) and stores the Uploaded study as 'ready'. While it works the row is 'extracting'
 * with its percent done and what it is doing ("Reading page 3 of 12"), so the list shows progress.
 *
 * A PDF that cannot be read (password-protected or copy-protected, damaged, no text layer,
 * too little text, too slow) fails for good on the first attempt: its R2 object is deleted and
 * the row keeps status 'failed' with the reason, shown in the list until the user deletes it.
 * Other errors (R2 or D1 hiccups) are thrown so the queue retries; on the last attempt the same
 * clean-up runs with a generic reason.
 */
import { and, eq, inArray, ne } from "drizzle-orm";
import { z } from "zod";
import { uploadedStudies } from "../../../db/schema";
import type { AppServices } from "../context";
import { extractPdfDocument, FullTextError } from "../fulltext/fetch";
import type { JobHandler } from "../job-types";
import { detectMetadata } from "./metadata";

/** Pages read at most per PDF; later pages are ignored (the row records pages read of total). */
export const UPLOAD_MAX_PAGES = 60;
/** Time allowed for text extraction, in ms. */
export const UPLOAD_EXTRACT_TIMEOUT_MS = 25_000;
/** Fewest visible characters accepted as the text of a paper. */
export const UPLOAD_MIN_TEXT_CHARS = 1500;
/** Longest stored full text, in characters. */
export const MAX_FULLTEXT_CHARS = 400_000;
/** Least time between two progress writes while pages are read, in ms (the first and last page always write). */
export const PROGRESS_WRITE_INTERVAL_MS = 250;

/**
 * Percent done of an upload's processing at each step: the file read from R2, pages read
 * (from `opening` to `pagesTo`, page by page), metadata detected; 100 when ready or failed.
 */
export const UPLOAD_PROGRESS = { reading: 5, opening: 10, pagesTo: 85, metadata: 90 } as const;

const MessageSchema = z.object({
  kind: z.literal("pdf-extract"),
  uploadId: z.number().int().positive(),
  userId: z.string().min(1),
  r2Key: z.string().min(1),
});

type JobApp = Pick<AppServices, "db" | "bindings">;

/** A failure that retrying cannot fix. */
class PermanentFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Marks the row failed with `reason` and deletes its R2 object (the row is the only trace left). */
async function recordFailure(
  app: JobApp,
  msg: z.infer<typeof MessageSchema>,
  code: string,
  reason: string,
): Promise<void> {
  await app.bindings.BUCKET.delete(msg.r2Key);
  await app.db
    .update(uploadedStudies)
    .set({
      status: "failed",
      failureCode: code,
      failureReason: reason,
      r2Key: null,
      fullTextContent: null,
      progress: 100,
      stageDetail: null,
      updatedAt: Date.now(),
    })
    .where(and(eq(uploadedStudies.id, msg.uploadId), eq(uploadedStudies.userId, msg.userId)));
}

/**
 * Extracts one upload (see the module comment). Idempotent: a row that is already ready or
 * failed is left alone; for a row that no longer exists (deleted meanwhile) the object is
 * removed unless another upload refers to its key.
 */
export async function extractUpload(app: JobApp, body: unknown, attempt: { isLastAttempt: boolean }): Promise<void> {
  const parsed = MessageSchema.safeParse(body);
  if (!parsed.success) {
    console.warn("pdf-extract: dropping a malformed message", parsed.error.issues[0]?.message);
    return;
  }
  const msg = parsed.data;
  try {
    const [row] = await app.db
      .select({
        id: uploadedStudies.id,
        status: uploadedStudies.status,
        fileName: uploadedStudies.fileName,
        r2Key: uploadedStudies.r2Key,
      })
      .from(uploadedStudies)
      .where(and(eq(uploadedStudies.id, msg.uploadId), eq(uploadedStudies.userId, msg.userId)))
      .limit(1);
    if (!row || row.r2Key !== msg.r2Key) {
      // A stale message (the upload was deleted meanwhile): its object goes too, unless an upload
      // still refers to that key.
      const [holder] = await app.db
        .select({ id: uploadedStudies.id })
        .from(uploadedStudies)
        .where(eq(uploadedStudies.r2Key, msg.r2Key))
        .limit(1);
      if (!holder) await app.bindings.BUCKET.delete(msg.r2Key);
      return;
    }
    if (row.status === "ready" || row.status === "failed") return;
    /** Writes the stage of a row still extracting (a row deleted or failed meanwhile is left alone). */
    const stage = (progress: number, detail: string) =>
      app.db
        .update(uploadedStudies)
        .set({ status: "extracting", progress: Math.round(progress), stageDetail: detail, updatedAt: Date.now() })
        .where(and(eq(uploadedStudies.id, row.id), inArray(uploadedStudies.status, ["queued", "extracting"])));
    await stage(UPLOAD_PROGRESS.reading, "Reading the file");

    const object = await app.bindings.BUCKET.get(msg.r2Key);
    if (!object)
      throw new PermanentFailure("FILE_MISSING", "The uploaded file is no longer stored; please upload it again.");
    const bytes = new Uint8Array(await object.arrayBuffer());
    await stage(UPLOAD_PROGRESS.opening, "Opening the PDF");

    const signal = AbortSignal.timeout(UPLOAD_EXTRACT_TIMEOUT_MS);
    let lastWrite = 0;
    const onPage = async (read: number, pages: number) => {
      // PDF.js parses in one long chain of promises; a macrotask turn lets the isolate answer
      // other requests (the page polling this row) between pages.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const now = Date.now();
      if (read !== 1 && read !== pages && now - lastWrite < PROGRESS_WRITE_INTERVAL_MS) return;
      lastWrite = now;
      const span = UPLOAD_PROGRESS.pagesTo - UPLOAD_PROGRESS.opening;
      await stage(UPLOAD_PROGRESS.opening + (span * read) / pages, `Reading page ${read} of ${pages}`);
    };
    let doc;
    try {
      doc = await extractPdfDocument(bytes, { maxPages: UPLOAD_MAX_PAGES, signal, onPage });
    } catch (error) {
      if (error instanceof FullTextError) throw new PermanentFailure(error.code, error.message);
      if (signal.aborted) {
        throw new PermanentFailure(
          "TIMEOUT",
          `Text extraction did not finish within ${UPLOAD_EXTRACT_TIMEOUT_MS / 1000} seconds.`,
        );
      }
      throw error;
    }
    const visible = doc.text.replace(/\s+/g, "").length;
    if (visible < UPLOAD_MIN_TEXT_CHARS) {
      throw new PermanentFailure(
        "TOO_SHORT",
        `This PDF has only ${visible} characters of readable text, too little to be a paper (it may be damaged).`,
      );
    }
    await stage(UPLOAD_PROGRESS.metadata, "Finding the title, authors and DOI");
    const meta = detectMetadata({ text: doc.text, firstPage: doc.firstPage, info: doc.info, fileName: row.fileName });
    const updated = await app.db
      .update(uploadedStudies)
      .set({
        status: "ready",
        progress: 100,
        stageDetail: null,
        failureCode: null,
        failureReason: null,
        title: meta.title,
        authors: meta.authors,
        journal: meta.journal,
        publicationDate: meta.publicationDate,
        doi: meta.doi,
        abstract: meta.abstract,
        keywords: meta.keywords,
        studyType: meta.studyType,
        fullTextContent: doc.text.slice(0, MAX_FULLTEXT_CHARS),
        pagesRead: doc.pages,
        totalPages: doc.totalPages,
        updatedAt: Date.now(),
      })
      .where(and(eq(uploadedStudies.id, row.id), ne(uploadedStudies.status, "failed")))
      .returning({ id: uploadedStudies.id });
    // Deleted while extracting: make sure the object goes too.
    if (updated.length === 0) await app.bindings.BUCKET.delete(msg.r2Key);
  } catch (error) {
    if (error instanceof PermanentFailure) {
      console.warn(`pdf-extract: upload ${msg.uploadId} failed: ${error.code} ${error.message}`);
      await recordFailure(app, msg, error.code, error.message);
      return;
    }
    if (attempt.isLastAttempt) {
      await recordFailure(
        app,
        msg,
        "PROCESSING_FAILED",
        "The PDF could not be processed. Please try uploading it again.",
      ).catch((cleanup: unknown) => console.error("pdf-extract: could not record a failure", cleanup));
    }
    throw error;
  }
}

/** Extracts an uploaded PDF (message body {@link PdfExtractMessage} from service.ts). */
export const pdfExtractJobHandler: JobHandler = (body, app, attempt) => extractUpload(app, body, attempt);
