/**
 * Uploaded studies (SPEC §2 Upload page, §3 Uploaded study, §7 Uploads; issue 6): PDFs streamed
 * to R2 per user, extracted by a queue job (queue.ts), listed, summarised, analysed and deleted.
 *
 * Storage invariant: a row in `uploaded_studies` with status queued/extracting/ready owns exactly
 * one R2 object (`r2Key`); a failed extraction deletes the object and keeps only the row with
 * status 'failed' and its reason, which the user sees in the list until they delete it. A file
 * refused at upload time (not a PDF, too large, empty) leaves neither an object nor a row.
 */
import { and, desc, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { uploadedStudies, type UploadedStudyRow, type UserRow } from "../../../db/schema";
import type { AppServices } from "../context";
import { AppError, describeZodError } from "../http/errors";
import { readMultipart, multipartBoundary, MultipartError } from "./multipart";
import { d1MultipartTracker } from "./pending-multipart";
import { FileRejectedError, MAX_UPLOAD_BYTES, streamPdfToR2 } from "./storage";

/** Most files per upload request (SPEC §5, §9: "at most 10 files per drop"). */
export const MAX_FILES_PER_UPLOAD = 10;
/** The multipart field that carries the files (SPEC §7: repeated field 'pdfs'). */
export const UPLOAD_FIELD = "pdfs";
/** SPEC §8 Pro reason. */
export const PDF_UPLOAD_PRO_MESSAGE = "PDF upload requires Professional subscription";

type UploadsApp = Pick<AppServices, "db" | "bindings" | "env" | "waitUntil">;

/** The queue message of one extraction job (dispatch.ts routes kind 'pdf-extract' to queue.ts). */
export interface PdfExtractMessage {
  kind: "pdf-extract";
  uploadId: number;
  userId: string;
  r2Key: string;
}

/** The extraction message for a stored upload row. */
export function extractMessageFor(row: Pick<UploadedStudyRow, "id" | "userId" | "r2Key">): PdfExtractMessage {
  return { kind: "pdf-extract", uploadId: row.id, userId: row.userId, r2Key: row.r2Key ?? "" };
}

/** One file's outcome in the upload response (SPEC §7: results with success flags). */
export interface UploadResult {
  fileName: string;
  success: boolean;
  /** Bytes received (for refused files: up to where reading stopped). */
  fileSize?: number;
  /** The new uploaded study's id (success only). */
  id?: number;
  status?: "queued";
  /** What happened, in words. */
  message: string;
  /** Machine code of a refusal: NOT_PDF, FILE_TOO_LARGE, EMPTY_FILE. */
  error?: string;
}

/** The R2 key of a new upload: per user, random. */
function newKey(userId: string): string {
  return `uploads/${userId}/${crypto.randomUUID()}.pdf`;
}

/** Whether a part's declared type and name allow a PDF (the bytes are checked while streaming). */
function declaredPdf(contentType: string, fileName: string): boolean {
  if (contentType === "application/pdf" || contentType === "application/x-pdf") return true;
  return (contentType === "" || contentType === "application/octet-stream") && /\.pdf$/i.test(fileName);
}

/** The file name as stored: path parts and control characters removed, at most 255 characters. */
function safeFileName(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? "";
  const cleaned = base
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, 255);
  return cleaned || "upload.pdf";
}

/**
 * POST /api/upload-pdfs: streams every file of the multipart field 'pdfs' to R2 (never the whole
 * file in memory; see storage.ts), then records one queued row per stored file and enqueues one
 * 'pdf-extract' job each.
 *
 * Checks, in order: 403 PRO_REQUIRED {feature:'pdf_upload'} unless Professional; 400
 * INVALID_MULTIPART when the body is not multipart/form-data (or is malformed, in which case
 * every file stored so far is deleted); 413 REQUEST_TOO_LARGE for a declared Content-Length beyond
 * 10 × 50 MB; 400 TOO_MANY_FILES at the 11th file (everything stored is deleted); 400 NO_FILES
 * when no file arrived. Per file: the declared type must be application/pdf (or a .pdf name with
 * no specific type) and the bytes must start with %PDF (415-class NOT_PDF), at most 50 MB
 * (413-class FILE_TOO_LARGE), not empty.
 *
 * @returns 200 `{results: UploadResult[]}` when at least one file was stored; otherwise the status
 *   of the first refusal (413, 415 or 400) with `{error, message, results}`.
 */
