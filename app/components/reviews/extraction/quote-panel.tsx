import { QuotedTable } from "~/components/meta-analysis/quoted-table";
import type { ArmField, ArmKey } from "~/lib/arms";
import { SOURCE_LABEL, type QuoteContext, type ReviewExtractionStudy } from "~/lib/review-extraction";
import { ARM_LABEL, FIELD_LABEL } from "./labels";

/** Where a value was read: the sentence (match highlighted) or the table cell, whether it was derived or corrected, or "Not reported". */
export function QuotePanel({ study, arm, field }: { study: ReviewExtractionStudy; arm: ArmKey; field: ArmField }) {
  const context: QuoteContext | undefined = study.contexts.find((c) => c.arm === arm && c.field === field);
  const derived = study.result.derived.find((d) => d.arm === arm && d.field === field);
  const edited = [...study.audit].reverse().find((a) => a.arm === arm && a.field === field);
  const table = context?.kind === "table" ? study.tables[context.table] : undefined;
  return (
    <div className="mt-3 rounded-md border border-amber-200 bg-amber-50/40 p-3" data-testid="review-quote">
      <p className="mb-1 text-xs font-medium text-slate-600">
        {study.title} · {ARM_LABEL[arm]} · {FIELD_LABEL[field]} · read from the {SOURCE_LABEL[study.source.kind]}
        {derived ? ` · derived from ${derived.from}` : ""}
        {edited ? ` · corrected by ${edited.who}` : ""}
      </p>
      {!context && <p className="text-sm text-slate-500 italic">Not reported in the text MetaMind read.</p>}
      {context?.kind === "text" && (
        <>
          <p className="text-sm leading-relaxed text-slate-700">
            …{context.before}
            <mark data-highlighted="true" className="rounded bg-amber-200 px-0.5">
              {context.match}
            </mark>
            {context.after}…
          </p>
          {context.sourceSpan && (study.source.kind === "upload" || study.source.kind === "fulltext") && (
            <p className="mt-1 text-xs text-slate-500">
              Characters {context.sourceSpan.start}–{context.sourceSpan.end} of the {SOURCE_LABEL[study.source.kind]}
              &apos;s text.
            </p>
          )}
        </>
      )}
      {context?.kind === "table" && !table && (
        <p className="text-sm text-slate-700">
          {context.table}: “{context.text}”
        </p>
      )}
      {context?.kind === "table" && table && <QuotedTable table={table} row={context.row} column={context.column} />}
    </div>
  );
}
