import { ArrowUp, Download, FileStack, FlaskConical, Trash2 } from "lucide-react";
import { Link } from "@remix-run/react";
import { useEffect, useState } from "react";
import { loadWhenOpen } from "~/components/on-demand";
import { Button } from "~/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "~/components/ui/dialog";
import { formatAuthors, formatPublicationDate, PROVIDER_LABELS } from "~/lib/format";
import { clearSelection, removeStudy, useMetaSelection } from "~/browser/meta-selection";

const CombinedSummaryDialog = loadWhenOpen(() =>
  import("~/components/combined-summary-dialog").then((m) => m.CombinedSummaryDialog),
);
const ExportDialog = loadWhenOpen(() => import("~/components/export-dialog").then((m) => m.ExportDialog));
const GuestTrialDialog = loadWhenOpen(() => import("~/components/guest-trial-dialog").then((m) => m.GuestTrialDialog));
const UpgradePrompt = loadWhenOpen(() => import("~/components/search/upgrade-prompt").then((m) => m.UpgradePrompt));

/** Scroll distance (px) after which the scroll-to-top button appears. */
export const SCROLL_TOP_THRESHOLD = 400;

const FAB_CLASS =
  "flex items-center justify-center rounded-full shadow-lg transition focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:ring-offset-2 focus-visible:outline-none";

/** The search page's floating buttons (SPEC §2): meta-analysis selection above scroll-to-top. */
export function FloatingActions({ signedIn }: { signedIn: boolean }) {
  return (
    <div className="pointer-events-none fixed right-4 bottom-4 z-30 flex flex-col items-end gap-3 sm:right-6 sm:bottom-6">
      <MetaAnalysisButton signedIn={signedIn} />
      <ScrollToTopButton />
    </div>
  );
}

/**
 * The scroll-to-top button, shown once the page is scrolled past SCROLL_TOP_THRESHOLD. It watches a
 * 1 px sentinel at that depth with an IntersectionObserver instead of reading `window.scrollY` on
 * every scroll event: a scrollY read while results stream in forces a synchronous layout (the
 * search page's largest main-thread task in Lighthouse's trace).
 */
export function ScrollToTopButton() {
  const [visible, setVisible] = useState(false);

  useEffect(() => {
    const sentinel = document.createElement("div");
    sentinel.setAttribute("aria-hidden", "true");
    sentinel.style.cssText = `position:absolute;top:${SCROLL_TOP_THRESHOLD}px;left:0;width:1px;height:1px;pointer-events:none;visibility:hidden`;
    document.body.appendChild(sentinel);
    const observer = new IntersectionObserver(([entry]) => {
      setVisible(!entry.isIntersecting && entry.boundingClientRect.top < 0);
    });
    observer.observe(sentinel);
    return () => {
      observer.disconnect();
      sentinel.remove();
    };
  }, []);

  if (!visible) return null;
  return (
    <button
      type="button"
      data-testid="scroll-top"
      aria-label="Scroll to top"
      title="Scroll to top"
      onClick={() => {
        const reduce = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
        window.scrollTo({ top: 0, behavior: reduce ? "auto" : "smooth" });
      }}
      className={`${FAB_CLASS} pointer-events-auto size-11 border border-slate-200 bg-white text-slate-700 hover:bg-slate-50`}
    >
      <ArrowUp className="size-5" aria-hidden />
    </button>
  );
}

/** Hints of the meta-analysis page (SPEC §2) for 1 and 2+ selected studies. */
export function selectionHint(count: number): string | null {
  if (count === 1) return "Add at least one more study to run a meta-analysis";
  if (count >= 2) return `Ready for meta-analysis (${count} studies)`;
  return null;
}

/**
 * The count of studies added to the meta-analysis (hidden at 0), the drawer listing them, and the
 * combined research summary of the selection.
 */
