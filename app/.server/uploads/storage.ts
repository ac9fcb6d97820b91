/**
 * Streams one uploaded file into R2 without holding it in memory: the bytes go out in fixed
 * {@link R2_PART_BYTES} parts of an R2 multipart upload (R2 needs equal-sized parts except the
 * last, each at least 5 MiB), so at most one part is buffered whatever the file size. Files that
 * fit in one part are written with a single `put`. The %PDF magic and the size limit are checked
 * while streaming; a refused or failed file leaves no object behind (the multipart upload is
 * aborted).
 */
import { hasPdfMagic, looksLikeMarkup } from "../fulltext/fetch";

/** Largest file accepted, in bytes (SPEC §9 "50MB"). */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
/** R2 multipart part size (R2's minimum for every part but the last). */
export const R2_PART_BYTES = 5 * 1024 * 1024;
/** Bytes read before deciding whether the file is a PDF ("%PDF-" must occur within them). */
const SNIFF_BYTES = 1024;

/** Why a file was refused; `status` is the HTTP status the request gets when every file fails so. */
export class FileRejectedError extends Error {
  constructor(
    readonly code: "FILE_TOO_LARGE" | "NOT_PDF" | "EMPTY_FILE",
    message: string,
    readonly status: 413 | 415 | 400,
  ) {
    super(message);
    this.name = "FileRejectedError";
  }
}

/**
 * Records multipart uploads while they are in flight, so a crash cannot leave one unknown (R2 has
 * no list of unfinished multipart uploads in Workers; jobs/reconcile.ts aborts stale ones).
 */
export interface MultipartTracker {
  /** Called right after the upload is created; a failure aborts the upload and the file. */
  started(key: string, uploadId: string): Promise<void>;
  /** Called after it was completed or aborted; failures are logged only. */
  ended(uploadId: string): Promise<void>;
}

/** Formats a byte count for messages: "50 MB". */
function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

/** Consumes what is left of a stream without keeping it. */
async function drain(chunks: AsyncIterator<Uint8Array>): Promise<void> {
  for (;;) {
    const { done } = await chunks.next();
    if (done) return;
  }
}

/**
 * Streams `source` into `bucket` under `key` (see the module comment).
 *
 * @returns the size in bytes.
 * @throws FileRejectedError NOT_PDF (415) when "%PDF-" is not within the first 1,024 bytes (an HTML
 *   page saved as .pdf is named as such), FILE_TOO_LARGE (413) past `maxBytes`, EMPTY_FILE (400);
 *   the rest of the file is read and discarded so the next part of the request can be read.
 * @throws the R2 error when a write fails (the multipart upload is aborted first).
 * @param tracker records the multipart upload from its creation until it is completed or aborted.
 */
export async function streamPdfToR2(
  bucket: R2Bucket,
  key: string,
  source: AsyncIterable<Uint8Array>,
  {
    maxBytes = MAX_UPLOAD_BYTES,
    partBytes = R2_PART_BYTES,
    fileName,
    tracker,
  }: { maxBytes?: number; partBytes?: number; fileName: string; tracker?: MultipartTracker },
): Promise<number> {
  const chunks = source[Symbol.asyncIterator]();
  const pending = new Uint8Array(partBytes);
  let filled = 0;
  let total = 0;
  let sniffed = false;
  let upload: R2MultipartUpload | null = null;
  const parts: R2UploadedPart[] = [];
  const options: R2PutOptions = {
    httpMetadata: { contentType: "application/pdf" },
    customMetadata: { fileName: fileName.slice(0, 512) },
  };

  const untrack = async (done: R2MultipartUpload) => {
    await tracker
      ?.ended(done.uploadId)
      .catch((error: unknown) => console.warn("could not clear a multipart upload record", error));
  };
  const flushPart = async () => {
    if (!upload) {
      const created = await bucket.createMultipartUpload(key, options);
      try {
        await tracker?.started(key, created.uploadId);
      } catch (error) {
        await created.abort().catch(() => undefined);
        throw error;
      }
      upload = created;
    }
    parts.push(await upload.uploadPart(parts.length + 1, pending.subarray(0, filled)));
    filled = 0;
  };

  try {
    for (;;) {
      const { done, value } = await chunks.next();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await drain(chunks);
        throw new FileRejectedError(
          "FILE_TOO_LARGE",
          `${fileName} is larger than ${megabytes(maxBytes)}, the largest PDF accepted.`,
          413,
        );
      }
      let offset = 0;
      while (offset < value.byteLength) {
        const n = Math.min(partBytes - filled, value.byteLength - offset);
        pending.set(value.subarray(offset, offset + n), filled);
        filled += n;
        offset += n;
        if (!sniffed && filled >= SNIFF_BYTES) {
          sniffed = true;
          checkMagic(pending.subarray(0, filled), fileName);
        }
        if (filled === partBytes) await flushPart();
      }
    }
    if (total === 0) throw new FileRejectedError("EMPTY_FILE", `${fileName} is empty.`, 400);
    if (!sniffed) checkMagic(pending.subarray(0, filled), fileName);
    if (!upload) {
      await bucket.put(key, pending.subarray(0, filled), options);
      return total;
    }
    if (filled > 0) await flushPart();
    await (upload as R2MultipartUpload).complete(parts);
    await untrack(upload);
    return total;
  } catch (error) {
    if (error instanceof FileRejectedError && error.code === "NOT_PDF") await drain(chunks).catch(() => undefined);
    if (upload) {
      const aborted = await (upload as R2MultipartUpload).abort().then(
        () => true,
        () => false,
      );
      // An upload whose abort failed stays recorded, so the reconciler retries it.
      if (aborted) await untrack(upload);
    }
    throw error;
  }
}

function checkMagic(head: Uint8Array, fileName: string): void {
  if (hasPdfMagic(head)) return;
  throw new FileRejectedError(
    "NOT_PDF",
    looksLikeMarkup(head)
      ? `${fileName} is not a PDF: it is a web page (HTML) saved with a .pdf name.`
      : `${fileName} is not a PDF (it does not start with the %PDF header).`,
    415,
  );
}
