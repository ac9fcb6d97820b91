import { Quote } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { effectLabel, fmt, MEASURE_LABELS } from "~/lib/meta-analysis/display";
import {
  DATA_FIELDS,
  fieldValue,
  DATA_KIND_LABELS,
  measuresFor,
  quotesForValue,
  validateRow,
  withDataKind,
  withMeasure,
  withOutcome,
  withPoolGroup,
  withValue,
  type DataRow,
} from "~/lib/meta-analysis/page-logic";
import { DATA_KINDS, type EffectData, type ExcludedStudy, type SupportingQuote } from "~/lib/meta-analysis/types";

export interface DataTableProps {
  rows: readonly DataRow[];
  excluded: readonly ExcludedStudy[];
  /** Called with the changed row's index and its new value; omit for a read-only table. */
  onChange?: (index: number, row: DataRow) => void;
}

const SOURCE_LABEL: Record<SupportingQuote["source"], string> = { abstract: "Abstract", fullText: "Full text" };

/**
 * A value's supporting quotes: a small button that shows them on hover, focus or click (like the
 * citation marks of cited-text.tsx). Escape closes; a click elsewhere unpins.
 */
function QuoteMark({ quotes, label }: { quotes: readonly SupportingQuote[]; label: string }) {
  const [hover, setHover] = useState(false);
  const [pinned, setPinned] = useState(false);
  const ref = useRef<HTMLSpanElement>(null);
  const tooltipId = useId();
  const open = hover || pinned;
  useEffect(() => {
    if (!pinned) return;
    const onDown = (event: PointerEvent) => {
      if (!ref.current?.contains(event.target as Node)) setPinned(false);
    };
    document.addEventListener("pointerdown", onDown);
    return () => document.removeEventListener("pointerdown", onDown);
  }, [pinned]);
  if (quotes.length === 0) return null;
  return (
    <span ref={ref} className="relative inline-block">
      <button
        type="button"
        data-testid="value-quote-mark"
        aria-label={`Source of ${label}`}
        aria-expanded={open}
        aria-describedby={open ? tooltipId : undefined}
        className="rounded p-0.5 text-brand-700 hover:bg-brand-50 focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:outline-none"
        onMouseEnter={() => setHover(true)}
        onMouseLeave={() => setHover(false)}
        onFocus={() => setHover(true)}
        onBlur={() => setHover(false)}
        onClick={() => setPinned((p) => !p)}
        onKeyDown={(event) => {
          if (event.key === "Escape" && open) {
            event.stopPropagation();
            setPinned(false);
            setHover(false);
          }
        }}
      >
        <Quote className="size-3" aria-hidden />
      </button>
      {open && (
        <span
          id={tooltipId}
          role="tooltip"
          data-testid="value-quote"
          className="absolute bottom-full left-1/2 z-50 mb-1 block w-80 max-w-[80vw] -translate-x-1/2 rounded-md border border-slate-200 bg-white p-2 text-left text-xs leading-snug font-normal text-slate-700 shadow-lg"
        >
          {quotes.map((q, i) => (
            <span key={i} className="block [&+&]:mt-1.5">
              <span className="font-semibold text-slate-900">{SOURCE_LABEL[q.source]}</span>{" "}
              <q className="italic">{q.quote}</q>
            </span>
          ))}
        </span>
      )}
    </span>
  );
}

/** Characters of an outcome name per line of its 12 rem box. */
const OUTCOME_CHARS_PER_LINE = 22;

/** Lines the outcome box needs to show `name` whole (1–6). */
export function outcomeRows(name: string): number {
  return Math.min(6, Math.max(1, Math.ceil(name.length / OUTCOME_CHARS_PER_LINE)));
}

/**
 * The extracted data table (one row per study): include checkbox, outcome, measure, the values of
 * its data form (2×2 counts, means with SDs, estimate with 95% CI, or yi/vi) each with the quote
 * it came from, and the reason a row cannot be pooled. Editable when `onChange` is given; read-only
 * (quotes printed in full) otherwise, as in the report. Studies without usable data are listed
 * below with the reason.
 */
