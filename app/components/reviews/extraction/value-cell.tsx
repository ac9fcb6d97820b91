import { useState } from "react";
import { Input } from "~/components/ui/input";
import type { ArmField, ArmKey } from "~/lib/arms";
import type { ReviewExtractionStudy } from "~/lib/review-extraction";
import { ARM_LABEL, FIELD_LABEL } from "./labels";

/**
 * One extracted arm value: a button that selects it (showing its quote), or "not reported", a "d"
 * mark when it was derived, and "edit", which turns it into an input (empty = not reported; Escape
 * cancels) that stays open until `onEdit` resolves true.
 */
export function ValueCell({
  study,
  arm,
  field,
  selected,
  onSelect,
  onEdit,
}: {
  study: ReviewExtractionStudy;
  arm: ArmKey;
  field: ArmField;
  selected: boolean;
  onSelect: () => void;
  onEdit: (value: number | null) => Promise<boolean>;
}) {
  const value = study.result[arm][field];
  const derived = study.result.derived.some((d) => d.arm === arm && d.field === field);
  const [draft, setDraft] = useState<string | null>(null);
  const label = `${study.title}: ${ARM_LABEL[arm]} ${FIELD_LABEL[field]}`;
  if (draft !== null) {
    return (
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const trimmed = draft.trim();
          void onEdit(trimmed === "" ? null : Number(trimmed)).then((ok) => ok && setDraft(null));
        }}
      >
        <Input
          aria-label={`Edit ${label}`}
          value={draft}
          autoFocus
          inputMode="decimal"
          className="h-7 w-20 px-1 text-sm"
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => e.key === "Escape" && setDraft(null)}
        />
      </form>
    );
  }
  return (
    <div className="flex items-center gap-1">
      <button
        type="button"
        aria-label={value === null ? `${label}: not reported` : `${label}: ${value}, show quote`}
        aria-pressed={selected}
        onClick={onSelect}
        className={`rounded px-1 text-left text-sm tabular-nums ${selected ? "ring-2 ring-brand-500" : ""} ${value === null ? "text-slate-400 italic" : "text-slate-900 underline decoration-dotted"}`}
      >
        {value === null ? "not reported" : String(value)}
        {derived ? <sup title="derived">d</sup> : null}
      </button>
      <button
        type="button"
        className="text-xs text-brand-700 hover:underline"
        aria-label={`Correct ${label}`}
        onClick={() => setDraft(value === null ? "" : String(value))}
      >
        edit
      </button>
    </div>
  );
}
