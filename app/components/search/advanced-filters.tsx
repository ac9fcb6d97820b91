import { ChevronDown, SlidersHorizontal } from "lucide-react";
import { useId, type ReactNode } from "react";
import { Badge } from "~/components/ui/badge";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import {
  ABSTRACT_OPTIONS,
  activeFilterBadges,
  customRangeError,
  DATE_RANGE_OPTIONS,
  DEFAULT_SEARCH_FORM,
  FULL_TEXT_OPTIONS,
  JOURNAL_IMPACT_OPTIONS,
  LIMIT_OPTIONS,
  STUDY_TYPE_OPTIONS,
  type Option,
  type SearchFormState,
} from "~/lib/search-params";
import { cn } from "~/lib/utils";

export interface AdvancedFiltersProps {
  value: SearchFormState;
  onChange: (next: SearchFormState) => void;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

const SELECT_CLASS =
  "h-10 w-full rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-900 shadow-sm focus-visible:border-brand-500 focus-visible:ring-2 focus-visible:ring-brand-500/30 focus-visible:outline-none";

/** The collapsible Advanced Filters section of the search panel (SPEC §2, §9). */
export function AdvancedFilters({ value, onChange, open, onOpenChange }: AdvancedFiltersProps) {
  const id = useId();
  const panelId = `${id}-panel`;
  const active = activeFilterBadges({ ...value, limit: DEFAULT_SEARCH_FORM.limit }).length;
  const rangeError = customRangeError(value);

  function set<K extends keyof SearchFormState>(key: K, next: SearchFormState[K]) {
    onChange({ ...value, [key]: next });
  }

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
        <ChevronDown
          className={cn("size-4 text-slate-400 transition-transform", open && "rotate-180")}
          aria-hidden
        />
      </button>

      <div id={panelId} hidden={!open} className="mt-3 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        <div className="space-y-3">
          <SelectField
            id={`${id}-date`}
            label="Date range"
            options={DATE_RANGE_OPTIONS}
            value={value.dateRange}
            onChange={(v) => set("dateRange", v)}
          />
          {value.dateRange === "custom" && (
            <div className="grid grid-cols-2 gap-2">
              <div className="space-y-1">
                <Label htmlFor={`${id}-from`}>From</Label>
                <Input
                  id={`${id}-from`}
                  type="date"
                  value={value.customDateFrom}
                  max={value.customDateTo || undefined}
                  aria-invalid={rangeError ? true : undefined}
                  aria-describedby={rangeError ? `${id}-range-error` : undefined}
                  onChange={(e) => set("customDateFrom", e.target.value)}
                />
              </div>
              <div className="space-y-1">
                <Label htmlFor={`${id}-to`}>To</Label>
                <Input
                  id={`${id}-to`}
                  type="date"
                  value={value.customDateTo}
                  min={value.customDateFrom || undefined}
                  aria-invalid={rangeError ? true : undefined}
                  aria-describedby={rangeError ? `${id}-range-error` : undefined}
                  onChange={(e) => set("customDateTo", e.target.value)}
                />
              </div>
              {rangeError && (
                <p id={`${id}-range-error`} role="alert" className="col-span-2 text-sm text-red-600">
                  {rangeError}
                </p>
              )}
            </div>
          )}
        </div>

        <SelectField
          id={`${id}-type`}
          label="Study type"
          options={STUDY_TYPE_OPTIONS}
          value={value.studyType}
          onChange={(v) => set("studyType", v)}
        />

        <SelectField
          id={`${id}-impact`}
          label="Journal impact"
          options={JOURNAL_IMPACT_OPTIONS}
          value={value.journalImpact}
          onChange={(v) => set("journalImpact", v)}
          hint="Impact figures come from the impactFactor field of each record; none of the six databases supplies one, so impact filters other than Any keep only studies with a known figure."
        />

        <SelectField
          id={`${id}-fulltext`}
          label="Full text"
          options={FULL_TEXT_OPTIONS}
          value={value.fullTextOnly}
          onChange={(v) => set("fullTextOnly", v)}
        />

        <SelectField
          id={`${id}-abstract`}
          label="Abstract"
          options={ABSTRACT_OPTIONS}
          value={value.hasAbstract}
          onChange={(v) => set("hasAbstract", v)}
        />

        <SelectField
          id={`${id}-limit`}
          label="Results"
          options={LIMIT_OPTIONS}
          value={value.limit}
          onChange={(v) => set("limit", v)}
        />
      </div>
    </div>
  );
}

function SelectField<T extends string | number>({
  id,
  label,
  options,
  value,
  onChange,
  hint,
}: {
  id: string;
  label: string;
  options: readonly Option<T>[];
  value: T;
  onChange: (value: T) => void;
  hint?: ReactNode;
}) {
  return (
    <div className="space-y-1">
      <Label htmlFor={id}>{label}</Label>
      <select
        id={id}
        value={String(value)}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => {
          const next = options.find((o) => String(o.value) === e.target.value);
          if (next) onChange(next.value);
        }}
        className={SELECT_CLASS}
      >
        {options.map((o) => (
          <option key={o.value} value={String(o.value)}>
            {o.label}
          </option>
        ))}
      </select>
      {hint && (
        <p id={`${id}-hint`} className="text-xs leading-snug text-slate-500">
          {hint}
        </p>
      )}
    </div>
  );
}