export function DataTable({ rows, excluded, onChange }: DataTableProps) {
  const editable = !!onChange;
  return (
    <div className="data-table space-y-4">
      <div className="overflow-x-auto">
        <table data-testid="data-table" className="w-full border-collapse text-left text-sm">
          <caption className="sr-only">Extracted effect data per study</caption>
          <thead>
            <tr className="border-b border-slate-300 text-xs text-slate-600 uppercase">
              <th scope="col" className="py-2 pr-2">
                {editable ? "Include" : "Pooled"}
              </th>
              <th scope="col" className="py-2 pr-2">
                Study
              </th>
              <th scope="col" className="py-2 pr-2">
                Outcome
              </th>
              <th scope="col" className="py-2 pr-2">
                Measure
              </th>
              <th scope="col" className="py-2 pr-2">
                Values
              </th>
              {!editable && (
                <th scope="col" className="py-2">
                  Supporting quotes
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 && (
              <tr>
                <td colSpan={editable ? 5 : 6} className="py-3 text-sm text-slate-600">
                  No effect data was found in the selected studies.
                </td>
              </tr>
            )}
            {rows.map((row, index) => (
              <DataTableRow
                key={`${row.studyId}-${index}`}
                row={row}
                index={index}
                continued={index > 0 && rows[index - 1]!.studyId === row.studyId}
                onChange={onChange}
              />
            ))}
          </tbody>
        </table>
      </div>
      {excluded.length > 0 && (
        <div data-testid="excluded-studies" className="rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm">
          <h4 className="font-semibold text-amber-900">Studies without usable data (left out)</h4>
          <ul className="mt-1 list-disc space-y-1 pl-5 text-amber-900">
            {excluded.map((e) => (
              <li key={e.studyId} data-testid="excluded-study">
                <span className="font-medium">{e.title}</span> — {e.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

function DataTableRow({
  row,
  index,
  continued,
  onChange,
}: {
  row: DataRow;
  index: number;
  /** The previous row is the same study (its title is not repeated on screen). */
  continued: boolean;
  onChange?: (index: number, row: DataRow) => void;
}) {
  const problem = row.included ? validateRow(row) : null;
  const logEstimate = row.data.kind === "estimate-se" && row.data.scale === "log";
  // An estimate the text gives as a log ratio ("log HR −0.22") says so.
  const fields = DATA_FIELDS[row.data.kind].map((f) =>
    logEstimate && f.key === "estimate" ? { ...f, label: "Estimate (log scale)" } : f,
  );
  const editable = !!onChange;
  const titleId = `data-row-${index}-title`;
  return (
    <>
      <tr
        data-testid="data-row"
        data-study-id={row.studyId}
        data-included={row.included}
        className={`align-top ${problem ? "" : "border-b border-slate-100"} ${row.included ? "" : "text-slate-500"}`}
      >
        <td className="py-2 pr-2">
          {editable ? (
            <input
              type="checkbox"
              checked={row.included}
              aria-label={`Include ${row.title}`}
              onChange={(e) => onChange(index, { ...row, included: e.target.checked })}
            />
          ) : row.included ? (
            "Yes"
          ) : (
            "No"
          )}
        </td>
        <td className="max-w-56 py-2 pr-2">
          {continued ? (
            <span id={titleId} className="text-xs text-slate-500 italic">
              <span aria-hidden>same study, another outcome</span>
              <span className="sr-only">{row.title}</span>
            </span>
          ) : (
            <span id={titleId} className="font-medium text-slate-900">
              {row.title}
            </span>
          )}
          <span className="block text-xs text-slate-500">
            {row.design ? `${row.design} · ` : ""}
            {row.extractedBy === "user" ? "edited by you" : `extracted by ${row.extractedBy}`}
          </span>
        </td>
        <td className="py-2 pr-2">
          {editable ? (
            // A textarea as tall as the name needs: a long outcome name is read whole, not cut off.
            <textarea
              aria-label={`Outcome of ${row.title}`}
              value={row.outcome}
              maxLength={200}
              rows={outcomeRows(row.outcome)}
              onChange={(e) => onChange(index, withOutcome(row, e.target.value))}
              className="w-48 resize-y rounded border border-slate-300 px-2 py-1 leading-snug"
            />
          ) : (
            row.outcome
          )}
          {(row.comparison || row.timepoint) && (
            <span className="mt-1 block max-w-48 text-xs text-slate-500" data-testid="row-context">
              {row.comparison ? `${row.comparison}` : ""}
              {row.comparison && row.timepoint ? " · " : ""}
              {row.timepoint ? `at ${row.timepoint}` : ""}
            </span>
          )}
          {row.outcomeUncertain && (
            <span
              data-testid="outcome-uncertain"
              className="mt-1 block max-w-48 rounded bg-amber-50 px-1 text-xs text-amber-900"
              title="Name the outcome (or give a pool group) to pool this row; until then it is listed, not pooled."
            >
              Check the outcome: {row.outcomeUncertain}
            </span>
          )}
          {row.isPooledEstimate && (
            <span
              data-testid="pooled-estimate"
              className="mt-1 block max-w-48 rounded bg-amber-50 px-1 text-xs text-amber-900"
              title="The study reports this as its own pooled (meta-analytic) result, so it is not pooled again with primary studies."
            >
              Pooled result of a meta-analysis: not pooled again with primary studies
            </span>
          )}
          {editable ? (
            <label className="mt-1 flex flex-col text-xs text-slate-600">
              Pool group
              <input
                aria-label={`Pool group of ${row.title}`}
                data-testid="pool-group"
                value={row.poolGroup ?? ""}
                maxLength={100}
                placeholder="automatic"
                title="Rows with the same pool group are pooled together (merge); different groups are never pooled together (split). Leave empty to group by outcome, measure and timepoint."
                onChange={(e) => onChange(index, withPoolGroup(row, e.target.value))}
                className="w-40 rounded border border-slate-300 px-2 py-1"
              />
            </label>
          ) : (
            row.poolGroup && <span className="mt-1 block text-xs text-slate-500">pool group: {row.poolGroup}</span>
          )}
        </td>
        <td className="py-2 pr-2">
          {editable ? (
            <select
              aria-label={`Measure of ${row.title}`}
              value={row.measure}
              onChange={(e) => onChange(index, withMeasure(row, e.target.value as DataRow["measure"]))}
              className="rounded border border-slate-300 px-1 py-1"
            >
              {measuresFor(row.data.kind).map((m) => (
                <option key={m} value={m} title={MEASURE_LABELS[m]}>
                  {m}
                </option>
              ))}
            </select>
          ) : (
            <abbr title={MEASURE_LABELS[row.measure]}>{row.measure}</abbr>
          )}
          {row.reportedMeasure && (
            <span className="mt-1 block text-xs text-slate-500" title={effectLabel(row.measure, row.reportedMeasure)}>
              reported as {row.reportedMeasure}
            </span>
          )}
        </td>
        <td className="py-2 pr-2">
          {editable ? (
            <select
              aria-label={`Data type of ${row.title}`}
              data-testid="data-kind"
              value={row.data.kind}
              title="RevMan's data types: switching empties the values for you to enter."
              onChange={(e) => onChange(index, withDataKind(row, e.target.value as EffectData["kind"]))}
              className="mb-1 max-w-64 rounded border border-slate-300 px-1 py-0.5 text-xs"
            >
              {DATA_KINDS.map((k) => (
                <option key={k} value={k}>
                  {DATA_KIND_LABELS[k]}
                </option>
              ))}
            </select>
          ) : (
            <span className="mb-1 block text-xs text-slate-500">{DATA_KIND_LABELS[row.data.kind]}</span>
          )}
          <div className="flex flex-wrap gap-2">
            {fields.map((f) => {
              const value = fieldValue(row.data, f.key);
              const quotes = quotesForValue(row.quotes, value);
              return (
                <label key={f.key} className="flex flex-col text-xs text-slate-600">
                  <span className="flex items-center gap-0.5">
                    {f.label}
                    {editable && <QuoteMark quotes={quotes} label={`${f.label} of ${row.title}`} />}
                  </span>
                  {editable ? (
                    <input
                      type="number"
                      step="any"
                      data-field={f.key}
                      aria-label={`${f.label} of ${row.title}`}
                      value={Number.isFinite(value) ? value : ""}
                      onChange={(e) =>
                        onChange(
                          index,
                          withValue(row, f.key, e.target.value === "" ? Number.NaN : Number(e.target.value)),
                        )
                      }
                      className="w-24 rounded border border-slate-300 px-2 py-1 text-sm text-slate-900 tabular-nums"
                    />
                  ) : (
                    <span className="text-sm text-slate-900 tabular-nums">
                      {fmt(value, f.integer ? 0 : 3, "missing")}
                    </span>
                  )}
                </label>
              );
            })}
          </div>
        </td>
        {!editable && (
          <td className="py-2 text-xs text-slate-700">
            {row.quotes.length === 0
              ? "No quote (entered by the user)"
              : row.quotes.map((q, i) => (
                  <blockquote key={i} className="quote">
                    <span className="font-semibold">{SOURCE_LABEL[q.source]}:</span> “{q.quote}”
                  </blockquote>
                ))}
          </td>
        )}
      </tr>
      {problem && (
        <tr className="border-b border-slate-100">
          <td />
          <td colSpan={editable ? 4 : 5} className="pb-2 text-xs text-red-700" role="alert" data-testid="row-problem">
            {problem}
          </td>
        </tr>
      )}
    </>
  );
}
