import { History, Loader2, Table2 } from "lucide-react";
import { useEffect, useMemo, useState } from "react";
import { Button } from "~/components/ui/button";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import { QuotedTable } from "~/components/meta-analysis/quoted-table";
import {
  type ArmExtraction,
  type ArmField,
  type ArmKey,
  type ArmQuote,
  isTableQuote,
  parseReport,
  type TrialReport,
} from "~/lib/arms";
import { applyEdit, type ArmStudyRow, BINARY_MEASURES, CONTINUOUS_MEASURES, fieldsFor } from "~/lib/arms/review";
import type { Measure } from "~/lib/meta-analysis/types";
import { applyStoredEdits, type StoredEdit } from "~/lib/review-extraction";

export interface ArmStudyInput {
  id: string;
  title: string;
  /** Title, abstract and any stored full-text analysis or uploaded PDF text, as plain text. */
  text: string;
  /** When set, the article's JATS full text from Europe PMC is read instead (falling back to `text`). */
  pmcid?: string | null;
  /**
   * When set, the text to read comes from this URL (GET → {kind, format, text}): a review record's
   * best text — Europe PMC JATS, the uploaded PDF's text, the attached full text or the abstract.
   */
  reportUrl?: string;
  /** The key corrections are stored under (default `id`); a review's record uses "review:{id}:{recordId}". */
  studyKey?: string;
}

/** Labels of the sources a report URL answers with. */
const REPORT_KIND_LABEL: Record<string, string> = {
  europepmc: "Europe PMC full text",
  upload: "uploaded PDF",
  fulltext: "attached full text",
  abstract: "abstract",
};

/** The text a review record's report URL gives, or null when it cannot be read. */
async function fetchReport(
  url: string,
  signal?: AbortSignal,
): Promise<{ text: string; format: "jats" | "text"; kind: string } | null> {
  const res = await fetch(url, { signal });
  if (!res.ok) return null;
  const body = (await res.json()) as { text?: string; format?: string; kind?: string };
  if (typeof body.text !== "string" || !body.text || (body.format !== "jats" && body.format !== "text")) return null;
  return { text: body.text, format: body.format, kind: body.kind ?? "" };
}

/** The user's stored corrections of one study and outcome (GET /api/extraction/edits), oldest first; [] when they cannot be read. */
async function fetchStoredEdits(studyKey: string, outcome: string, signal?: AbortSignal): Promise<StoredEdit[]> {
  const res = await fetch(
    `/api/extraction/edits?studyKey=${encodeURIComponent(studyKey)}&outcome=${encodeURIComponent(outcome)}`,
    { signal },
  );
  if (!res.ok) return [];
  return ((await res.json()) as { edits?: StoredEdit[] }).edits ?? [];
}

/** Where the last question is kept so a revisit starts with it (and its stored corrections). */
const QUESTION_KEY = "metamind:arm-question:v1";

/** The study's full text from Europe PMC (GET /api/extraction/fulltext/:pmcid), or null when unavailable. */
async function fetchFullText(pmcid: string, signal?: AbortSignal): Promise<string | null> {
  const res = await fetch(`/api/extraction/fulltext/${encodeURIComponent(pmcid)}`, { signal });
  if (!res.ok) return null;
  const body = (await res.json()) as { text?: string };
  return typeof body.text === "string" && body.text.length > 0 ? body.text : null;
}

export interface ArmQuestionForm {
  intervention: string;
  comparator: string;
  outcome: string;
}

const FIELD_LABEL: Record<ArmField, string> = { events: "Events", groupSize: "n", mean: "Mean", sd: "SD" };
const ARM_LABEL: Record<ArmKey, string> = { intervention: "Intervention", comparator: "Comparator" };

