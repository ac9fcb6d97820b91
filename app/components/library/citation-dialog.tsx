import { Check, Copy } from "lucide-react";
import { useEffect, useState } from "react";
import { Button } from "~/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "~/components/ui/dialog";
import { toast } from "~/browser/toast";
import { storedStudyId } from "~/browser/sealed-studies";

type Citations = { apa: string; mla: string; chicago: string };

const STYLES: { key: keyof Citations; label: string }[] = [
  { key: "apa", label: "APA (7th edition)" },
  { key: "mla", label: "MLA (9th edition)" },
  { key: "chicago", label: "Chicago (17th edition, author-date)" },
];

/**
 * The citation formats dialog (SPEC §2): APA, MLA and Chicago from GET /api/studies/{id}/citations,
 * each with a copy button ('Failed to copy citation to clipboard.' when the clipboard refuses).
 */
export function CitationDialog({
  studyId,
  title,
  open,
  onOpenChange,
}: {
  studyId: number;
  title: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent data-testid="citation-dialog" className="max-h-[90vh] max-w-2xl overflow-y-auto">
        <DialogHeader>
          <DialogTitle>Cite this study</DialogTitle>
        </DialogHeader>
        <DialogDescription className="mt-1 line-clamp-2 text-sm text-slate-600">{title}</DialogDescription>
        {open && <CitationList studyId={studyId} />}
      </DialogContent>
    </Dialog>
  );
}

function CitationList({ studyId }: { studyId: number }) {
  const [state, setState] = useState<
    { status: "loading" } | { status: "error" } | { status: "ready"; citations: Citations }
  >({
    status: "loading",
  });
  const [copied, setCopied] = useState<keyof Citations | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    storedStudyId(studyId)
      .then((id) => fetch(`/api/studies/${id}/citations`, { credentials: "include", signal: controller.signal }))
      .then(async (res) => {
        if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
        setState({ status: "ready", citations: (await res.json()) as Citations });
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        console.warn("citations failed", error);
        setState({ status: "error" });
      });
    return () => controller.abort();
  }, [studyId]);

  async function copy(key: keyof Citations, text: string) {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(key);
      toast({ title: "Copied to Clipboard" });
    } catch {
      toast({ title: "Error", description: "Failed to copy citation to clipboard.", variant: "destructive" });
    }
  }

  if (state.status === "loading") return <p className="mt-4 text-sm text-slate-500">Loading citations...</p>;
  if (state.status === "error") {
    return <p className="mt-4 text-sm text-red-600">Could not load the citations. Please try again.</p>;
  }
  return (
    <div className="mt-4 space-y-4">
      {STYLES.map(({ key, label }) => (
        <section key={key} data-testid={`citation-${key}`}>
          <div className="flex items-center justify-between gap-2">
            <h3 className="text-sm font-semibold text-slate-900">{label}</h3>
            <Button variant="outline" size="sm" onClick={() => copy(key, state.citations[key])}>
              {copied === key ? <Check aria-hidden /> : <Copy aria-hidden />}
              {copied === key ? "Copied" : "Copy"}
            </Button>
          </div>
          <p className="mt-1 rounded-md bg-slate-50 p-3 text-sm leading-relaxed text-slate-800 select-all">
            {state.citations[key]}
          </p>
        </section>
      ))}
    </div>
  );
}
