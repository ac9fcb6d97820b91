import { ChevronDown, SlidersHorizontal } from "lucide-react";
import { useId } from "react";
import { loadWhenOpen } from "~/components/on-demand";
import { Badge } from "~/components/ui/badge";
import { activeFilterBadges, DEFAULT_SEARCH_FORM, type SearchFormState } from "~/lib/search-params";
import { cn } from "~/lib/utils";

/** The panel's fields, loaded the first time it opens (issue 17: not in /search's initial JavaScript). */
const AdvancedFilterFields = loadWhenOpen(() =>
  import("~/components/search/advanced-filter-fields").then((m) => m.AdvancedFilterFields),
);

export interface AdvancedFiltersProps {
  value: SearchFormState;
  onChange: (next: SearchFormState) => void;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/** The collapsible Advanced Filters section of the search panel (SPEC §2, §9). */
export function AdvancedFilters({ value, onChange, open, onOpenChange }: AdvancedFiltersProps) {
  const id = useId();
  const panelId = `${id}-panel`;
  const active = activeFilterBadges({ ...value, limit: DEFAULT_SEARCH_FORM.limit }).length;

  return (
    <div className="mt-4 border-t border-slate-100 pt-3">
      <button
        type="button"
        data-testid="advanced-filters-toggle"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => onOpenChange(!open)}
        className="flex items-center gap-2 rounded-md py-1 text-sm font-medium text-slate-700 hover:text-slate-900 focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:outline-none"
      >
        <SlidersHorizontal className="size-4 text-slate-500" aria-hidden />
        Advanced Filters
        {active > 0 && (
          <Badge variant="secondary" className="bg-brand-50 text-brand-700">
            {active} active
          </Badge>
        )}
        <ChevronDown className={cn("size-4 text-slate-400 transition-transform", open && "rotate-180")} aria-hidden />
      </button>

      <div id={panelId} hidden={!open} className="mt-3 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        <AdvancedFilterFields id={id} value={value} onChange={onChange} open={open} />
      </div>
    </div>
  );
}
