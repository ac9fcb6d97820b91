/**
 * Full texts of review records (issue 13, full-text screening): attach a PDF the reviewer
 * uploads, or fetch the open-access copy through the existing pipeline (Unpaywall / Europe PMC
 * look-up, then the guarded full-text download and PDF text extraction); download it back.
 */
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { reviewRecords, studies, type UserRow } from "../../../db/schema";
import type { AppServices } from "../context";
import { extractPdfText, fetchFullText, FullTextError, hasPdfMagic } from "../fulltext/fetch";
import { AppError } from "../http/errors";
import { lookupStudy } from "../openaccess/service";
import { allowedHosts } from "../fulltext/study-analysis";
import { requireRecord, requireReview, reviewObjectPrefix } from "./service";

/** Largest PDF attached to a record, in bytes. */
export const MAX_FULLTEXT_PDF_BYTES = 20 * 1024 * 1024;
/** Characters of extracted text kept per record (what the meta-analysis extraction reads). */
export const MAX_FULLTEXT_CHARS = 200_000;

export const FullTextRequestSchema = z.object({
  source: z.literal("open_access", { error: "source must be 'open_access'" }),
});

type FullTextApp = Pick<AppServices, "db" | "bindings" | "env" | "fetch">;

/** What the record's full text now is. */
export interface AttachedFullText {
  recordId: number;
  attached: true;
  kind: "pdf" | "html" | "text";
  url: string | null;
  characters: number;
}

async function store(
  app: FullTextApp,
  record: { id: number; fullTextKey: string | null },
  set: { fullTextKey: string | null; fullTextUrl: string | null; fullText: string | null },
  newKey: string | null,
): Promise<void> {
  try {
    await app.db.update(reviewRecords).set(set).where(eq(reviewRecords.id, record.id));
  } catch (error) {
    if (newKey)
      await app.bindings.BUCKET.delete(newKey).catch((e: unknown) =>
        console.error("orphaned full-text PDF not removed", newKey, e),
      );
    throw error;
  }
  if (record.fullTextKey && record.fullTextKey !== newKey) {
    await app.bindings.BUCKET.delete(record.fullTextKey).catch((e: unknown) =>
      console.error("replaced full-text PDF not removed", record.fullTextKey, e),
    );
  }
}

/**
 * Attaches a PDF (multipart field `file`, ≤ 20 MB) to a record: stored in R2 under the user's
 * prefix, its text extracted (a PDF without a text layer is still attached, with no text).
 * @throws AppError 404; 400 INVALID_MULTIPART / NO_FILE; 413 FILE_TOO_LARGE; 415 NOT_PDF.
 */
export async function attachPdf(
  app: FullTextApp,
  {
    user,
    reviewId,
    recordId,
    request,
  }: { user: UserRow; reviewId: string | undefined; recordId: string | undefined; request: Request },
): Promise<AttachedFullText> {
  const review = await requireReview(app, { userId: user.id, reviewId }, "write");
  const record = await requireRecord(app, review, recordId);
  const declared = Number(request.headers.get("Content-Length"));
  if (Number.isFinite(declared) && declared > MAX_FULLTEXT_PDF_BYTES + 64 * 1024) {
    throw new AppError("FILE_TOO_LARGE", "PDFs can be at most 20 MB.", 413);
  }
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw new AppError("INVALID_MULTIPART", "Send the PDF as multipart/form-data in the field 'file'.", 400);
  }
  const file = form.get("file");
  if (!(file instanceof File)) throw new AppError("NO_FILE", "Attach the PDF in the field 'file'.", 400);
  if (file.size > MAX_FULLTEXT_PDF_BYTES) throw new AppError("FILE_TOO_LARGE", "PDFs can be at most 20 MB.", 413);
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (!hasPdfMagic(bytes)) throw new AppError("NOT_PDF", "The file is not a PDF.", 415);
  let text: string | null = null;
  try {
    text = (await extractPdfText(bytes.slice())).text.slice(0, MAX_FULLTEXT_CHARS);
  } catch (error) {
    if (!(error instanceof FullTextError)) throw error;
    console.warn(`review record ${record.id}: PDF attached without text (${error.code})`);
  }
  const key = `${reviewObjectPrefix(review.userId, review.id)}${record.id}-${crypto.randomUUID()}.pdf`;
  await app.bindings.BUCKET.put(key, bytes, {
    httpMetadata: { contentType: "application/pdf" },
    customMetadata: { fileName: file.name.slice(0, 200) },
  });
  await store(app, record, { fullTextKey: key, fullTextUrl: null, fullText: text }, key);
  return { recordId: record.id, attached: true, kind: "pdf", url: null, characters: text?.length ?? 0 };
}

