import * as Dialog from "@radix-ui/react-dialog";
import { Download, X } from "lucide-react";
import { Button } from "~/components/ui/button";

/** The report as it is saved and downloaded, in a sandboxed frame, with a Download button. */
export function ReportDialog({
  open,
  onOpenChange,
  reportHtml,
  onDownload,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  reportHtml: string;
  onDownload: () => void;
}) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-slate-900/50" />
        <Dialog.Content
          data-testid="results-dialog"
          className="fixed inset-4 z-50 flex flex-col rounded-xl border border-slate-200 bg-white shadow-xl focus:outline-none"
        >
          <div className="flex items-center justify-between gap-4 border-b border-slate-200 p-4">
            <Dialog.Title className="text-lg font-semibold text-slate-900">Meta-analysis report</Dialog.Title>
            <Dialog.Description className="sr-only">The report as it is saved and downloaded.</Dialog.Description>
            <div className="flex gap-2">
              <Button size="sm" variant="outline" onClick={onDownload}>
                <Download aria-hidden />
                Download
              </Button>
              <Dialog.Close asChild>
                <Button variant="ghost" size="icon" className="size-8" aria-label="Close">
                  <X aria-hidden />
                </Button>
              </Dialog.Close>
            </div>
          </div>
          <iframe title="Meta-analysis report" srcDoc={reportHtml} sandbox="" className="w-full flex-1 rounded-b-xl" />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