export function MetaAnalysisButton({ signedIn }: { signedIn: boolean }) {
  const studies = useMetaSelection();
  const count = studies.length;
  const [open, setOpen] = useState(false);
  const [combinedOpen, setCombinedOpen] = useState(false);
  const [exportOpen, setExportOpen] = useState(false);
  const [gate, setGate] = useState<{ trial: boolean } | null>(null);
  if (open && count === 0) setOpen(false);

  if (count === 0) return null;
  const label = `Meta-analysis: ${count} ${count === 1 ? "study" : "studies"} selected`;
  const hint = selectionHint(count);

  return (
    <>
      <Dialog open={open} onOpenChange={setOpen}>
        <DialogTrigger asChild>
          <button
            type="button"
            data-testid="meta-fab"
            aria-label={label}
            title={label}
            className={`${FAB_CLASS} pointer-events-auto h-12 min-w-12 gap-1.5 bg-brand-600 px-4 text-white hover:bg-brand-700`}
          >
            <FlaskConical className="size-5" aria-hidden />
            <span className="text-sm font-semibold tabular-nums">{count}</span>
          </button>
        </DialogTrigger>
        <DialogContent layout="sheet">
          <DialogHeader closeClassName="size-8">
            <div>
              <DialogTitle className="flex items-center gap-2">
                <FlaskConical className="size-5 text-brand-600" aria-hidden />
                Meta-analysis selection
              </DialogTitle>
              <DialogDescription>{hint}</DialogDescription>
            </div>
          </DialogHeader>

          <ul className="flex-1 space-y-3 overflow-y-auto p-5" aria-label="Selected studies">
            {studies.map((study) => (
              <li key={study.id} data-testid="meta-selected-study" className="rounded-lg border border-slate-200 p-3">
                <div className="flex items-start gap-2">
                  <div className="min-w-0 flex-1">
                    <p className="text-sm leading-snug font-medium text-slate-900">{study.title}</p>
                    <p className="mt-1 truncate text-xs text-slate-600">{formatAuthors(study.authors)}</p>
                    <p className="text-xs text-slate-500">
                      {[study.journal, formatPublicationDate(study.publicationDate), PROVIDER_LABELS[study.source]]
                        .filter(Boolean)
                        .join(" · ")}
                    </p>
                  </div>
                  <Button
                    variant="ghost"
                    size="icon"
                    className="size-8 shrink-0 text-slate-500 hover:bg-red-50 hover:text-red-700"
                    aria-label={`Remove "${study.title}" from the meta-analysis`}
                    onClick={() => removeStudy(study.id)}
                  >
                    <Trash2 aria-hidden />
                  </Button>
                </div>
              </li>
            ))}
          </ul>

          <DialogFooter className="justify-between p-5">
            <p className="text-sm text-slate-600">
              {count} {count === 1 ? "study" : "studies"} selected
            </p>
            <div className="flex flex-wrap justify-end gap-2">
              <Button variant="outline" size="sm" onClick={clearSelection}>
                <Trash2 aria-hidden />
                Clear all
              </Button>
              <Button
                variant="outline"
                size="sm"
                data-testid="export-selection"
                onClick={() => {
                  setOpen(false);
                  setExportOpen(true);
                }}
              >
                <Download aria-hidden />
                Export
              </Button>
              <Button
                size="sm"
                onClick={() => {
                  setOpen(false);
                  setCombinedOpen(true);
                }}
              >
                <FileStack aria-hidden />
                Combined Summary
              </Button>
              <Button asChild size="sm" variant="outline">
                <Link to="/meta-analysis" onClick={() => setOpen(false)}>
                  <FlaskConical aria-hidden />
                  Meta-Analysis
                </Link>
              </Button>
            </div>
          </DialogFooter>
        </DialogContent>
      </Dialog>
      <ExportDialog open={exportOpen} onOpenChange={setExportOpen} studyIds={studies.map((s) => s.id)} />
      <CombinedSummaryDialog
        studies={[...studies]}
        open={combinedOpen}
        onOpenChange={setCombinedOpen}
        signedIn={signedIn}
        onGate={(_kind, _feature, { trial }) => setGate({ trial: trial === true })}
      />
      <GuestTrialDialog open={gate?.trial === true} onOpenChange={(o) => !o && setGate(null)} feature="aiSummaries" />
      <UpgradePrompt
        open={gate?.trial === false}
        onOpenChange={(o) => !o && setGate(null)}
        feature="ai_summaries"
        reason="You've used all your free AI analyses this month"
      />
    </>
  );
}