export async function uploadPdfs(
  app: UploadsApp,
  { user, request }: { user: UserRow; request: Request },
): Promise<Response> {
  if (user.plan !== "pro") throw new AppError("PRO_REQUIRED", PDF_UPLOAD_PRO_MESSAGE, 403, { feature: "pdf_upload" });
  const boundary = multipartBoundary(request.headers.get("Content-Type"));
  if (!boundary || !request.body) {
    throw new AppError("INVALID_MULTIPART", "Send the PDFs as multipart/form-data in the field 'pdfs'.", 400);
  }
  const declared = Number(request.headers.get("Content-Length"));
  if (Number.isFinite(declared) && declared > MAX_FILES_PER_UPLOAD * MAX_UPLOAD_BYTES + 1024 * 1024) {
    throw new AppError(
      "REQUEST_TOO_LARGE",
      `An upload may carry at most ${MAX_FILES_PER_UPLOAD} PDFs of 50 MB each.`,
      413,
    );
  }

  const bucket = app.bindings.BUCKET;
  const stored: { key: string; fileName: string; fileSize: number; index: number }[] = [];
  const results: (UploadResult & { status?: "queued" })[] = [];
  const rejections: FileRejectedError[] = [];
  const removeStored = () => (stored.length ? bucket.delete(stored.map((s) => s.key)) : Promise.resolve());
  let files = 0;

  try {
    for await (const part of readMultipart(request.body, boundary)) {
      if (part.fileName === null || part.name !== UPLOAD_FIELD) continue; // other fields are skipped
      files++;
      if (files > MAX_FILES_PER_UPLOAD) {
        throw new AppError("TOO_MANY_FILES", `At most ${MAX_FILES_PER_UPLOAD} PDFs can be uploaded at once.`, 400);
      }
      const fileName = safeFileName(part.fileName);
      if (!declaredPdf(part.contentType, fileName)) {
        const error = new FileRejectedError(
          "NOT_PDF",
          `${fileName} is not a PDF (${part.contentType || "unknown type"}); only PDF files are accepted.`,
          415,
        );
        rejections.push(error);
        results.push({ fileName, success: false, error: error.code, message: error.message });
        continue;
      }
      const key = newKey(user.id);
      try {
        const fileSize = await streamPdfToR2(bucket, key, part.body, { fileName, tracker: d1MultipartTracker(app.db) });
        stored.push({ key, fileName, fileSize, index: results.length });
        results.push({
          fileName,
          fileSize,
          success: true,
          status: "queued",
          message: "Uploaded; text extraction is queued.",
        });
      } catch (error) {
        if (!(error instanceof FileRejectedError)) throw error;
        rejections.push(error);
        results.push({ fileName, success: false, error: error.code, message: error.message });
      }
    }
  } catch (error) {
    await removeStored();
    if (error instanceof MultipartError) throw new AppError("INVALID_MULTIPART", error.message, 400);
    throw error;
  }

  if (files === 0)
    throw new AppError("NO_FILES", `No files were uploaded: send PDFs in the multipart field '${UPLOAD_FIELD}'.`, 400);
  if (stored.length === 0) {
    const first = rejections[0]!;
    return Response.json({ error: first.code, message: first.message, results }, { status: first.status });
  }

  let rows: UploadedStudyRow[] = [];
  try {
    rows = await app.db
      .insert(uploadedStudies)
      .values(
        stored.map((s) => ({
          userId: user.id,
          r2Key: s.key,
          fileName: s.fileName,
          fileSize: s.fileSize,
          status: "queued" as const,
          title: s.fileName.replace(/\.pdf$/i, ""),
        })),
      )
      .returning();
    await app.bindings.JOBS.sendBatch(rows.map((row) => ({ body: extractMessageFor(row) })));
  } catch (error) {
    if (rows.length)
      await app.db
        .delete(uploadedStudies)
        .where(
          inArray(
            uploadedStudies.id,
            rows.map((r) => r.id),
          ),
        )
        .catch(() => undefined);
    await removeStored();
    throw error;
  }
  rows.forEach((row, i) => {
    const result = results[stored[i]!.index]!;
    result.id = row.id;
  });
  return Response.json({ results }, { headers: { "Cache-Control": "no-store" } });
}

