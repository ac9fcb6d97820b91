import { Download, History, Loader2, Plus, Trash2 } from "lucide-react";
import { useEffect, useState } from "react";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import {
  CHARACTERISTIC_TYPES,
  type CharacteristicColumn,
  type CharacteristicEdit,
  type CharacteristicsStudy,
  type CharacteristicsTable,
  type CharacteristicType,
} from "~/lib/characteristics";
import { SOURCE_LABEL } from "~/lib/review-extraction";
import type { ReviewWithSources } from "~/browser/reviews-client";

/** fetch → JSON, throwing the server's message on an error status. */
async function call<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const { json, ...rest } = init;
  const res = await fetch(path, {
    ...rest,
    headers: json === undefined ? rest.headers : { "Content-Type": "application/json" },
    body: json === undefined ? rest.body : JSON.stringify(json),
  });
  if (res.status === 204) return undefined as T;
  const body = (await res.json().catch(() => ({}))) as T & { message?: string };
  if (!res.ok) throw new Error(body.message ?? `Request failed (${res.status})`);
  return body;
}

/** Loads a review's characteristics table (GET /api/reviews/{id}/characteristics). */
export function fetchCharacteristics(reviewId: string): Promise<CharacteristicsTable> {
  return call<CharacteristicsTable>(`/api/reviews/${encodeURIComponent(reviewId)}/characteristics`);
}

function Cell({
  study,
  column,
  canEdit,
  selected,
  onSelect,
  onEdit,
}: {
  study: CharacteristicsStudy;
  column: CharacteristicColumn;
  canEdit: boolean;
  selected: boolean;
  onSelect: () => void;
  onEdit: (value: string | null) => Promise<boolean>;
}) {
  const cell = study.values[column.key] ?? { value: null, quote: null, edited: false };
  const [draft, setDraft] = useState<string | null>(null);
  const label = `${study.title}: ${column.name}`;
  if (draft !== null) {
    return (
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void onEdit(draft).then((ok) => ok && setDraft(null));
        }}
      >
        <Input
          aria-label={`Edit ${label}`}
          value={draft}
          autoFocus
          inputMode={column.type === "numeric" ? "decimal" : undefined}
          maxLength={1000}
          className="h-7 min-w-[8rem] px-1 text-sm"
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => e.key === "Escape" && setDraft(null)}
        />
      </form>
    );
  }
  return (
    <div className="flex items-start gap-1">
      <button
        type="button"
        aria-label={
          cell.value === null ? `${label}: blank` : `${label}: ${cell.value}${cell.quote ? ", show quote" : ""}`
        }
        aria-pressed={selected}
        onClick={onSelect}
        className={`max-w-[16rem] rounded px-1 text-left text-sm ${selected ? "ring-2 ring-brand-500" : ""} ${cell.value === null ? "text-slate-400 italic" : cell.quote ? "text-slate-900 underline decoration-dotted" : "text-slate-900"}`}
      >
        {cell.value === null ? "blank" : cell.value.length > 120 ? `${cell.value.slice(0, 117)}…` : cell.value}
        {cell.edited ? <sup title="edited by a reviewer">e</sup> : null}
      </button>
      {canEdit && (
        <button
          type="button"
          className="text-xs text-brand-700 hover:underline"
          aria-label={`Edit ${label}`}
          onClick={() => setDraft(cell.value ?? "")}
        >
          edit
        </button>
      )}
    </div>
  );
}

/**
 * Characteristics of included studies (issue 29, item 0): per study included at full text, the
 * Cochrane table (design, country, setting, N randomised, population, intervention, comparator,
 * follow-up, funding, conflicts of interest) plus the columns reviewers add (categorical, numeric
 * or text). Built-in cells are pre-filled by rules from the study's text, each with the verbatim
 * passage it was read from; every cell can be edited (owner, reviewers), each edit kept with who,
 * when and old → new. Downloads as CSV or JSON.
 */
