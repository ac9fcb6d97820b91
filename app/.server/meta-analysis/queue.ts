import type { JobHandler } from "../jobs/types";

/** Runs a queued meta-analysis job (message body { kind: "meta-analysis", jobId }). */
export const metaAnalysisJobHandler: JobHandler = async () => {
  throw new Error("meta-analysis jobs are not available yet");
};
