import { Download } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { UpgradePrompt } from "~/components/search/upgrade-prompt";
import { useUpgradePromptWith } from "~/components/search/upgrade-prompt-state";
import { Button } from "~/components/ui/button";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from "~/components/ui/dialog";
import {
  DEFAULT_EXPORT_OPTIONS,
  downloadBlob,
  EXPORT_FORMAT_OPTIONS,
  requestExport,
  type ExportFormatValue,
  type ExportOptionsState,
} from "~/browser/export-client";
import { toast } from "~/browser/toast";
import { storedStudyIds } from "~/browser/sealed-studies";

/** The study fields an export can use (SPEC §3 Study or Uploaded study). */
export interface ExportableStudy {
  id: number | string;
  title: string;
  authors?: readonly string[];
  journal?: string | null;
  publicationDate?: string | null;
  doi?: string | null;
  pmid?: string | null;
  abstract?: string | null;
  aiSummary?: string | null;
  source?: string | null;
  studyType?: string | null;
  url?: string | null;
  openAccessUrl?: string | null;
  citationCount?: number | null;
  impactFactor?: number | null;
}

export interface ExportDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Full study objects (sent as they are, e.g. uploaded studies). */
  studies?: readonly ExportableStudy[];
  /** Ids of stored search studies (the server reads them). */
  studyIds?: readonly (string | number)[];
}

const OPTION_LABELS: { key: keyof Omit<ExportOptionsState, "format">; label: string }[] = [
  { key: "includeMetadata", label: "Include metadata (DOI, PMID, database, study type, links)" },
  { key: "includeAbstracts", label: "Include abstracts" },
  { key: "includeSummaries", label: "Include AI summaries" },
  { key: "includeCitations", label: "Include formatted citations (APA)" },
];

function toPayloadStudy(s: ExportableStudy) {
  return {
    id: s.id,
    title: s.title,
    authors: [...(s.authors ?? [])],
    journal: s.journal ?? null,
    publicationDate: s.publicationDate ?? null,
    doi: s.doi ?? null,
    pmid: s.pmid ?? null,
    abstract: s.abstract ?? null,
    aiSummary: s.aiSummary ?? null,
    source: s.source ?? null,
    studyType: s.studyType ?? null,
    url: s.url ?? null,
    openAccessUrl: s.openAccessUrl ?? null,
    citationCount: s.citationCount ?? null,
    impactFactor: s.impactFactor ?? null,
  };
}

/**
 * The export dialog (SPEC §2, §5, §8): format (CSV, JSON, HTML free; BibTeX, RIS, PDF marked
 * Pro) and the four include options, defaulting to the user's default export format. Export
 * posts to /api/export and downloads the dated file; a guest gets 'Sign In Required', a Free
 * user choosing a Pro format gets the upgrade prompt, a failed PDF 'PDF Export Unavailable'.
 */
export function ExportDialog({ open, onOpenChange, studies, studyIds }: ExportDialogProps) {
  const [options, setOptions] = useState<ExportOptionsState>(DEFAULT_EXPORT_OPTIONS);
  // The user's default format fills in only until they pick one: a slow settings answer must not
  // undo a choice made meanwhile.
  const formatChosen = useRef(false);
  const [pending, setPending] = useState(false);
  const upgrade = useUpgradePromptWith(UpgradePrompt);
  const count = (studies?.length ?? 0) + (studyIds?.length ?? 0);

  useEffect(() => {
    if (!open) return;
    const controller = new AbortController();
    fetch("/api/user/settings", { credentials: "include", signal: controller.signal })
      .then(async (res) => {
        if (!res.ok) return;
        const body = (await res.json()) as { defaultExportFormat?: string };
        const preferred = body.defaultExportFormat;
        if (!formatChosen.current && EXPORT_FORMAT_OPTIONS.some((o) => o.value === preferred)) {
          setOptions((current) => ({ ...current, format: preferred as ExportFormatValue }));
        }
      })
      .catch(() => undefined);
    return () => controller.abort();
  }, [open]);

  async function runExport() {
    if (count === 0) {
      toast({
        title: "No studies to export",
        description: "Please select some studies first.",
        variant: "destructive",
      });
      return;
    }
    setPending(true);
    try {
      const outcome = await requestExport({
        ...options,
        ...(studies?.length ? { studies: studies.map(toPayloadStudy) } : {}),
        ...(studyIds?.length ? { studyIds: await storedStudyIds(studyIds.map(Number)) } : {}),
      });
      switch (outcome.kind) {
        case "file":
          downloadBlob(outcome.blob, outcome.filename);
          toast({
            title: "Download Started",
            description: `${outcome.filename} (${count} ${count === 1 ? "study" : "studies"})`,
          });
          onOpenChange(false);
          break;
        case "signin":
          toast({
            title: "Sign In Required",
            description: "Create an account to download and export your research data.",
            variant: "destructive",
          });
          break;
        case "pro":
          onOpenChange(false);
          upgrade.open(outcome.feature, outcome.message);
          break;
        case "pdf-unavailable":
          toast({ title: "PDF Export Unavailable", description: outcome.message, variant: "destructive" });
          break;
        case "failed":
          toast({ title: "Export failed", description: outcome.message, variant: "destructive" });
          break;
      }
    } finally {
      setPending(false);
    }
  }

  return (
    <>
      <Dialog open={open} onOpenChange={onOpenChange}>
        <DialogContent data-testid="export-dialog" className="max-h-[90vh] max-w-md overflow-y-auto">
          <DialogHeader>
            <DialogTitle>Export Studies</DialogTitle>
          </DialogHeader>
          <DialogDescription>
            {count} {count === 1 ? "study" : "studies"} selected
          </DialogDescription>

          <fieldset className="mt-4">
            <legend className="text-sm font-semibold text-slate-900">Format</legend>
            <div className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-3">
              {EXPORT_FORMAT_OPTIONS.map((o) => (
                <label
                  key={o.value}
                  className={`flex cursor-pointer items-center gap-2 rounded-md border px-3 py-2 text-sm ${options.format === o.value ? "border-brand-600 bg-brand-50" : "border-slate-300"}`}
                >
                  <input
                    type="radio"
                    name="export-format"
                    value={o.value}
                    checked={options.format === o.value}
                    onChange={() => {
                      formatChosen.current = true;
                      setOptions((c) => ({ ...c, format: o.value }));
                    }}
                  />
                  {o.label}
                  {o.pro && (
                    <span className="rounded-full bg-amber-100 px-1.5 py-px text-[10px] font-semibold text-amber-800 uppercase">
                      Pro
                    </span>
                  )}
                </label>
              ))}
            </div>
          </fieldset>

          <fieldset className="mt-4 space-y-2">
            <legend className="text-sm font-semibold text-slate-900">Include</legend>
            {OPTION_LABELS.map(({ key, label }) => (
              <label key={key} className="flex items-center gap-2 text-sm text-slate-700">
                <input
                  type="checkbox"
                  name={key}
                  checked={options[key]}
                  onChange={(e) => setOptions((c) => ({ ...c, [key]: e.target.checked }))}
                />
                {label}
              </label>
            ))}
          </fieldset>

          <div className="mt-6 flex justify-end gap-2">
            <DialogClose asChild>
              <Button variant="ghost">Cancel</Button>
            </DialogClose>
            <Button onClick={runExport} disabled={pending} data-testid="export-submit">
              <Download aria-hidden />
              {pending ? "Exporting..." : "Export"}
            </Button>
          </div>
        </DialogContent>
      </Dialog>
      {upgrade.element}
    </>
  );
}