export function CharacteristicsTab({ review }: { review: ReviewWithSources }) {
  const base = `/api/reviews/${encodeURIComponent(review.id)}/characteristics`;
  const canEdit = review.role !== "viewer";
  const [table, setTable] = useState<CharacteristicsTable | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [form, setForm] = useState<{ name: string; type: CharacteristicType }>({ name: "", type: "categorical" });
  const [selected, setSelected] = useState<{ recordId: number; key: string } | null>(null);

  useEffect(() => {
    let live = true;
    fetchCharacteristics(review.id)
      .then((t) => live && setTable(t))
      .catch(
        (e: unknown) => live && setError(e instanceof Error ? e.message : "The characteristics could not be loaded."),
      );
    return () => {
      live = false;
    };
  }, [review.id]);

  async function onAddColumn() {
    setError(null);
    try {
      const { column } = await call<{ column: CharacteristicColumn }>(`${base}/columns`, {
        method: "POST",
        json: { name: form.name.trim(), type: form.type },
      });
      setTable((t) =>
        t
          ? {
              ...t,
              columns: [...t.columns, column],
              studies: t.studies.map((s) => ({
                ...s,
                values: { ...s.values, [column.key]: { value: null, quote: null, edited: false } },
              })),
            }
          : t,
      );
      setForm((f) => ({ ...f, name: "" }));
    } catch (e) {
      setError(e instanceof Error ? e.message : "The column could not be added.");
    }
  }

  async function onRemoveColumn(column: CharacteristicColumn) {
    setError(null);
    try {
      await call<void>(`${base}/columns/${column.key.slice(1)}`, { method: "DELETE" });
      setTable((t) =>
        t
          ? {
              ...t,
              columns: t.columns.filter((c) => c.key !== column.key),
              audit: t.audit.filter((a) => a.column !== column.key),
            }
          : t,
      );
    } catch (e) {
      setError(e instanceof Error ? e.message : "The column could not be removed.");
    }
  }

  async function onEdit(
    study: CharacteristicsStudy,
    column: CharacteristicColumn,
    value: string | null,
  ): Promise<boolean> {
    try {
      const { edit } = await call<{ edit: CharacteristicEdit | null }>(`${base}/edits`, {
        method: "POST",
        json: { recordId: study.recordId, column: column.key, value },
      });
      setError(null);
      if (edit) {
        setTable((t) =>
          t
            ? {
                ...t,
                audit: [...t.audit, edit],
                studies: t.studies.map((s) =>
                  s.recordId === study.recordId
                    ? {
                        ...s,
                        values: { ...s.values, [column.key]: { value: edit.newValue, quote: null, edited: true } },
                      }
                    : s,
                ),
              }
            : t,
        );
      }
      return true;
    } catch (e) {
      setError(e instanceof Error ? e.message : "The value could not be saved.");
      return false;
    }
  }

  const columnName = (key: string) => table?.columns.find((c) => c.key === key)?.name ?? key;
  const titleOf = (recordId: number) =>
    table?.studies.find((s) => s.recordId === recordId)?.title ?? `Record ${recordId}`;
  const selectedStudy = selected && table ? table.studies.find((s) => s.recordId === selected.recordId) : undefined;
  const selectedCell = selectedStudy && selected ? selectedStudy.values[selected.key] : undefined;

  return (
    <section className="space-y-4" data-testid="review-characteristics">
      <p className="text-sm text-slate-700">
        The characteristics of every study included at full text, as a review publishes them. MetaMind pre-fills the
        table from each study&apos;s text (its Europe PMC full text, the uploaded PDF, the attached full text, else the
        abstract), only where a sentence states the value: click a value to see the passage. Blank cells were not found.
        Add your own columns; categorical and numeric columns can split the studies into subgroups or serve as
        moderators in the Analysis tab.
      </p>
      {canEdit && (
        <form
          className="grid gap-3 sm:grid-cols-[1fr_auto_auto]"
          onSubmit={(e) => {
            e.preventDefault();
            if (form.name.trim()) void onAddColumn();
          }}
        >
          <div>
            <Label htmlFor="characteristic-name" className="text-xs">
              New column
            </Label>
            <Input
              id="characteristic-name"
              value={form.name}
              maxLength={80}
              placeholder="e.g. Dose, Region, Mean age"
              onChange={(e) => setForm({ ...form, name: e.target.value })}
            />
          </div>
          <div>
            <Label htmlFor="characteristic-type" className="text-xs">
              Type
            </Label>
            <select
              id="characteristic-type"
              className="block h-9 rounded border border-slate-300 bg-white px-2 text-sm"
              value={form.type}
              onChange={(e) => setForm({ ...form, type: e.target.value as CharacteristicType })}
            >
              {CHARACTERISTIC_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </div>
          <div className="flex items-end">
            <Button type="submit" variant="outline" disabled={!form.name.trim()}>
              <Plus aria-hidden /> Add column
            </Button>
          </div>
        </form>
      )}
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      {!table && !error && (
        <p className="flex items-center gap-2 text-sm text-slate-600">
          <Loader2 className="size-4 animate-spin" aria-hidden /> Reading the included studies…
        </p>
      )}
      {table && table.studies.length === 0 && (
        <p className="text-sm text-amber-700">No study is included at full text yet: screen the full texts first.</p>
      )}
      {table && table.studies.length > 0 && (
        <>
          <div className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
            <span>
              {table.studies.length} of {table.included} included {table.included === 1 ? "study" : "studies"}
            </span>
            <Button asChild variant="outline" size="sm">
              <a href={`${base}?format=csv`} download data-testid="characteristics-csv">
                <Download aria-hidden /> CSV
              </a>
            </Button>
            <Button asChild variant="outline" size="sm">
              <a href={`${base}?format=json`} download>
                <Download aria-hidden /> JSON
              </a>
            </Button>
          </div>
          <div
            className="overflow-x-auto"
            tabIndex={0}
            role="region"
            aria-label="Characteristics of included studies table"
          >
            <table className="min-w-full text-sm" aria-label="Characteristics of included studies">
              <thead>
                <tr className="border-b border-slate-200 text-left text-xs text-slate-500">
                  <th scope="col" className="py-1 pr-3">
                    Study
                  </th>
                  {table.columns.map((c) => (
                    <th key={c.key} scope="col" className="px-2 py-1 align-bottom">
                      <span className="inline-flex items-center gap-1">
                        {c.name}
                        {!c.builtIn && <span className="font-normal text-slate-400">({c.type})</span>}
                        {!c.builtIn && canEdit && (
                          <button
                            type="button"
                            aria-label={`Remove column ${c.name}`}
                            className="text-slate-400 hover:text-red-600"
                            onClick={() => void onRemoveColumn(c)}
                          >
                            <Trash2 className="size-3.5" aria-hidden />
                          </button>
                        )}
                      </span>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {table.studies.map((s) => (
                  <tr
                    key={s.recordId}
                    className="border-b border-slate-100 align-top"
                    data-testid="characteristics-row"
                  >
                    <th scope="row" className="max-w-xs py-1 pr-3 text-left font-normal text-slate-900">
                      {s.title}
                      {s.year ? <span className="text-slate-500"> ({s.year})</span> : null}
                      <div className="mt-0.5">
                        <Badge variant="secondary">
                          {SOURCE_LABEL[s.source.kind as keyof typeof SOURCE_LABEL] ?? s.source.kind}
                        </Badge>
                      </div>
                    </th>
                    {table.columns.map((c) => (
                      <td key={c.key} className="px-2 py-1">
                        <Cell
                          study={s}
                          column={c}
                          canEdit={canEdit}
                          selected={selected?.recordId === s.recordId && selected.key === c.key}
                          onSelect={() => setSelected({ recordId: s.recordId, key: c.key })}
                          onEdit={(value) => onEdit(s, c, value)}
                        />
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {selected && selectedStudy && (
            <div className="rounded-md border border-amber-200 bg-amber-50/40 p-3" data-testid="characteristics-quote">
              <p className="mb-1 text-xs font-medium text-slate-600">
                {selectedStudy.title} · {columnName(selected.key)}
                {selectedCell?.edited
                  ? " · set by a reviewer"
                  : ` · read from the ${SOURCE_LABEL[selectedStudy.source.kind as keyof typeof SOURCE_LABEL] ?? selectedStudy.source.kind}`}
              </p>
              {selectedCell?.quote ? (
                <blockquote className="text-sm leading-relaxed text-slate-700">
                  <mark className="rounded bg-amber-200 px-0.5">{selectedCell.quote}</mark>
                </blockquote>
              ) : (
                <p className="text-sm text-slate-500 italic">
                  {selectedCell?.edited
                    ? "Entered by a reviewer (see the edits below)."
                    : "Not found in the text MetaMind read."}
                </p>
              )}
            </div>
          )}
          {table.audit.length > 0 && (
            <details className="text-sm" open>
              <summary className="flex cursor-pointer items-center gap-1 text-slate-700">
                <History className="size-4" aria-hidden /> Edits ({table.audit.length})
              </summary>
              <ul className="mt-1 space-y-0.5 text-xs text-slate-600" data-testid="characteristics-audit">
                {table.audit.map((a, i) => (
                  <li key={i}>
                    {titleOf(a.recordId)} · {columnName(a.column)}: {a.oldValue ?? "blank"} → {a.newValue ?? "blank"} ·{" "}
                    {a.who} · {new Date(a.when).toLocaleString()}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </>
      )}
    </section>
  );
}
