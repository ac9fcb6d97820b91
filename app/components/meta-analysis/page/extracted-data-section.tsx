import { DataTable } from "~/components/meta-analysis/data-table";
import type { DataRow } from "~/lib/meta-analysis/page-logic";
import type { ExcludedStudy } from "~/lib/meta-analysis/types";

/**
 * The reviewable extracted data (who extracted it, how pooling groups rows, and how many selected
 * studies were added after the extraction); rows are editable unless `onRowChange` is undefined.
 */
export function ExtractedDataSection({
  rows,
  excluded,
  extractedBy,
  notExtracted,
  onRowChange,
}: {
  rows: DataRow[];
  excluded: ExcludedStudy[];
  extractedBy: string;
  notExtracted: number;
  onRowChange: ((index: number, row: DataRow) => void) | undefined;
}) {
  return (
    <section aria-labelledby="data-heading" className="mt-8 rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
      <h2 id="data-heading" className="text-lg font-semibold text-slate-900">
        Extracted data
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Extracted by {extractedBy}. Hover or click a value&apos;s quote mark to see the sentence it came from; edit
        values, the outcome or the measure, and untick rows to leave them out. Studies are pooled only when their
        outcomes match (same outcome, measure and a compatible timepoint); give rows the same pool group to merge them,
        or different groups to split them. A meta-analysis&apos;s own pooled result is listed, not pooled again with
        primary studies.
      </p>
      {notExtracted > 0 && (
        <p role="note" data-testid="not-extracted" className="mt-2 rounded-md bg-amber-50 p-2 text-sm text-amber-900">
          {notExtracted === 1 ? "1 selected study was" : `${notExtracted} selected studies were`} added after the
          extraction and {notExtracted === 1 ? "is" : "are"} not in the table: choose Extract Again to include{" "}
          {notExtracted === 1 ? "it" : "them"}.
        </p>
      )}
      <div className="mt-4">
        <DataTable rows={rows} excluded={excluded} onChange={onRowChange} />
      </div>
    </section>
  );
}
