import { Copy, Download, FileOutput } from "lucide-react";
import { renderToStaticMarkup } from "react-dom/server";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import {
  Dialog,
  DialogBody,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from "~/components/ui/dialog";
import { downloadBlob } from "~/browser/export-client";
import { reportPlainText, reportSections, type ReportSection } from "~/lib/report-sections";
import { toast } from "~/browser/toast";
import { withUserHtmlCsp } from "~/lib/user-html";
import { asStructured, evidenceLabel, reportFileName, reportHtml, reportTitle } from "~/lib/uploads";
import { AnalysisView as OutcomeAnalysisView } from "~/components/meta-analysis/analysis-results";
import type { MetaAnalysisJobResult } from "~/lib/meta-analysis/types";
import { ReportBody } from "./report-body";

/** Renders a stored summary or analysis text (or structured analysis) as titled sections (SPEC §4 analysis view). */
export function AnalysisView({ content, defaultTitle }: { content: unknown; defaultTitle: string }) {
  return <ReportBody sections={reportSections(content, [], defaultTitle)} />;
}

/** The numbered list of a report's studies, so "Study 2" in its text can be looked up by title. */
function studiesSection(studies: readonly ReportStudy[]): ReportSection {
  return {
    title: "Studies",
    blocks: [
      {
        items: studies.map(
          (s, i) =>
            `Study ${i + 1}: ${s.title}${s.authors.length ? ` — ${s.authors.slice(0, 3).join(", ")}${s.authors.length > 3 ? " et al." : ""}` : ""}`,
        ),
      },
    ],
    sources: [],
  };
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
  /** The /meta-analysis engine's result for the studies (bulk analysis): its pooled outcomes are drawn with forest plots. */
  metaAnalysis?: MetaAnalysisJobResult | null;
  /** Cited sentence ids ("T2.S5") → their sentences, to quote the sources under each section. */
  citationSources?: Readonly<Record<string, { quote?: string }>>;
  /** Opens the export dialog for the report's studies. */
  onExport: () => void;
}

/**
 * SPEC §2 report modal: 'Combined Summary of N Studies' or 'Meta-Analysis of N Uploaded Studies',
 * an evidence badge ('Evidence: Moderate' unless the computed strength is known), a study-count
 * badge, and Copy, Download (metamind-{summary|analysis}-report-{timestamp}.html), Export and close.
 */
/** The engine's pooled outcomes (forest and funnel plots, heterogeneity, GRADE), as on /meta-analysis. */
function PooledAnalyses({ result }: { result: MetaAnalysisJobResult }) {
  if (result.analyses.length === 0) return null;
  return (
    <section aria-label="Pooled analyses" data-testid="pooled-analyses" className="mt-8 space-y-8">
      <h3 className="text-base font-semibold text-slate-900">
        Pooled analyses (MetaMind&apos;s metafor-compatible engine)
      </h3>
      {result.analyses.map((a, i) => (
        <OutcomeAnalysisView key={`${a.outcome}-${a.measure}-${i}`} a={a} index={i} />
      ))}
    </section>
  );
}

export function ReportModal({
  open,
  onOpenChange,
  type,
  content,
  studies,
  strengthOfEvidence,
  citationSources,
  metaAnalysis,
  onExport,
}: ReportModalProps) {
  const n = studies.length;
  const title = reportTitle(type, n);
  const defaultTitle = type === "summary" ? "Combined Analysis" : "Executive Summary";
  const evidence = evidenceLabel(strengthOfEvidence ?? asStructured(content)?.strengthOfEvidence);
  const body = reportSections(content, studies, defaultTitle, citationSources);
  const sections = [...body, studiesSection(studies)];
  const plain = reportPlainText(sections);

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
    // The download lists the studies itself (with file names), so the body leaves them out.
    const bodyHtml = renderToStaticMarkup(
      <>
        <ReportBody sections={body} />
        {metaAnalysis ? <PooledAnalyses result={metaAnalysis} /> : null}
      </>,
    );
    downloadBlob(
      new Blob([withUserHtmlCsp(reportHtml({ title, evidence, sections: [], bodyHtml, studies }))], {
        type: "text/html;charset=utf-8",
      }),
      name,
    );
    toast({ title: "Download Started", description: name });
  };

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent data-testid="report-modal" layout="sections" className="max-h-[90vh] max-w-3xl">
        <DialogHeader
          closeClassName="size-8"
          actions={
            <>
              <Button variant="outline" size="sm" onClick={copy}>
                <Copy aria-hidden /> Copy
              </Button>
              <Button variant="outline" size="sm" onClick={download}>
                <Download aria-hidden /> Download
              </Button>
              <Button variant="outline" size="sm" onClick={onExport}>
                <FileOutput aria-hidden /> Export
              </Button>
            </>
          }
        >
          <div className="space-y-2">
            <DialogTitle>{title}</DialogTitle>
            <DialogDescription className="sr-only">
              The generated report for the selected uploaded studies.
            </DialogDescription>
            <div className="flex flex-wrap gap-2">
              <Badge variant="secondary" data-testid="evidence-badge">
                {evidence}
              </Badge>
              <Badge variant="outline">
                {n} {n === 1 ? "study" : "studies"}
              </Badge>
            </div>
          </div>
        </DialogHeader>
        <DialogBody>
          <ReportBody sections={sections} />
          {metaAnalysis ? <PooledAnalyses result={metaAnalysis} /> : null}
        </DialogBody>
      </DialogContent>
    </Dialog>
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
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent data-testid="text-dialog" layout="sections" className="max-h-[90vh] max-w-3xl">
        <DialogHeader closeClassName="size-8">
          <div>
            <DialogTitle>{heading}</DialogTitle>
            <DialogDescription className="mt-0">{title}</DialogDescription>
          </div>
        </DialogHeader>
        <DialogBody>
          <AnalysisView content={content} defaultTitle={heading === "Summary" ? "Summary" : "Executive Summary"} />
        </DialogBody>
      </DialogContent>
    </Dialog>
  );
}
