import * as Dialog from "@radix-ui/react-dialog";
import { Check, Copy, X } from "lucide-react";
import { useEffect, useState } from "react";
import { Button } from "~/components/ui/button";
import { toast } from "~/lib/toast";
import { storedStudyId } from "~/lib/sealed-studies";

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
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-slate-900/50" />
        <Dialog.Content
          data-testid="citation-dialog"
          className="fixed top-1/2 left-1/2 z-50 max-h-[90vh] w-[calc(100%-2rem)] max-w-2xl -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-xl border border-slate-200 bg-white p-6 shadow-xl focus:outline-none"
        >
          <div className="flex items-start justify-between gap-4">
            <Dialog.Title className="text-lg font-semibold text-slate-900">Cite this study</Dialog.Title>
            <Dialog.Close asChild>
              <Button variant="ghost" size="icon" className="-mt-1 -mr-2 size-8" aria-label="Close">
                <X aria-hidden />
              </Button>
            </Dialog.Close>
          </div>
          <Dialog.Description className="mt-1 line-clamp-2 text-sm text-slate-600">{title}</Dialog.Description>
          {open && <CitationList studyId={studyId} />}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function CitationList({ studyId }: { studyId: number }) {
  const [state, setState] = useState<{ status: "loading" } | { status: "error" } | { status: "ready"; citations: Citations }>({
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