/** Extracts one study's arm data through POST /api/extraction/arms. */
async function extractOne(
  study: ArmStudyInput,
  question: ArmQuestionForm,
  signal?: AbortSignal,
): Promise<ArmStudyRow & { kind: string }> {
  const report = study.reportUrl ? await fetchReport(study.reportUrl, signal) : null;
  const jats = !report && study.pmcid ? await fetchFullText(study.pmcid, signal) : null;
  const source: ArmStudyRow["source"] =
    report && report.text.length <= 2 * 1024 * 1024
      ? { text: report.text, format: report.format }
      : jats && jats.length <= 2 * 1024 * 1024
        ? { text: jats, format: "jats" }
        : { text: study.text, format: "text" };
  const kind = report && source.text === report.text ? report.kind : source.format === "jats" ? "europepmc" : "";
  const res = await fetch("/api/extraction/arms", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ ...source, ...question }),
    signal,
  });
  const body = (await res.json()) as ArmExtraction & { message?: string };
  if (!res.ok) throw new Error(body.message ?? `Extraction failed (${res.status})`);
  return { studyId: study.id, title: study.title, source, result: body, audit: [], kind };
}

/** Stores edits for a signed-in user; returns false when they could not be stored. */
async function storeEdit(row: ArmStudyRow, studyKey: string, outcome: string): Promise<boolean> {
  const last = row.audit[row.audit.length - 1];
  if (!last) return true;
  const res = await fetch("/api/extraction/edits", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      edits: [
        { studyKey, outcome, arm: last.arm, field: last.field, oldValue: last.oldValue, newValue: last.newValue },
      ],
    }),
  });
  return res.ok;
}

function QuoteView({ quote, report }: { quote: ArmQuote; report: TrialReport | null }) {
  if (isTableQuote(quote)) {
    const table = report?.tables.find((t) => t.label === quote.table);
    if (!table)
      return (
        <p className="text-sm text-slate-700">
          {quote.table}: “{quote.text}”
        </p>
      );
    return <QuotedTable table={table} row={quote.row} column={quote.column} />;
  }
  const text = report?.text ?? "";
  const paragraph = report?.paragraphs.find((p) => p.start <= quote.start && quote.end <= p.end);
  if (!paragraph || quote.start < 0) return <p className="text-sm text-slate-700">“{quote.text}”</p>;
  const from = Math.max(paragraph.start, text.lastIndexOf(". ", quote.start) + 1);
  const toDot = text.indexOf(". ", quote.end);
  const to = Math.min(paragraph.end, toDot < 0 ? paragraph.end : toDot + 1);
  return (
    <p className="text-sm leading-relaxed text-slate-700">
      …{text.slice(from, quote.start)}
      <mark data-highlighted="true" className="rounded bg-amber-200 px-0.5">
        {text.slice(quote.start, quote.end)}
      </mark>
      {text.slice(quote.end, to)}…
    </p>
  );
}

function Cell({
  row,
  arm,
  field,
  selected,
  onSelect,
  onEdit,
}: {
  row: ArmStudyRow;
  arm: ArmKey;
  field: ArmField;
  selected: boolean;
  onSelect: () => void;
  onEdit?: (value: number | null) => void;
}) {
  const value = row.result[arm][field];
  const derived = row.result.derived.find((d) => d.arm === arm && d.field === field);
  const [draft, setDraft] = useState<string | null>(null);
  const label = `${row.title}: ${ARM_LABEL[arm]} ${FIELD_LABEL[field]}`;
  if (draft !== null && onEdit) {
    return (
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const trimmed = draft.trim();
          onEdit(trimmed === "" ? null : Number(trimmed));
          setDraft(null);
        }}
      >
        <Input
          aria-label={`Edit ${label}`}
          value={draft}
          autoFocus
          inputMode="decimal"
          className="h-7 w-20 px-1 text-sm"
          onChange={(e) => setDraft(e.target.value)}
          onBlur={() => setDraft(null)}
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
        className={`rounded px-1 text-left text-sm tabular-nums ${selected ? "ring-2 ring-brand-500" : ""} ${value === null ? "text-slate-500 italic" : "text-slate-900 underline decoration-dotted"}`}
      >
        {value === null ? "not reported" : String(value)}
        {derived ? <sup title={`derived: ${derived.from}`}>d</sup> : null}
      </button>
      {onEdit && (
        <button
          type="button"
          className="text-xs text-brand-700 hover:underline"
          aria-label={`Correct ${label}`}
          onClick={() => setDraft(value === null ? "" : String(value))}
        >
          edit
        </button>
      )}
    </div>
  );
}