/** An uploaded study as the API returns it (SPEC §3 Uploaded study plus processing status). */
export interface ApiUploadedStudy {
  id: number;
  title: string;
  authors: string[];
  fileName: string;
  /** Bytes. */
  fileSize: number;
  /** ISO 8601. */
  uploadedAt: string;
  status: UploadedStudyRow["status"];
  /** Percent of the processing done, 0–100 (written by the extraction job as it reads pages). */
  progress: number;
  /** What processing is doing, in words ("Reading page 3 of 12"); null when queued or finished. */
  stageDetail: string | null;
  /** Why processing failed (status 'failed'), else null. */
  failureReason: string | null;
  aiSummary: string | null;
  fullTextAnalysis: string | null;
  journal: string | null;
  publicationDate: string | null;
  doi: string | null;
  abstract: string | null;
  /** The extracted text: in GET /api/uploaded-studies/{id} only; the list sends null. */
  fullTextContent: string | null;
  /** Characters of extracted text. */
  fullTextLength: number;
  journalImpactFactor: number | null;
  meshTerms: string[];
  keywords: string[];
  studyType: string | null;
  pagesRead: number | null;
  totalPages: number | null;
}

/** The API shape of a row; `withText` includes fullTextContent. */
export function toApiUploadedStudy(row: UploadedStudyRow, withText = false): ApiUploadedStudy {
  return {
    id: row.id,
    title: row.title,
    authors: row.authors ?? [],
    fileName: row.fileName,
    fileSize: row.fileSize,
    uploadedAt: new Date(row.uploadedAt).toISOString(),
    status: row.status,
    progress: row.progress,
    stageDetail: row.stageDetail,
    failureReason: row.failureReason,
    aiSummary: row.aiSummary,
    fullTextAnalysis: row.fullTextAnalysis,
    journal: row.journal,
    publicationDate: row.publicationDate,
    doi: row.doi,
    abstract: row.abstract,
    fullTextContent: withText ? row.fullTextContent : null,
    fullTextLength: row.fullTextContent?.length ?? 0,
    journalImpactFactor: row.journalImpactFactor,
    meshTerms: row.meshTerms ?? [],
    keywords: row.keywords ?? [],
    studyType: row.studyType,
    pagesRead: row.pagesRead,
    totalPages: row.totalPages,
  };
}

/**
 * The user's uploaded studies, newest first (GET /api/uploaded-studies). The full texts stay in
 * D1 (only their length is read): the page polls this list while uploads are processed.
 */
export async function listUploadedStudies(
  app: Pick<AppServices, "db">,
  { userId }: { userId: string },
): Promise<ApiUploadedStudy[]> {
  const { fullTextContent: _text, ...columns } = getTableColumns(uploadedStudies);
  const rows = await app.db
    .select({ ...columns, fullTextLength: sql<number | null>`length(${uploadedStudies.fullTextContent})` })
    .from(uploadedStudies)
    .where(eq(uploadedStudies.userId, userId))
    .orderBy(desc(uploadedStudies.uploadedAt), desc(uploadedStudies.id));
  return rows.map(({ fullTextLength, ...row }) => ({
    ...toApiUploadedStudy({ ...row, fullTextContent: null }),
    fullTextLength: fullTextLength ?? 0,
  }));
}

