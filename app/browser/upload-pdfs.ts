/** The Upload page's multipart upload with per-file progress (SPEC §5 Upload, §9 Upload). */
import {
  isOfflineQueuedReply,
  OFFLINE_QUEUED_HEADER,
  OfflineQueuedError,
  queueOwnerHeaders,
} from "~/browser/offline-sync";
import { perFileProgress, UploadError, type UploadFileResult } from "~/lib/uploads";

/**
 * POST /api/upload-pdfs with the files in the repeated field 'pdfs', reporting per-file progress
 * (XMLHttpRequest upload events; fetch has none).
 * @throws UploadError for a non-OK response, OfflineQueuedError when the service worker queued the
 * upload (offline: upload-sync sends it on reconnect), Error('Upload failed') on a network failure.
 */
export function uploadPdfs(
  files: readonly File[],
  onProgress: (perFile: number[]) => void,
): Promise<UploadFileResult[]> {
  const form = new FormData();
  for (const file of files) form.append("pdfs", file, file.name);
  const sizes = files.map((f) => f.size);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/upload-pdfs");
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries(queueOwnerHeaders())) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(perFileProgress(sizes, event.loaded, event.total));
    };
    xhr.onerror = () => reject(new Error("Upload failed"));
    xhr.onload = () => {
      let body: { results?: UploadFileResult[]; error?: string; message?: string } | null = null;
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        body = { message: xhr.statusText || "Upload failed" };
      }
      if (xhr.getResponseHeader(OFFLINE_QUEUED_HEADER) && isOfflineQueuedReply(body)) {
        reject(new OfflineQueuedError(body));
        return;
      }
      if (xhr.status < 200 || xhr.status >= 300) {
        reject(new UploadError(xhr.status, body));
        return;
      }
      onProgress(sizes.map(() => 1));
      resolve(body?.results ?? []);
    };
    xhr.send(form);
  });
}
