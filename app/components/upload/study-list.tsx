import { FileText, Loader2 } from "lucide-react";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "~/components/ui/card";
import { formatAuthors } from "~/lib/format";
import { formatFileSize, type UploadedStudy } from "~/lib/uploads";

/** What is running for one study (its buttons are disabled meanwhile). */
export type StudyPending = "summary" | "analysis" | "delete" | null;

export interface BulkActionsProps {
  total: number;
  selected: number;
  pending: "summary" | "analysis" | "delete" | null;
  onToggleAll: (checked: boolean) => void;
  onSummary: () => void;
  onAnalysis: () => void;
  onExport: () => void;
  onDelete: () => void;
}

/** SPEC §2 Bulk Actions card: select-all and four actions, disabled while nothing is selected. */
export function BulkActions({
  total,
  selected,
  pending,
  onToggleAll,
  onSummary,
  onAnalysis,
  onExport,
  onDelete,
}: BulkActionsProps) {
  const none = selected === 0 || pending !== null;
  return (
    <Card>
      <CardHeader className="pb-3">
        <CardTitle className="text-base">Bulk Actions</CardTitle>
      </CardHeader>
      <CardContent className="flex flex-wrap items-center gap-3">
        <label className="flex items-center gap-2 text-sm text-slate-700">
          <input
            type="checkbox"
            aria-label="Select all studies"
            checked={total > 0 && selected === total}
            disabled={total === 0}
            onChange={(e) => onToggleAll(e.target.checked)}
            className="size-4"
          />
          Select all ({selected} of {total} selected)
        </label>
        <div className="flex flex-wrap gap-2">
          <Button size="sm" disabled={none} onClick={onSummary}>
            {pending === "summary" ? "Generating..." : "Combined Summary"}
          </Button>
          <Button size="sm" disabled={none} onClick={onAnalysis}>
            {pending === "analysis" ? "Analyzing..." : "Meta-Analysis"}
          </Button>
          <Button size="sm" variant="outline" disabled={none} onClick={onExport}>
            Export Selected
          </Button>
          <Button size="sm" variant="destructive" disabled={none} onClick={onDelete}>
            {pending === "delete" ? "Deleting..." : "Delete Selected"}
          </Button>
        </div>
      </CardContent>
    </Card>
  );
}

export interface StudyItemProps {
  study: UploadedStudy;
  selected: boolean;
  pending: StudyPending;
  /** Text streaming in for this study right now (summary or analysis). */
  streaming: string | null;
  onSelect: (checked: boolean) => void;
  onSummary: () => void;
  onAnalysis: () => void;
  onDelete: () => void;
  onViewSummary: () => void;
  onViewAnalysis: () => void;
}

const STATUS_LABELS: Record<UploadedStudy["status"], string> = {
  queued: "Queued",
  extracting: "Extracting text...",
  ready: "Ready",
  failed: "Failed",
};

/**
 * The processing stage of a queued or extracting upload as the extraction job writes it (issue
 * 16): "Waiting in the queue", then "Reading page 3 of 12 · 40%" with a progress bar.
 */
