import * as Dialog from "@radix-ui/react-dialog";
import { X } from "lucide-react";
import { Button } from "~/components/ui/button";
import type { ReportLike } from "~/lib/report-actions";

/**
 * A saved report in a dialog. The (server-sanitized) HTML is shown in an iframe with `srcdoc` and
 * an empty `sandbox` (no scripts, no same-origin access, no forms, no pop-ups).
 */
export function ReportViewDialog({ report, onClose }: { report: ReportLike | null; onClose: () => void }) {
  return (
    <Dialog.Root open={report !== null} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-slate-900/50" />
        <Dialog.Content
          data-testid="report-view-dialog"
          className="fixed top-1/2 left-1/2 z-50 flex h-[85vh] w-[calc(100%-2rem)] max-w-4xl -translate-x-1/2 -translate-y-1/2 flex-col rounded-xl border border-slate-200 bg-white p-4 shadow-xl focus:outline-none"
        >
          <div className="flex items-start justify-between gap-4">
            <Dialog.Title className="text-lg font-semibold text-slate-900">{report?.name}</Dialog.Title>
            <Dialog.Close asChild>
              <Button variant="ghost" size="icon" className="size-8" aria-label="Close">
                <X aria-hidden />
              </Button>
            </Dialog.Close>
          </div>
          <Dialog.Description className="sr-only">Saved report</Dialog.Description>
          {report?.htmlContent && (
            <iframe
              title={report.name}
              data-testid="report-frame"
              sandbox=""
              srcDoc={report.htmlContent}
              className="mt-3 w-full flex-1 rounded-md border border-slate-200"
            />
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
