import { Download } from "lucide-react";
import { Button } from "~/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "~/components/ui/dialog";

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
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent data-testid="results-dialog" layout="fill">
        <DialogHeader
          className="items-center p-4"
          closeClassName="size-8"
          actions={
            <Button size="sm" variant="outline" onClick={onDownload}>
              <Download aria-hidden />
              Download
            </Button>
          }
        >
          <DialogTitle>Meta-analysis report</DialogTitle>
          <DialogDescription className="sr-only">The report as it is saved and downloaded.</DialogDescription>
        </DialogHeader>
        <iframe title="Meta-analysis report" srcDoc={reportHtml} sandbox="" className="w-full flex-1 rounded-b-xl" />
      </DialogContent>
    </Dialog>
  );
}