export interface ArmExtractionTableProps {
  studies: readonly ArmStudyInput[];
  signedIn: boolean;
  userLabel: string;
  disabled?: boolean;
  /** Called with the rows (after every extraction or edit), the outcome and the chosen measures. */
  onUse: (rows: ArmStudyRow[], outcome: string, measures: { binary: Measure; continuous: Measure }) => void;
}

/**
 * The data-extraction table for one outcome: intervention, comparator and outcome typed by the user,
 * each study's 2×2 (events / n) or means / SDs / n per arm, every cell linked to its quote (the
 * sentence or table cell, highlighted), "not reported" where the report gives nothing, cells
 * correctable with an audit trail (stored in D1 for signed-in users), and the measure used when the
 * analysis computes effect sizes from these arm data.
 */
export function ArmExtractionTable({ studies, signedIn, userLabel, disabled, onUse }: ArmExtractionTableProps) {
  const [form, setForm] = useState<ArmQuestionForm>({ intervention: "", comparator: "", outcome: "" });
  const [rows, setRows] = useState<ArmStudyRow[]>([]);
  const [outcome, setOutcome] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<{ studyId: string; arm: ArmKey; field: ArmField } | null>(null);
  const [measures, setMeasures] = useState<{ binary: Measure; continuous: Measure }>({
    binary: "OR",
    continuous: "SMD",
  });
  const [storeNote, setStoreNote] = useState<string | null>(null);
  const [kinds, setKinds] = useState<Map<string, string>>(new Map());
  const keyOf = (studyId: string) => studies.find((s) => s.id === studyId)?.studyKey ?? studyId;

  // A revisit starts from the last question asked (its stored corrections are applied on extraction).
  useEffect(() => {
    try {
      const saved = JSON.parse(localStorage.getItem(QUESTION_KEY) ?? "null") as Partial<ArmQuestionForm> | null;
      if (!saved || typeof saved !== "object") return;
      const text = (v: unknown) => (typeof v === "string" ? v.slice(0, 500) : "");
      setForm((f) =>
        f.intervention || f.comparator || f.outcome
          ? f
          : {
              intervention: text(saved.intervention),
              comparator: text(saved.comparator),
              outcome: text(saved.outcome),
            },
      );
    } catch (e) {
      console.warn("could not read the last extraction question", e);
    }
  }, []);

  const reports = useMemo(() => {
    const map = new Map<string, TrialReport>();
    for (const row of rows) {
      try {
        map.set(row.studyId, parseReport(row.source.text, row.source.format));
      } catch (e) {
        console.warn("could not parse report for quotes", e);
      }
    }
    return map;
  }, [rows]);

  const ready = form.intervention.trim() && form.comparator.trim() && form.outcome.trim() && studies.length > 0;

  async function onExtract() {
    setBusy(true);
    setError(null);
    setSelected(null);
    try {
      const out: ArmStudyRow[] = [];
      const found = new Map<string, string>();
      const name = form.outcome.trim();
      for (const study of studies) {
        const { kind, ...row } = await extractOne(study, form);
        found.set(study.id, kind);
        // The user's stored corrections of this study and outcome: the latest value per cell, with the audit trail.
        const stored = signedIn ? await fetchStoredEdits(study.studyKey ?? study.id, name) : [];
        const applied = applyStoredEdits(row.result, stored);
        out.push({ ...row, result: applied.result, audit: applied.audit });
      }
      try {
        localStorage.setItem(QUESTION_KEY, JSON.stringify(form));
      } catch (e) {
        console.warn("could not keep the extraction question", e);
      }
      setKinds(found);
      setRows(out);
      setOutcome(name);
      onUse(out, name, measures);
    } catch (e) {
      setError(e instanceof Error ? e.message : "Extraction failed.");
    } finally {
      setBusy(false);
    }
  }

  function onEdit(index: number, arm: ArmKey, field: ArmField, value: number | null) {
    const row = rows[index];
    if (!row) return;
    let next: ArmStudyRow;
    try {
      next = applyEdit(row, arm, field, value, userLabel, new Date());
    } catch (e) {
      setError(e instanceof Error ? e.message : "Invalid value.");
      return;
    }
    setError(null);
    const updated = rows.map((r, i) => (i === index ? next : r));
    setRows(updated);
    onUse(updated, outcome, measures);
    if (signedIn && next !== row) {
      void storeEdit(next, keyOf(next.studyId), outcome).then((ok) =>
        setStoreNote(
          ok ? "Corrections are saved to your account." : "A correction could not be saved to your account.",
        ),
      );
    }
  }

  const selectedRow = selected ? rows.find((r) => r.studyId === selected.studyId) : undefined;
  const selectedQuote =
    selected && selectedRow
      ? selectedRow.result.quotes.find((q) => q.arm === selected.arm && q.field === selected.field)
      : undefined;
  const outcomeType = rows.find((r) => r.result.outcomeType !== "unknown")?.result.outcomeType ?? "binary";
  const fields = fieldsFor(outcomeType);
  const audit = rows.flatMap((r) => r.audit.map((a) => ({ ...a, title: r.title })));

  return (
    <div data-testid="arm-extraction">
      <form
        className="grid gap-3 sm:grid-cols-4"
        onSubmit={(e) => {
          e.preventDefault();
          if (ready && !busy) void onExtract();
        }}
      >
        {(["intervention", "comparator", "outcome"] as const).map((key) => (
          <div key={key}>
            <Label htmlFor={`arm-${key}`} className="text-xs capitalize">
              {key}
            </Label>
            <Input
              id={`arm-${key}`}
              value={form[key]}
              onChange={(e) => setForm({ ...form, [key]: e.target.value })}
              placeholder={
                key === "outcome"
                  ? "e.g. mortality at 12 months"
                  : key === "comparator"
                    ? "e.g. placebo"
                    : "e.g. drug A"
              }
            />
          </div>
        ))}
        <div className="flex items-end">
          <Button type="submit" variant="outline" disabled={!ready || busy || disabled}>
            {busy ? <Loader2 className="animate-spin" aria-hidden /> : <Table2 aria-hidden />}
            Extract arm data
          </Button>
        </div>
      </form>
      {error && (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {error}
        </p>
      )}
      {rows.length > 0 && (
        <>
          <div className="mt-4 flex flex-wrap items-center gap-3 text-sm text-slate-700">
            <span>
              Outcome <strong>{outcome}</strong> ({outcomeType}); effect size from arm data:
            </span>
            <select
              aria-label="Effect measure"
              className="rounded border border-slate-300 px-2 py-1"
              value={outcomeType === "binary" ? measures.binary : measures.continuous}
              onChange={(e) => {
                const next =
                  outcomeType === "binary"
                    ? { ...measures, binary: e.target.value as Measure }
                    : { ...measures, continuous: e.target.value as Measure };
                setMeasures(next);
                onUse(rows, outcome, next);
              }}
            >
              {(outcomeType === "binary" ? BINARY_MEASURES : CONTINUOUS_MEASURES).map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </div>
          <div className="mt-3 overflow-x-auto">
            <table className="min-w-full text-sm" aria-label={`Data extraction: ${outcome}`}>
              <thead>
                <tr className="border-b border-slate-200 text-left text-xs text-slate-500">
                  <th rowSpan={2} className="py-1 pr-3">
                    Study
                  </th>
                  <th colSpan={fields.length} className="px-2">
                    Intervention: {form.intervention}
                  </th>
                  <th colSpan={fields.length} className="px-2">
                    Comparator: {form.comparator}
                  </th>
                  <th rowSpan={2} className="px-2">
                    Extracted by
                  </th>
                </tr>
                <tr className="border-b border-slate-200 text-left text-xs text-slate-500">
                  {(["intervention", "comparator"] as const).flatMap((arm) =>
                    fields.map((f) => (
                      <th key={`${arm}-${f}`} className="px-2">
                        {FIELD_LABEL[f]}
                      </th>
                    )),
                  )}
                </tr>
              </thead>
              <tbody>
                {rows.map((row, index) => (
                  <tr key={row.studyId} className="border-b border-slate-100 align-top">
                    <td className="max-w-xs py-1 pr-3 text-slate-900">{row.title}</td>
                    {(["intervention", "comparator"] as const).flatMap((arm) =>
                      fields.map((field) => (
                        <td key={`${arm}-${field}`} className="px-2 py-1">
                          <Cell
                            row={row}
                            arm={arm}
                            field={field}
                            selected={
                              selected?.studyId === row.studyId && selected.arm === arm && selected.field === field
                            }
                            onSelect={() => setSelected({ studyId: row.studyId, arm, field })}
                            onEdit={disabled ? undefined : (value) => onEdit(index, arm, field, value)}
                          />
                        </td>
                      )),
                    )}
                    <td className="px-2 py-1 text-xs text-slate-500">
                      {row.result.extractor}
                      {REPORT_KIND_LABEL[kinds.get(row.studyId) ?? ""]
                        ? ` · ${REPORT_KIND_LABEL[kinds.get(row.studyId) ?? ""]}`
                        : ""}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {selected && selectedRow && (
            <div className="mt-3 rounded-md border border-amber-200 bg-amber-50/40 p-3" data-testid="arm-quote">
              <p className="mb-1 text-xs font-medium text-slate-600">
                {selectedRow.title} · {ARM_LABEL[selected.arm]} · {FIELD_LABEL[selected.field]}
                {selectedRow.result.derived.find((d) => d.arm === selected.arm && d.field === selected.field)?.from
                  ? ` · derived from ${selectedRow.result.derived.find((d) => d.arm === selected.arm && d.field === selected.field)?.from}`
                  : ""}
              </p>
              {selectedRow.result.reason?.[selected.arm][selected.field] ? (
                <p className="mb-1 text-xs text-slate-600" data-testid="arm-reason">
                  {selectedRow.result.confidence?.[selected.arm][selected.field] != null
                    ? `Confidence ${selectedRow.result.confidence[selected.arm][selected.field]?.toFixed(2)} · `
                    : ""}
                  {selectedRow.result.reason[selected.arm][selected.field]}
                </p>
              ) : null}
              {selectedQuote ? (
                <QuoteView quote={selectedQuote} report={reports.get(selectedRow.studyId) ?? null} />
              ) : (
                <p className="text-sm text-slate-500 italic">Not reported in the text MetaMind read.</p>
              )}
            </div>
          )}
          {audit.length > 0 && (
            <details className="mt-3 text-sm" open>
              <summary className="flex cursor-pointer items-center gap-1 text-slate-700">
                <History className="size-4" aria-hidden /> Corrections ({audit.length})
              </summary>
              <ul className="mt-1 space-y-0.5 text-xs text-slate-600" data-testid="arm-audit">
                {audit.map((a, i) => (
                  <li key={i}>
                    {a.title} · {ARM_LABEL[a.arm]} {FIELD_LABEL[a.field]}: {a.oldValue ?? "not reported"} →{" "}
                    {a.newValue ?? "not reported"} · {a.who} · {new Date(a.when).toLocaleString()}
                  </li>
                ))}
              </ul>
              {storeNote && <p className="mt-1 text-xs text-slate-500">{storeNote}</p>}
              {!signedIn && (
                <p className="mt-1 text-xs text-slate-500">Sign in to keep corrections with your account.</p>
              )}
            </details>
          )}
        </>
      )}
    </div>
  );
}
