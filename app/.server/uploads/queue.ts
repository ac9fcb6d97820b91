import type { JobHandler } from "../jobs/types";

/** Extracts an uploaded PDF (message body { kind: "pdf-extract", ... }). */
export const pdfExtractJobHandler: JobHandler = async () => {
  throw new Error("PDF extraction jobs are not available yet");
};
