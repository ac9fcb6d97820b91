import History from "lucide-react/icons/rotate-ccw-clock";
import { useState } from "react";
import { loadWhenOpen } from "~/components/on-demand";
import { cn } from "~/lib/utils";

const HistoryDialog = loadWhenOpen(() => import("~/components/search/history-dialog").then((m) => m.HistoryDialog));

/**
 * The header's History button (icon only on small screens). Its dialog, with the Radix dialog
 * code, loads on the first click (not part of any page's initial JavaScript).
 */
export function HistoryButton({ className }: { className?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        title="Search history"
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen(true)}
        className={cn(
          "flex items-center gap-2 rounded-md px-2 py-2 text-sm font-medium whitespace-nowrap text-slate-600 transition-colors hover:bg-slate-100 hover:text-slate-900 focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:outline-none sm:px-2.5 lg:px-3 xl:px-2.5",
          className,
        )}
      >
        <History className="size-4 shrink-0" aria-hidden />
        <span className="sr-only xl:not-sr-only">
          <span className="whitespace-nowrap">History</span>
        </span>
      </button>
      <HistoryDialog open={open} onOpenChange={setOpen} />
    </>
  );
}
