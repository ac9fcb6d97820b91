import { FileUp, Loader2, Upload, X } from "lucide-react";
import { useState } from "react";
import { Button } from "~/components/ui/button";
import { GENERIC_POOL_MEASURES, type PoolMeasure, type ReviewOutcome } from "~/lib/review-extraction";
import {
  type ColumnMapping,
  IMPORT_FIELD_LABEL,
  IMPORT_FIELDS,
  type ImportedData,
  type ImportError,
  MAX_IMPORT_CSV_BYTES,
} from "~/lib/study-data-import";

/** The preview POST /api/reviews/{id}/outcomes/import?dryRun=1 answers (and the import itself). */
interface ImportPreview {
  outcome: { id: number; name: string };
  headers: string[];
  mapping: ColumnMapping;
  outcomeValues: string[];
  rowCount: number;
  rows: {
    line: number;
    recordId: number;
    study: string;
    title: string;
    label: string;
    data: ImportedData;
    replaces: boolean;
  }[];
  unmatched: { line: number; study: string }[];
  errors: ImportError[];
  imported: number;
}

function dataText(d: ImportedData): string {
  if (d.kind === "counts") return `${d.events1}/${d.n1} vs ${d.events2}/${d.n2}`;
  if (d.kind === "means") return `${d.mean1} (SD ${d.sd1}, n ${d.n1}) vs ${d.mean2} (SD ${d.sd2}, n ${d.n2})`;
  return `${d.measure} ${d.estimate} (95% CI ${d.lower} to ${d.upper})`;
}

async function post(
  path: string,
  body: unknown,
): Promise<{ ok: boolean; body: ImportPreview & { message?: string; errors?: ImportError[] } }> {
  const res = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json().catch(() => ({}))) as ImportPreview & { message?: string };
  return { ok: res.ok, body: json };
}

/**
 * Import of study-level data into one of the review's outcomes from a CSV (issue 31): Covidence's
 * extraction export, RevMan's data-extraction templates or MetaMind's own per-analysis CSV. The
 * file is previewed first — the column of each field (suggested from the header names, editable),
 * the included study each line was matched to, and every line's error — and is imported only when
 * no line has an error, all lines at once.
 */
