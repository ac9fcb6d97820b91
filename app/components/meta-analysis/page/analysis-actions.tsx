import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { Download, FileJson, FileText, Loader2, Play, Save, Table2 } from "lucide-react";
import { Button } from "~/components/ui/button";
import type { Extraction, Run } from "./types";

/**
 * The action row of /meta-analysis: Extract Data (Extract Again once extracted) and Run Analysis,
 * both disabled while busy or without studies; once a run is done (`jobId`), Save Report, Download
 * Report, Export Results and View Report.
 */
export function AnalysisActions({
  extraction,
  run,
  busy,
  count,
  jobId,
  onExtract,
  onRun,
  onSave,
  onDownload,
  onExport,
  onView,
}: {
  extraction: Extraction;
  run: Run;
  busy: boolean;
  count: number;
  jobId: string | null;
  onExtract: () => void;
  onRun: () => void;
  onSave: () => void;
  onDownload: () => void;
  onExport: (format: "html" | "json") => void;
  onView: () => void;
}) {
  return (
    <div className="mt-6 flex flex-wrap gap-2">
      <Button variant="outline" onClick={onExtract} disabled={busy || count === 0}>
        {extraction.kind === "loading" ? <Loader2 className="animate-spin" aria-hidden /> : <Table2 aria-hidden />}
        {extraction.kind === "loading"
          ? "Extracting..."
          : extraction.kind === "done"
            ? "Extract Again"
            : "Extract Data"}
      </Button>
      <Button onClick={onRun} disabled={busy || count === 0}>
        {run.kind === "running" ? <Loader2 className="animate-spin" aria-hidden /> : <Play aria-hidden />}
        {run.kind === "running" ? "Analyzing..." : "Run Analysis"}
      </Button>
      {jobId !== null && (
        <>
          <Button variant="outline" onClick={onSave}>
            <Save aria-hidden />
            Save Report
          </Button>
          <Button variant="outline" onClick={onDownload}>
            <Download aria-hidden />
            Download Report
          </Button>
          <ExportMenu onExport={onExport} jobId={jobId} />
          <Button variant="ghost" onClick={onView}>
            <FileText aria-hidden />
            View Report
          </Button>
        </>
      )}
    </div>
  );
}

/** Export Results: the report as HTML, data and results as JSON, and the job's R script, study rows and Summary of Findings table (server downloads). */
function ExportMenu({ onExport, jobId }: { onExport: (format: "html" | "json") => void; jobId: string }) {
  const itemClass = "cursor-pointer rounded px-3 py-1.5 text-sm outline-none data-[highlighted]:bg-slate-100";
  const href = (format: "r" | "csv" | "sof" | "robvis") =>
    `/api/meta-analysis/jobs/${encodeURIComponent(jobId)}/export?format=${format}`;
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger asChild>
        <Button variant="outline">
          <FileJson aria-hidden />
          Export Results
        </Button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="start"
          sideOffset={4}
          className="z-50 min-w-48 rounded-md border border-slate-200 bg-white p-1 shadow-lg"
        >
          {(["html", "json"] as const).map((f) => (
            <DropdownMenu.Item key={f} onSelect={() => onExport(f)} className={itemClass}>
              {f === "html" ? "HTML report" : "JSON (data + results)"}
            </DropdownMenu.Item>
          ))}
          <DropdownMenu.Item asChild className={itemClass}>
            <a href={href("r")} download>
              R script (metafor)
            </a>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={itemClass}>
            <a href={href("csv")} download>
              Study data (CSV)
            </a>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={itemClass}>
            <a href={href("sof")} download data-testid="export-sof">
              Summary of findings (CSV)
            </a>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={itemClass}>
            <a href={href("robvis")} download data-testid="export-robvis">
              Risk of bias, robvis layout (CSV)
            </a>
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
