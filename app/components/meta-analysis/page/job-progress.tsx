import { JOB_STAGE_LABELS } from "~/browser/meta-analysis-job-client";
import type { Run } from "./types";

/** The running job's stage (as the queue consumer writes it: queued, extracting, pooling, writing), its detail and a progress bar. */
export function JobProgress({ run }: { run: Extract<Run, { kind: "running" }> }) {
  return (
    <div className="mt-6" data-testid="job-progress" data-stage={run.stage}>
      <div className="flex justify-between gap-2 text-sm text-slate-700" aria-live="polite">
        <span>
          <span data-testid="job-stage">{JOB_STAGE_LABELS[run.stage]}</span>
          {run.detail && <span className="text-slate-500"> {run.detail}</span>}
        </span>
        <span className="tabular-nums">{Math.round(run.progress)}%</span>
      </div>
      <div
        role="progressbar"
        aria-label="Meta-analysis progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(run.progress)}
        className="mt-1 h-2 overflow-hidden rounded-full bg-slate-200"
      >
        <div className="h-full bg-brand-600 transition-[width] duration-500" style={{ width: `${run.progress}%` }} />
      </div>
    </div>
  );
}
