import { Search, SlidersHorizontal, X } from "lucide-react";
import { Button } from "~/components/ui/button";

export interface QuickSearchBannerProps {
  onDismiss: () => void;
  /** Opens the Advanced Filters section; the hint becomes a button when given. */
  onOpenFilters?: () => void;
}

/** Shown when the results came from the dashboard's Quick Search box (SPEC §2). */
export function QuickSearchBanner({ onDismiss, onOpenFilters }: QuickSearchBannerProps) {
  return (
    <section
      data-testid="quick-search-banner"
      aria-label="Quick Search"
      className="flex items-start gap-3 rounded-xl border border-brand-100 bg-brand-50 px-4 py-3 text-sm text-brand-700"
    >
      <Search className="mt-0.5 size-4 shrink-0" aria-hidden />
      <div className="min-w-0 flex-1">
        <p className="font-semibold">Quick Search results from PubMed</p>
        <p className="mt-0.5 text-slate-700">
          Refine them with Advanced Filters: date range, study type, journal impact, full text and abstract.
        </p>
        {onOpenFilters && (
          <Button variant="outline" size="sm" className="mt-2" onClick={onOpenFilters}>
            <SlidersHorizontal aria-hidden />
            Open Advanced Filters
          </Button>
        )}
      </div>
      <Button
        variant="ghost"
        size="icon"
        className="-mt-1 -mr-2 size-8 text-brand-700 hover:bg-brand-100"
        aria-label="Dismiss Quick Search notice"
        onClick={onDismiss}
      >
        <X aria-hidden />
      </Button>
    </section>
  );
}