export function StudyDataImport({
  reviewId,
  outcomes,
  outcomeId,
  onImported,
}: {
  reviewId: string;
  outcomes: readonly ReviewOutcome[];
  outcomeId: number | null;
  onImported: () => void;
}) {
  const [open, setOpen] = useState(false);
  const [target, setTarget] = useState<number | null>(null);
  const [file, setFile] = useState<{ name: string; csv: string } | null>(null);
  const [mapping, setMapping] = useState<ColumnMapping | undefined>(undefined);
  const [outcomeValue, setOutcomeValue] = useState<string | null>(null);
  const [measure, setMeasure] = useState<PoolMeasure | null>(null);
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: "ok" | "error"; text: string } | null>(null);
  const base = `/api/reviews/${encodeURIComponent(reviewId)}/outcomes/import`;
  const chosen = target ?? outcomeId ?? outcomes[0]?.id ?? null;

  async function run(
    next: {
      csv: string;
      name: string;
      mapping?: ColumnMapping;
      outcomeValue?: string | null;
      measure?: PoolMeasure | null;
      outcomeId?: number | null;
    },
    commit = false,
  ) {
    const id = next.outcomeId === undefined ? chosen : next.outcomeId;
    if (id === null) return;
    setBusy(true);
    setMessage(null);
    try {
      const { ok, body } = await post(commit ? base : `${base}?dryRun=1`, {
        outcomeId: id,
        csv: next.csv,
        fileName: next.name,
        ...(next.mapping ? { mapping: next.mapping } : {}),
        ...(next.outcomeValue ? { outcomeValue: next.outcomeValue } : {}),
        ...(next.measure ? { measure: next.measure } : {}),
      });
      if (!ok) {
        setMessage({ kind: "error", text: body.message ?? "The file could not be read." });
        if (body.errors && preview) setPreview({ ...preview, errors: body.errors });
        return;
      }
      setPreview(body);
      if (!next.mapping) setMapping(body.mapping);
      if (commit) {
        setMessage({
          kind: "ok",
          text: `Imported ${body.imported} ${body.imported === 1 ? "study" : "studies"} into “${body.outcome.name}”.`,
        });
        setFile(null);
        setPreview(null);
        onImported();
      }
    } catch {
      setMessage({ kind: "error", text: "The server could not be reached." });
    } finally {
      setBusy(false);
    }
  }

  async function onFile(f: File | undefined) {
    setPreview(null);
    setMapping(undefined);
    setOutcomeValue(null);
    if (!f) return;
    if (f.size > MAX_IMPORT_CSV_BYTES) {
      setMessage({
        kind: "error",
        text: `The file is ${Math.ceil(f.size / 1024)} KB; at most ${MAX_IMPORT_CSV_BYTES / 1024} KB can be imported.`,
      });
      return;
    }
    const next = { name: f.name, csv: await f.text() };
    setFile(next);
    await run(next);
  }

  if (outcomes.length === 0) return null;
  if (!open) {
    return (
      <Button type="button" variant="outline" size="sm" onClick={() => setOpen(true)}>
        <FileUp aria-hidden /> Import study data (CSV)
      </Button>
    );
  }
  const hasEstimate = Boolean(mapping?.estimate);
  return (
    <div className="space-y-3 rounded-md border border-slate-200 p-3 text-sm" data-testid="study-data-import">
      <div className="flex items-start justify-between gap-2">
        <p className="text-slate-700">
          Import events/N or mean/SD/N per arm, or an estimate with its 95% CI, from Covidence&apos;s extraction export,
          a RevMan data-extraction template or a MetaMind analysis CSV. Each line is matched to a study included at full
          text (DOI, PMID, title or author and year); imported values replace MetaMind&apos;s reading of that study for
          the outcome. A file with any error imports nothing.
        </p>
        <button
          type="button"
          aria-label="Close the import"
          className="text-slate-400 hover:text-slate-700"
          onClick={() => setOpen(false)}
        >
          <X className="size-4" aria-hidden />
        </button>
      </div>
      <div className="flex flex-wrap items-end gap-3">
        <label className="flex flex-col text-xs text-slate-600">
          Into outcome
          <select
            aria-label="Import into outcome"
            className="mt-0.5 rounded border border-slate-300 px-2 py-1 text-sm"
            value={chosen ?? ""}
            onChange={(e) => {
              const id = Number(e.target.value);
              setTarget(id);
              if (file) void run({ ...file, mapping, outcomeValue, measure, outcomeId: id });
            }}
          >
            {outcomes.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col text-xs text-slate-600">
          CSV file
          <input
            type="file"
            accept=".csv,text/csv"
            aria-label="Study data CSV file"
            className="mt-0.5 text-sm"
            onChange={(e) => void onFile(e.target.files?.[0])}
          />
        </label>
        {busy && <Loader2 className="size-4 animate-spin text-slate-500" aria-label="Reading the file" />}
      </div>
      {preview && file && (
        <>
          <fieldset className="grid gap-2 sm:grid-cols-3 lg:grid-cols-4">
            <legend className="mb-1 text-xs font-medium text-slate-600">
              Columns (suggested from the header; change any)
            </legend>
            {IMPORT_FIELDS.map((field) => (
              <label key={field} className="flex flex-col text-xs text-slate-600">
                {IMPORT_FIELD_LABEL[field]}
                <select
                  aria-label={`Column for ${IMPORT_FIELD_LABEL[field]}`}
                  className="mt-0.5 rounded border border-slate-300 px-1 py-0.5 text-sm"
                  value={mapping?.[field] ?? ""}
                  onChange={(e) => {
                    const next: ColumnMapping = { ...mapping };
                    if (e.target.value) next[field] = e.target.value;
                    else delete next[field];
                    setMapping(next);
                    void run({ ...file, mapping: next, outcomeValue, measure });
                  }}
                >
                  <option value="">—</option>
                  {preview.headers.map((h) => (
                    <option key={h} value={h}>
                      {h}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          </fieldset>
          <div className="flex flex-wrap gap-3">
            {preview.outcomeValues.length > 1 && (
              <label className="flex flex-col text-xs text-slate-600">
                Outcome in the file
                <select
                  aria-label="Outcome in the file"
                  className="mt-0.5 rounded border border-slate-300 px-2 py-1 text-sm"
                  value={outcomeValue ?? ""}
                  onChange={(e) => {
                    setOutcomeValue(e.target.value || null);
                    void run({ ...file, mapping, outcomeValue: e.target.value || null, measure });
                  }}
                >
                  <option value="">choose…</option>
                  {preview.outcomeValues.map((v) => (
                    <option key={v} value={v}>
                      {v}
                    </option>
                  ))}
                </select>
              </label>
            )}
            {hasEstimate && (
              <label className="flex flex-col text-xs text-slate-600">
                Measure of estimates without one
                <select
                  aria-label="Measure of estimates without one"
                  className="mt-0.5 rounded border border-slate-300 px-2 py-1 text-sm"
                  value={measure ?? ""}
                  onChange={(e) => {
                    const m = (e.target.value || null) as PoolMeasure | null;
                    setMeasure(m);
                    void run({ ...file, mapping, outcomeValue, measure: m });
                  }}
                >
                  <option value="">none</option>
                  {GENERIC_POOL_MEASURES.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              </label>
            )}
          </div>
          {preview.errors.length > 0 && (
            <div
              role="alert"
              className="rounded border border-red-200 bg-red-50 p-2 text-red-800"
              data-testid="import-errors"
            >
              <p className="font-medium">
                {preview.errors.length} problem{preview.errors.length === 1 ? "" : "s"}: fix the file or the column
                mapping; nothing is imported until every line reads.
              </p>
              <ul className="mt-1 list-disc pl-5 text-xs">
                {preview.errors.slice(0, 50).map((e, i) => (
                  <li key={i}>
                    {e.line === 1 ? "Header" : `Line ${e.line}`}
                    {e.column ? ` (${e.column})` : ""}: {e.message}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {preview.rows.length > 0 && (
            <table className="min-w-full text-xs" aria-label="Import preview">
              <thead>
                <tr className="border-b border-slate-200 text-left text-slate-500">
                  <th className="py-1 pr-2">Line</th>
                  <th className="pr-2">In the file</th>
                  <th className="pr-2">Included study</th>
                  <th className="pr-2">Data (intervention vs comparator)</th>
                </tr>
              </thead>
              <tbody>
                {preview.rows.map((r) => (
                  <tr key={r.line} className="border-b border-slate-100">
                    <td className="py-0.5 pr-2 tabular-nums">{r.line}</td>
                    <td className="pr-2">{r.label}</td>
                    <td className="pr-2" title={r.title}>
                      {r.study}
                      {r.replaces ? <span className="text-amber-700"> (replaces its imported data)</span> : null}
                    </td>
                    <td className="pr-2 tabular-nums">{dataText(r.data)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <Button
            type="button"
            size="sm"
            disabled={busy || preview.errors.length > 0 || preview.rows.length === 0}
            onClick={() => void run({ ...file, mapping, outcomeValue, measure }, true)}
          >
            <Upload aria-hidden /> Import {preview.rows.length} {preview.rows.length === 1 ? "study" : "studies"} into “
            {preview.outcome.name}”
          </Button>
        </>
      )}
      {message && (
        <p
          role={message.kind === "error" ? "alert" : "status"}
          className={message.kind === "error" ? "text-red-700" : "text-emerald-700"}
        >
          {message.text}
        </p>
      )}
    </div>
  );
}
