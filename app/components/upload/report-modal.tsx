import * as Dialog from "@radix-ui/react-dialog";
import { Copy, Download, FileOutput, X } from "lucide-react";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { downloadBlob } from "~/lib/export-client";
import { toast } from "~/lib/toast";
import { withUserHtmlCsp } from "~/lib/user-html";
import {
  asStructured,
  evidenceLabel,
  reportFileName,
  reportHtml,
  reportTitle,
  splitSections,
  stripMarkup,
  structuredSections,
  type TextSection,
} from "~/lib/uploads";

/** The sections of a report's content: structured when it is an object with executiveSummary, else split text (SPEC §4). */
export function contentSections(content: unknown, defaultTitle: string): TextSection[] {
  const structured = asStructured(content);
  if (structured) return structuredSections(structured);
  return splitSections(stripMarkup(typeof content === "string" ? content : ""), defaultTitle);
}

/** Renders analysis content as titled sections (SPEC §4 analysis view). */
export function AnalysisView({ content, defaultTitle }: { content: unknown; defaultTitle: string }) {
  const sections = contentSections(content, defaultTitle);
  return (
    <div className="space-y-4" data-testid="analysis-view">
      {sections.map((s, i) => (
        <section key={`${s.title}-${i}`}>
          <h3 className="mb-1 text-sm font-semibold text-slate-900">{s.title}</h3>
          <div className="space-y-2 text-sm leading-relaxed whitespace-pre-line text-slate-700">{s.body}</div>
        </section>
      ))}
    </div>
  );
}

export interface ReportStudy {
  id: number;
  title: string;
  authors: string[];
  fileName: string;
}

export interface ReportModalProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  type: "summary" | "analysis";
  /** Summary text or the structured analysis object. */
  content: unknown;
  studies: readonly ReportStudy[];
  /** high / moderate / low when the server computed it. */
  strengthOfEvidence?: string | null;
  /** Opens the export dialog for the report's studies. */
  onExport: () => void;
}

/**
 * SPEC §2 report modal: 'Combined Summary of N Studies' or 'Meta-Analysis of N Uploaded Studies',
 * an evidence badge ('Evidence: Moderate' unless the computed strength is known), a study-count
 * badge, and Copy, Download (metamind-{summary|analysis}-report-{timestamp}.html), Export and close.
 */
export function ReportModal({ open, onOpenChange, type, content, studies, strengthOfEvidence, onExport }: ReportModalProps) {
  const n = studies.length;
  const title = reportTitle(type, n);
  const defaultTitle = type === "summary" ? "Combined Analysis" : "Executive Summary";
  const evidence = evidenceLabel(strengthOfEvidence ?? asStructured(content)?.strengthOfEvidence);
  const sections = contentSections(content, defaultTitle);
  const plain = sections.map((s) => `${s.title}\n${s.body}`).join("\n\n");

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(`${title}\n${evidence}\n\n${plain}`);
      toast({ title: "Copied to Clipboard", description: "The report text was copied." });
    } catch {
      toast({ title: "Copy failed", description: "The clipboard is not available.", variant: "destructive" });
    }
  };
  const download = () => {
    const name = reportFileName(type);
    downloadBlob(new Blob([withUserHtmlCsp(reportHtml({ title, evidence, sections, studies }))], { type: "text/html;charset=utf-8" }), name);
    toast({ title: "Download Started", description: name });
  };

  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-slate-900/50" />
        <Dialog.Content
          data-testid="report-modal"
          className="fixed top-1/2 left-1/2 z-50 flex max-h-[90vh] w-[calc(100%-2rem)] max-w-3xl -translate-x-1/2 -translate-y-1/2 flex-col rounded-xl border border-slate-200 bg-white shadow-xl focus:outline-none"
        >
          <div className="flex items-start justify-between gap-4 border-b border-slate-200 p-5">
            <div className="space-y-2">
              <Dialog.Title className="text-lg font-semibold text-slate-900">{title}</Dialog.Title>
              <Dialog.Description className="sr-only">The generated report for the selected uploaded studies.</Dialog.Description>
              <div className="flex flex-wrap gap-2">
                <Badge variant="secondary" data-testid="evidence-badge">{evidence}</Badge>
                <Badge variant="outline">{n} {n === 1 ? "study" : "studies"}</Badge>
              </div>
            </div>
            <div className="flex items-center gap-1">
              <Button variant="outline" size="sm" onClick={copy}>
                <Copy aria-hidden /> Copy
              </Button>
              <Button variant="outline" size="sm" onClick={download}>
                <Download aria-hidden /> Download
              </Button>
              <Button variant="outline" size="sm" onClick={onExport}>
                <FileOutput aria-hidden /> Export
              </Button>
              <Dialog.Close asChild>
                <Button variant="ghost" size="icon" className="size-8" aria-label="Close">
                  <X aria-hidden />
                </Button>
              </Dialog.Close>
            </div>
          </div>
          <div className="overflow-y-auto p-5">
            <AnalysisView content={content} defaultTitle={defaultTitle} />
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** A plain dialog showing one study's stored summary or analysis ('View Summary' / 'View Analysis'). */
export function TextDialog({
  open,
  onOpenChange,
  title,
  heading,
  content,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  heading: string;
  content: string;
}) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-slate-900/50" />
        <Dialog.Content
          data-testid="text-dialog"
          className="fixed top-1/2 left-1/2 z-50 flex max-h-[90vh] w-[calc(100%-2rem)] max-w-3xl -translate-x-1/2 -translate-y-1/2 flex-col rounded-xl border border-slate-200 bg-white shadow-xl focus:outline-none"
        >
          <div className="flex items-start justify-between gap-4 border-b border-slate-200 p-5">
            <div>
              <Dialog.Title className="text-lg font-semibold text-slate-900">{heading}</Dialog.Title>
              <Dialog.Description className="text-sm text-slate-600">{title}</Dialog.Description>
            </div>
            <Dialog.Close asChild>
              <Button variant="ghost" size="icon" className="size-8" aria-label="Close">
                <X aria-hidden />
              </Button>
            </Dialog.Close>
          </div>
          <div className="overflow-y-auto p-5">
            <AnalysisView content={content} defaultTitle={heading === "Summary" ? "Summary" : "Executive Summary"} />
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
