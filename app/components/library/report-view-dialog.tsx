import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "~/components/ui/dialog";
import type { ReportLike } from "~/browser/report-actions";

/**
 * A saved report in a dialog. The (server-sanitized) HTML is shown in an iframe with `srcdoc` and
 * an empty `sandbox` (no scripts, no same-origin access, no forms, no pop-ups).
 */
export function ReportViewDialog({ report, onClose }: { report: ReportLike | null; onClose: () => void }) {
  return (
    <Dialog open={report !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent data-testid="report-view-dialog" className="flex h-[85vh] max-w-4xl flex-col p-4">
        <DialogHeader closeClassName="size-8">
          <DialogTitle>{report?.name}</DialogTitle>
        </DialogHeader>
        <DialogDescription className="sr-only">Saved report</DialogDescription>
        {report?.htmlContent && (
          <iframe
            title={report.name}
            data-testid="report-frame"
            sandbox=""
            srcDoc={report.htmlContent}
            className="mt-3 w-full flex-1 rounded-md border border-slate-200"
          />
        )}
      </DialogContent>
    </Dialog>
  );
}
