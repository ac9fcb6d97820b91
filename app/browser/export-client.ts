/**
 * Client side of POST /api/export (SPEC §5, §7, §8): sends the options, reads the file or the
 * error, and saves the file under the name the server chose.
 */

export const EXPORT_FORMAT_OPTIONS = [
  { value: "csv", label: "CSV", pro: null },
  { value: "json", label: "JSON", pro: null },
  { value: "html", label: "HTML", pro: null },
  { value: "bibtex", label: "BibTeX", pro: "citation_export" },
  { value: "ris", label: "RIS", pro: "citation_export" },
  { value: "pdf", label: "PDF", pro: "pdf_export" },
] as const;

export type ExportFormatValue = (typeof EXPORT_FORMAT_OPTIONS)[number]["value"];

export interface ExportOptionsState {
  format: ExportFormatValue;
  includeMetadata: boolean;
  includeAbstracts: boolean;
  includeSummaries: boolean;
  includeCitations: boolean;
}

export const DEFAULT_EXPORT_OPTIONS: ExportOptionsState = {
  format: "csv",
  includeMetadata: true,
  includeAbstracts: true,
  includeSummaries: false,
  includeCitations: false,
};

/** What came back from an export request. */
export type ExportOutcome =
  | { kind: "file"; blob: Blob; filename: string }
  | { kind: "signin" }
  | { kind: "pro"; feature: "citation_export" | "pdf_export"; message: string }
  | { kind: "pdf-unavailable"; message: string }
  | { kind: "failed"; message: string };

export const PDF_UNAVAILABLE_FALLBACK = "PDF generation is temporarily unavailable. Please try HTML format instead.";
export const EXPORT_FAILED_MESSAGE = "There was an error exporting your studies. Please try again.";

function filenameFrom(disposition: string | null, format: string, now: Date): string {
  const match = disposition && /filename="?([^";]+)"?/i.exec(disposition);
  if (match) return match[1];
  const ext = format === "bibtex" ? "bib" : format;
  return `metamind-studies-${now.toISOString().slice(0, 10)}.${ext}`;
}

/**
 * POSTs the export and classifies the answer: a non-empty file; 401 → sign in; 403
 * PRO_REQUIRED (or any 403 with PDF selected) → upgrade; 500 with PDF → 'PDF Export
 * Unavailable'; an empty file or anything else → failed.
 */
export async function requestExport(
  payload: { studies?: unknown[]; studyIds?: (string | number)[] } & ExportOptionsState,
  fetcher: typeof fetch = fetch,
  now: Date = new Date(),
): Promise<ExportOutcome> {
  let res: Response;
  try {
    res = await fetcher("/api/export", {
      method: "POST",
      credentials: "include",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(payload),
    });
  } catch {
    return { kind: "failed", message: EXPORT_FAILED_MESSAGE };
  }
  if (res.ok) {
    const blob = await res.blob();
    if (blob.size === 0) return { kind: "failed", message: "The export file is empty." };
    return { kind: "file", blob, filename: filenameFrom(res.headers.get("Content-Disposition"), payload.format, now) };
  }
  const body = (await res.json().catch(() => ({}))) as { error?: string; feature?: string; message?: string };
  if (res.status === 401) return { kind: "signin" };
  if (res.status === 403 && (body.error === "PRO_REQUIRED" || payload.format === "pdf")) {
    const feature =
      body.feature === "citation_export"
        ? "citation_export"
        : payload.format === "pdf"
          ? "pdf_export"
          : "citation_export";
    return { kind: "pro", feature, message: body.message ?? "Upgrade to Professional" };
  }
  if (payload.format === "pdf" && res.status >= 500) {
    return { kind: "pdf-unavailable", message: body.message || PDF_UNAVAILABLE_FALLBACK };
  }
  return { kind: "failed", message: EXPORT_FAILED_MESSAGE };
}

/** Saves a blob as a download with the given file name. */
export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.rel = "noopener";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