/**
 * One of the user's uploaded studies.
 * @throws AppError 404 UPLOAD_NOT_FOUND for an unknown id or another user's study.
 */
export async function getUploadedStudy(
  app: Pick<AppServices, "db">,
  { userId, id }: { userId: string; id: number },
): Promise<UploadedStudyRow> {
  const [row] = await app.db
    .select()
    .from(uploadedStudies)
    .where(and(eq(uploadedStudies.id, id), eq(uploadedStudies.userId, userId)))
    .limit(1);
  if (!row) throw new AppError("UPLOAD_NOT_FOUND", "Uploaded study not found", 404);
  return row;
}

/**
 * Parses a path id.
 * @throws AppError 400 INVALID_UPLOAD_ID unless a positive integer.
 */
export function parseUploadId(raw: string | undefined): number {
  const id = Number(raw);
  if (!raw || !/^\d{1,15}$/.test(raw) || !Number.isSafeInteger(id) || id <= 0) {
    throw new AppError("INVALID_UPLOAD_ID", "The uploaded study id must be a positive integer.", 400);
  }
  return id;
}

const StudyIdsSchema = z.object(
  {
    studyIds: z
      .array(z.coerce.number().int().positive(), { error: "studyIds must be an array of ids" })
      .min(1, "No studies selected")
      .max(100, "At most 100 studies at once"),
  },
  { error: "The body must be a JSON object" },
);

/**
 * Parses `{studyIds}` (1–100 positive integers; duplicates removed).
 * @throws AppError 400 NO_STUDIES when empty or missing, 400 INVALID_INPUT otherwise.
 */
export function parseStudyIds(body: unknown): number[] {
  const ids = (body as { studyIds?: unknown } | null)?.studyIds;
  if (ids === undefined || (Array.isArray(ids) && ids.length === 0))
    throw new AppError("NO_STUDIES", "No studies selected", 400);
  const result = StudyIdsSchema.safeParse(body);
  if (!result.success) throw new AppError("INVALID_INPUT", describeZodError(result.error), 400);
  return [...new Set(result.data.studyIds)];
}

/**
 * Deletes one of the user's uploaded studies: its R2 object first, then its row, so a failure
 * never leaves a row pointing at nothing or an object without a row (a retried delete finishes
 * the job).
 * @throws AppError 404 UPLOAD_NOT_FOUND.
 */
export async function deleteUploadedStudy(
  app: UploadsApp,
  { userId, id }: { userId: string; id: number },
): Promise<void> {
  const row = await getUploadedStudy(app, { userId, id });
  if (row.r2Key) await app.bindings.BUCKET.delete(row.r2Key);
  await app.db.delete(uploadedStudies).where(and(eq(uploadedStudies.id, id), eq(uploadedStudies.userId, userId)));
}

/**
 * Deletes those of `ids` that belong to the user (others are ignored: they are not theirs to
 * delete), objects first then rows.
 * @returns how many studies were deleted.
 */
export async function deleteUploadedStudies(
  app: UploadsApp,
  { userId, ids }: { userId: string; ids: number[] },
): Promise<number> {
  const rows = await app.db
    .select({ id: uploadedStudies.id, r2Key: uploadedStudies.r2Key })
    .from(uploadedStudies)
    .where(and(eq(uploadedStudies.userId, userId), inArray(uploadedStudies.id, ids)));
  if (rows.length === 0) return 0;
  const keys = rows.map((r) => r.r2Key).filter((k): k is string => !!k);
  if (keys.length) await app.bindings.BUCKET.delete(keys);
  await app.db.delete(uploadedStudies).where(
    and(
      eq(uploadedStudies.userId, userId),
      inArray(
        uploadedStudies.id,
        rows.map((r) => r.id),
      ),
    ),
  );
  return rows.length;
}