function ProcessingProgress({ study }: { study: UploadedStudy }) {
  const percent = Math.max(0, Math.min(100, Math.round(study.progress)));
  const text = study.status === "queued" ? "Waiting in the processing queue" : (study.stageDetail ?? "Extracting text");
  return (
    <div className="pt-1" data-testid="processing-progress" data-stage={study.status} data-progress={percent}>
      <div className="flex justify-between gap-2 text-xs text-slate-600">
        <span>{text}</span>
        <span className="tabular-nums">{percent}%</span>
      </div>
      <div
        role="progressbar"
        aria-label={`Processing ${study.fileName}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        className="mt-1 h-1.5 overflow-hidden rounded-full bg-slate-200"
      >
        <div className="h-full bg-brand-600 transition-[width] duration-300" style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}

/** SPEC §2: one uploaded study with its badges and buttons; processing status from the queue. */
export function StudyItem({
  study,
  selected,
  pending,
  streaming,
  onSelect,
  onSummary,
  onAnalysis,
  onDelete,
  onViewSummary,
  onViewAnalysis,
}: StudyItemProps) {
  const ready = study.status === "ready";
  const busy = pending !== null;
  return (
    <li
      className="rounded-xl border border-slate-200 bg-white p-4"
      data-testid="uploaded-study"
      data-status={study.status}
    >
      <div className="flex items-start gap-3">
        <input
          type="checkbox"
          className="mt-1 size-4"
          aria-label={`Select ${study.title}`}
          checked={selected}
          onChange={(e) => onSelect(e.target.checked)}
        />
        <FileText className="mt-0.5 size-5 shrink-0 text-red-500" aria-hidden />
        <div className="min-w-0 flex-1 space-y-1">
          <h3 className="font-semibold text-slate-900">{study.title}</h3>
          {study.authors.length ? <p className="text-sm text-slate-600">{formatAuthors(study.authors)}</p> : null}
          <p className="text-xs text-slate-500">
            {study.fileName} · {formatFileSize(study.fileSize)} · Uploaded{" "}
            {new Date(study.uploadedAt).toLocaleDateString()}
            {study.journal ? ` · ${study.journal}` : ""}
            {study.totalPages && study.pagesRead && study.pagesRead < study.totalPages
              ? ` · text of the first ${study.pagesRead} of ${study.totalPages} pages`
              : ""}
          </p>
          <div className="flex flex-wrap gap-2 pt-1">
            {study.status !== "ready" ? (
              <Badge variant={study.status === "failed" ? "destructive" : "outline"} data-testid="status-badge">
                {study.status === "queued" || study.status === "extracting" ? (
                  <Loader2 className="size-3 animate-spin" aria-hidden />
                ) : null}
                {study.status === "failed"
                  ? `Failed: ${study.failureReason ?? "unknown reason"}`
                  : STATUS_LABELS[study.status]}
              </Badge>
            ) : null}
            {study.studyType && ready ? <Badge variant="outline">{study.studyType}</Badge> : null}
            {study.status !== "failed" && (
              <>
                <Badge variant={study.aiSummary ? "default" : "secondary"}>
                  {study.aiSummary ? "Summary Ready" : "No Summary"}
                </Badge>
                <Badge variant={study.fullTextAnalysis ? "default" : "secondary"}>
                  {study.fullTextAnalysis ? "Full Analysis Ready" : "No Full Analysis"}
                </Badge>
              </>
            )}
          </div>
          {study.status === "queued" || study.status === "extracting" ? <ProcessingProgress study={study} /> : null}
          {streaming !== null ? (
            <p
              className="mt-2 rounded-md bg-slate-50 p-3 text-sm whitespace-pre-line text-slate-700"
              data-testid="streaming-text"
              aria-live="polite"
            >
              {streaming || "…"}
            </p>
          ) : null}
          <div className="flex flex-wrap gap-2 pt-2">
            {/* A PDF whose text could not be read has nothing to summarise: only Delete is offered. */}
            {study.status !== "failed" && (
              <>
                <Button size="sm" disabled={!ready || busy} onClick={onSummary}>
                  {pending === "summary"
                    ? "Generating..."
                    : study.aiSummary
                      ? "Regenerate Summary"
                      : "Generate Summary"}
                </Button>
                <Button size="sm" variant="outline" disabled={!ready || busy} onClick={onAnalysis}>
                  {pending === "analysis"
                    ? "Analyzing..."
                    : study.fullTextAnalysis
                      ? "Regenerate Analysis"
                      : "Full Analysis"}
                </Button>
              </>
            )}
            {study.aiSummary ? (
              <Button size="sm" variant="ghost" disabled={busy} onClick={onViewSummary}>
                View Summary
              </Button>
            ) : null}
            {study.fullTextAnalysis ? (
              <Button size="sm" variant="ghost" disabled={busy} onClick={onViewAnalysis}>
                View Analysis
              </Button>
            ) : null}
            <Button size="sm" variant="destructive" disabled={busy} onClick={onDelete}>
              {pending === "delete" ? "Deleting..." : "Delete"}
            </Button>
          </div>
        </div>
      </div>
    </li>
  );
}
