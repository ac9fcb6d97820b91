import type { ReactNode } from "react";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import {
  ABSTRACT_OPTIONS,
  customRangeError,
  DATE_RANGE_OPTIONS,
  FULL_TEXT_OPTIONS,
  JOURNAL_IMPACT_OPTIONS,
  LIMIT_OPTIONS,
  STUDY_TYPE_OPTIONS,
  type Option,
  type SearchFormState,
} from "~/lib/search-params";

const SELECT_CLASS =
  "h-10 w-full rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-900 shadow-sm focus-visible:border-brand-500 focus-visible:ring-2 focus-visible:ring-brand-500/30 focus-visible:outline-none";

export interface AdvancedFilterFieldsProps {
  /** Prefix of the fields' element ids (unique on the page). */
  id: string;
  value: SearchFormState;
  onChange: (next: SearchFormState) => void;
  /** Whether the panel is shown; the fields load the first time it is (see AdvancedFilters). */
  open: boolean;
}

/**
 * The fields of the Advanced Filters panel (SPEC §2, §9): date range (with a custom From–To),
 * study type, journal impact, full text, abstract and results per page. Loaded on demand when the
 * panel first opens (issue 17 page budgets); rendered inside AdvancedFilters' grid.
 */
export function AdvancedFilterFields({ id, value, onChange }: AdvancedFilterFieldsProps) {
  const rangeError = customRangeError(value);

  function set<K extends keyof SearchFormState>(key: K, next: SearchFormState[K]) {
    onChange({ ...value, [key]: next });
  }

  return (
    <>
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
    </>
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