/**
 * Fetches the record's open-access copy: the URL from Unpaywall (DOI) or Europe PMC (DOI/PMID) or
 * the stored search record, then the text through fetchFullText (15 MB, 15 s, public hosts only).
 * @throws AppError 404; 422 NO_OPEN_ACCESS (no free copy known) / FULLTEXT_UNAVAILABLE {reason, reasonCode}.
 */
export async function fetchOpenAccessFullText(
  app: FullTextApp,
  { user, reviewId, recordId }: { user: UserRow; reviewId: string | undefined; recordId: string | undefined },
): Promise<AttachedFullText> {
  const review = await requireReview(app, { userId: user.id, reviewId }, "write");
  const record = await requireRecord(app, review, recordId);
  const [study] = record.studyId
    ? await app.db
        .select({ openAccessUrl: studies.openAccessUrl, isOpenAccess: studies.isOpenAccess, pmcid: studies.pmcid })
        .from(studies)
        .where(eq(studies.id, record.studyId))
    : [];
  let url = study?.openAccessUrl ?? null;
  if (record.doi || record.pmid) {
    const found = await lookupStudy(
      { db: app.db, fetch: app.fetch, kv: app.bindings.KV, env: app.env },
      {
        id: record.studyId ?? 0,
        doi: record.doi,
        pmid: record.pmid,
        isOpenAccess: study?.isOpenAccess ?? false,
        openAccessUrl: url,
      },
    );
    url = found.url ?? url;
  }
  if (!url)
    throw new AppError("NO_OPEN_ACCESS", "No open-access copy of this record is known. Upload the PDF instead.", 422);
  let fullText;
  try {
    fullText = await fetchFullText({ fetch: app.fetch }, url, {
      allowHosts: allowedHosts(app.env.FULLTEXT_ALLOW_HOSTS),
    });
  } catch (error) {
    if (error instanceof FullTextError) {
      throw new AppError("FULLTEXT_UNAVAILABLE", `The open-access copy could not be read: ${error.message}`, 422, {
        reason: error.message,
        reasonCode: error.code,
        url,
      });
    }
    throw error;
  }
  const text = fullText.text.slice(0, MAX_FULLTEXT_CHARS);
  await store(app, record, { fullTextKey: null, fullTextUrl: fullText.finalUrl, fullText: text }, null);
  return { recordId: record.id, attached: true, kind: fullText.kind, url: fullText.finalUrl, characters: text.length };
}

/**
 * The attached PDF as a download (Content-Disposition attachment, never rendered at our origin),
 * or, without a PDF, the extracted text as text/plain. @throws AppError 404 / NO_FULL_TEXT.
 */
export async function downloadFullText(
  app: FullTextApp,
  { user, reviewId, recordId }: { user: UserRow; reviewId: string | undefined; recordId: string | undefined },
): Promise<Response> {
  const review = await requireReview(app, { userId: user.id, reviewId }, "read");
  const record = await requireRecord(app, review, recordId);
  const headers = { "Cache-Control": "private, no-store", "X-Content-Type-Options": "nosniff" };
  if (record.fullTextKey) {
    const object = await app.bindings.BUCKET.get(record.fullTextKey);
    if (object) {
      return new Response(object.body, {
        headers: {
          ...headers,
          "Content-Type": "application/pdf",
          "Content-Disposition": `attachment; filename="record-${record.id}.pdf"`,
        },
      });
    }
  }
  if (record.fullText) {
    return new Response(record.fullText, {
      headers: {
        ...headers,
        "Content-Type": "text/plain; charset=utf-8",
        "Content-Disposition": `attachment; filename="record-${record.id}.txt"`,
      },
    });
  }
  throw new AppError("NO_FULL_TEXT", "No full text is attached to this record.", 404);
}

/** Removes the record's full text (and its PDF). @throws AppError 404. */
export async function removeFullText(
  app: FullTextApp,
  { user, reviewId, recordId }: { user: UserRow; reviewId: string | undefined; recordId: string | undefined },
): Promise<{ recordId: number; attached: false }> {
  const review = await requireReview(app, { userId: user.id, reviewId }, "write");
  const record = await requireRecord(app, review, recordId);
  await app.db
    .update(reviewRecords)
    .set({ fullTextKey: null, fullTextUrl: null, fullText: null })
    .where(and(eq(reviewRecords.id, record.id), eq(reviewRecords.reviewId, review.id)));
  if (record.fullTextKey) await app.bindings.BUCKET.delete(record.fullTextKey);
  return { recordId: record.id, attached: false };
}
