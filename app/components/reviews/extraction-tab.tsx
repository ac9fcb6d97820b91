import { Calculator, History, Loader2, Plus, Trash2 } from "lucide-react";
import { useCallback, useEffect, useMemo, useState } from "react";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import { QuotedTable } from "~/components/meta-analysis/quoted-table";
import { StudyDataImport } from "~/components/reviews/study-data-import";
import { DualExtractionPanel } from "~/components/reviews/dual-extraction-panel";
import type { ArmField, ArmKey } from "~/lib/arms";
import { fieldsFor } from "~/lib/arms/review";
import { consensusStudies } from "~/lib/dual-extraction";
import { fmt, fmtInterval, fmtPct } from "~/lib/meta-analysis/display";
import { DEFAULT_OPTIONS } from "~/lib/meta-analysis/page-logic";
import {
  applyStoredEdits,
  DEFAULT_POOL_MEASURES,
  dominantOutcomeType,
  inferGenericMeasure,
  inferPoolType,
  type PoolMeasure,
  poolMeasuresFor,
  type ReviewPoolType,
  parsePoolChoice,
  poolChoiceKey,
  poolReviewOutcome,
  type QuoteContext,
  type ReviewExtractionStudy,
  type ReviewOutcome,
  type ReviewOutcomeExtraction,
  SOURCE_LABEL,
  type StoredEdit,
} from "~/lib/review-extraction";
import type { ReviewWithSources } from "~/lib/reviews-client";

const FIELD_LABEL: Record<ArmField, string> = { events: "Events", groupSize: "n", mean: "Mean", sd: "SD" };
const ARM_LABEL: Record<ArmKey, string> = { intervention: "Intervention", comparator: "Comparator" };
const ARMS: readonly ArmKey[] = ["intervention", "comparator"];

/** localStorage, or null where it is unavailable (private mode, blocked storage). */
function safeStorage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    return null;
  }
}

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

function QuotePanel({ study, arm, field }: { study: ReviewExtractionStudy; arm: ArmKey; field: ArmField }) {
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
      {!context && <p className="text-sm italic text-slate-500">Not reported in the text MetaMind read.</p>}
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
              Characters {context.sourceSpan.start}–{context.sourceSpan.end} of the {SOURCE_LABEL[study.source.kind]}&apos;s text.
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

function ValueCell({
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
        className={`rounded px-1 text-left text-sm tabular-nums ${selected ? "ring-2 ring-brand-500" : ""} ${value === null ? "italic text-slate-400" : "text-slate-900 underline decoration-dotted"}`}
      >
        {value === null ? "not reported" : String(value)}
        {derived ? <sup title="derived">d</sup> : null}
      </button>
      <button type="button" className="text-xs text-brand-700 hover:underline" aria-label={`Correct ${label}`} onClick={() => setDraft(value === null ? "" : String(value))}>
        edit
      </button>
    </div>
  );
}

/**
 * A review's data extraction (issue 19): the outcomes the user names (intervention and comparator
 * from the review's PICO unless given), and per outcome a table of every study included at full-text
 * screening with its 2×2 or means/SDs/n per arm, read from the best text the study has (Europe PMC
 * full text, the uploaded PDF, the attached full text, else the abstract). Each cell shows its quote
 * (sentence or table cell highlighted); "not reported" is explicit; corrections are stored through
 * POST /api/extraction/edits with an audit trail and come back on every visit; "Analyse" pools the
 * outcome with the meta-analysis engine.
 */
export function ExtractionTab({ review, userId = "" }: { review: ReviewWithSources; userId?: string }) {
  const base = `/api/reviews/${encodeURIComponent(review.id)}/outcomes`;
  const [outcomes, setOutcomes] = useState<ReviewOutcome[] | null>(null);
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [form, setForm] = useState({ name: "", intervention: review.question.intervention ?? "", comparator: review.question.comparator ?? "" });
  const [data, setData] = useState<ReviewOutcomeExtraction & { included: number } | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [cell, setCell] = useState<{ recordId: number; arm: ArmKey; field: ArmField } | null>(null);
  const [type, setType] = useState<ReviewPoolType>("binary");
  const [measures, setMeasures] = useState<Record<ReviewPoolType, PoolMeasure>>({ ...DEFAULT_POOL_MEASURES });
  const [analysed, setAnalysed] = useState(false);

  useEffect(() => {
    let live = true;
    call<{ outcomes: ReviewOutcome[] }>(base)
      .then(({ outcomes: list }) => {
        if (!live) return;
        setOutcomes(list);
        setSelectedId((id) => id ?? list[0]?.id ?? null);
      })
      .catch((e: unknown) => live && setError(e instanceof Error ? e.message : "The outcomes could not be loaded."));
    return () => {
      live = false;
    };
  }, [base]);

  const load = useCallback(
    async (id: number) => {
      setLoading(true);
      setError(null);
      setCell(null);
      setAnalysed(false);
      try {
        const body = await call<ReviewOutcomeExtraction & { included: number }>(`${base}/${id}`);
        setData(body);
        // The type and measure this outcome was last pooled in (they open /meta-analysis the same way).
        const stored = parsePoolChoice(safeStorage()?.getItem(poolChoiceKey(review.id, id)) ?? null);
        const inferred = inferPoolType(body.studies);
        setType(stored?.type ?? inferred);
        if (stored) setMeasures((m) => ({ ...m, [stored.type]: stored.measure }));
        else if (inferred === "generic") setMeasures((m) => ({ ...m, generic: inferGenericMeasure(body.studies) }));
      } catch (e) {
        setData(null);
        setError(e instanceof Error ? e.message : "The extraction failed.");
      } finally {
        setLoading(false);
      }
    },
    [base, review.id],
  );

  useEffect(() => {
    if (selectedId !== null) void load(selectedId);
  }, [selectedId, load]);

  async function onAdd() {
    setError(null);
    try {
      const { outcome } = await call<{ outcome: ReviewOutcome }>(base, {
        method: "POST",
        json: { name: form.name.trim(), intervention: form.intervention.trim() || undefined, comparator: form.comparator.trim() || undefined },
      });
      setOutcomes((list) => [...(list ?? []), outcome]);
      setForm((f) => ({ ...f, name: "" }));
      setSelectedId(outcome.id);
    } catch (e) {
      setError(e instanceof Error ? e.message : "The outcome could not be added.");
    }
  }

  async function onDelete(outcome: ReviewOutcome) {
    setError(null);
    try {
      await call<void>(`${base}/${outcome.id}`, { method: "DELETE" });
      const rest = (outcomes ?? []).filter((o) => o.id !== outcome.id);
      setOutcomes(rest);
      if (selectedId === outcome.id) {
        setData(null);
        setSelectedId(rest[0]?.id ?? null);
      }
    } catch (e) {
      setError(e instanceof Error ? e.message : "The outcome could not be removed.");
    }
  }

  /** Stores one correction, then shows it (the stored edit carries who and when). */
  async function onEdit(study: ReviewExtractionStudy, arm: ArmKey, field: ArmField, value: number | null): Promise<boolean> {
    if (!data) return false;
    const old = study.result[arm][field];
    if (old === value) return true;
    if (value !== null) {
      const problem = !Number.isFinite(value)
        ? "Enter a number."
        : (field === "events" || field === "groupSize") && (!Number.isInteger(value) || value < 0)
          ? "Counts are whole numbers ≥ 0."
          : field === "sd" && value < 0
            ? "An SD cannot be negative."
            : null;
      if (problem) {
        setError(problem);
        return false;
      }
    }
    try {
      const { edits } = await call<{ edits: StoredEdit[] }>("/api/extraction/edits", {
        method: "POST",
        json: { edits: [{ studyKey: study.studyKey, outcome: data.outcome.name, arm, field, oldValue: old, newValue: value }] },
      });
      setError(null);
      setData((current) =>
        current
          ? {
              ...current,
              studies: current.studies.map((s) => {
                if (s.recordId !== study.recordId) return s;
                const next = applyStoredEdits(s.result, edits);
                return { ...s, result: next.result, audit: [...s.audit, ...next.audit] };
              }),
            }
          : current,
      );
      return true;
    } catch (e) {
      setError(e instanceof Error ? e.message : "The correction could not be saved.");
      return false;
    }
  }

  const measure = measures[type];
  const shownOutcomeId = data?.outcome.id ?? null;
  useEffect(() => {
    if (shownOutcomeId !== null) safeStorage()?.setItem(poolChoiceKey(review.id, shownOutcomeId), JSON.stringify({ type, measure }));
  }, [review.id, shownOutcomeId, type, measure]);
  const pooling = useMemo(
    () =>
      analysed && data
        ? // Dual extraction: only studies with consensus values are pooled, with those values.
          poolReviewOutcome(data.mode === "dual" ? consensusStudies(data.studies) : data.studies, { type, measure, method: DEFAULT_OPTIONS.method, test: DEFAULT_OPTIONS.test })
        : null,
    [analysed, data, type, measure],
  );
  // Generic inverse variance pools reported estimates; the arm columns still show what the arms report.
  const fields = fieldsFor(type === "generic" ? (data ? dominantOutcomeType(data.studies) : "binary") : type);
  const selectedOutcome = outcomes?.find((o) => o.id === selectedId) ?? null;
  const audit = data?.studies.flatMap((s) => s.audit.map((a) => ({ ...a, title: s.title }))) ?? [];
  const selectedStudy = cell && data ? data.studies.find((s) => s.recordId === cell.recordId) : undefined;
  const ratio = pooling?.pooled?.ratio ?? null;

  return (
    <section className="space-y-4" data-testid="review-extraction">
      <p className="text-sm text-slate-700">
        Name the outcomes of this review. For each, MetaMind reads every study included at full text — its Europe PMC full text when it has a
        PMCID, the uploaded PDF, the full text attached at screening, else the abstract — and fills in each arm&apos;s events and group size, or
        mean, SD and group size. Click a value to see where it was read; correct it if needed (every correction is kept with who and when).
      </p>
      <form
        className="grid gap-3 sm:grid-cols-4"
        onSubmit={(e) => {
          e.preventDefault();
          if (form.name.trim()) void onAdd();
        }}
      >
        <div>
          <Label htmlFor="outcome-name" className="text-xs">
            Outcome
          </Label>
          <Input id="outcome-name" value={form.name} maxLength={200} placeholder="e.g. mortality at 28 days" onChange={(e) => setForm({ ...form, name: e.target.value })} />
        </div>
        <div>
          <Label htmlFor="outcome-intervention" className="text-xs">
            Intervention arm
          </Label>
          <Input id="outcome-intervention" value={form.intervention} maxLength={500} placeholder="from the review's PICO" onChange={(e) => setForm({ ...form, intervention: e.target.value })} />
        </div>
        <div>
          <Label htmlFor="outcome-comparator" className="text-xs">
            Comparator arm
          </Label>
          <Input id="outcome-comparator" value={form.comparator} maxLength={500} placeholder="e.g. placebo" onChange={(e) => setForm({ ...form, comparator: e.target.value })} />
        </div>
        <div className="flex items-end">
          <Button type="submit" variant="outline" disabled={!form.name.trim()}>
            <Plus aria-hidden /> Add outcome
          </Button>
        </div>
      </form>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      {outcomes && outcomes.length > 0 && (
        <ul className="flex flex-wrap gap-2" aria-label="Outcomes">
          {outcomes.map((o) => (
            <li key={o.id} className={`inline-flex items-center gap-1 rounded-full border px-3 py-1 text-sm ${o.id === selectedId ? "border-brand-500 bg-brand-50" : "border-slate-200"}`}>
              <button type="button" aria-pressed={o.id === selectedId} onClick={() => setSelectedId(o.id)}>
                {o.name}
              </button>
              <button type="button" aria-label={`Remove outcome ${o.name}`} className="text-slate-400 hover:text-red-600" onClick={() => void onDelete(o)}>
                <Trash2 className="size-3.5" aria-hidden />
              </button>
            </li>
          ))}
        </ul>
      )}
      {outcomes?.length === 0 && <p className="text-sm text-slate-500">No outcomes yet.</p>}
      <StudyDataImport reviewId={review.id} outcomes={outcomes ?? []} outcomeId={selectedId} onImported={() => selectedId !== null && void load(selectedId)} />
      {loading && (
        <p className="flex items-center gap-2 text-sm text-slate-600">
          <Loader2 className="size-4 animate-spin" aria-hidden /> Reading the included studies…
        </p>
      )}
      {data && selectedOutcome && !loading && (
        <div>
          <div className="flex flex-wrap items-center gap-3 text-sm text-slate-700">
            <span>
              <strong>{data.outcome.name}</strong>: {data.outcome.intervention} vs {data.outcome.comparator} · {data.studies.length} of {data.included}{" "}
              included {data.included === 1 ? "study" : "studies"}
            </span>
            <select aria-label="Outcome type" className="rounded border border-slate-300 px-2 py-1" value={type} onChange={(e) => setType(e.target.value as ReviewPoolType)}>
              <option value="binary">binary (2×2)</option>
              <option value="continuous">continuous (means, SDs)</option>
              <option value="generic">generic inverse variance (reported HR, adjusted OR/RR, rate ratio with CI)</option>
            </select>
            <select
              aria-label="Effect measure"
              className="rounded border border-slate-300 px-2 py-1"
              value={measure}
              onChange={(e) => setMeasures({ ...measures, [type]: e.target.value as PoolMeasure })}
            >
              {poolMeasuresFor(type).map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
            <Button type="button" size="sm" onClick={() => setAnalysed(true)} disabled={data.studies.length === 0}>
              <Calculator aria-hidden /> Analyse
            </Button>
          </div>
          {data.studies.length === 0 ? (
            <p className="mt-3 text-sm text-amber-700">No study is included at full text yet: screen the full texts first.</p>
          ) : (
            <div className="mt-3 overflow-x-auto">
              <table className="min-w-full text-sm" aria-label={`Data extraction: ${data.outcome.name}`}>
                <thead>
                  <tr className="border-b border-slate-200 text-left text-xs text-slate-500">
                    <th rowSpan={2} className="py-1 pr-3">
                      Study
                    </th>
                    <th colSpan={fields.length} className="px-2">
                      Intervention: {data.outcome.intervention}
                    </th>
                    <th colSpan={fields.length} className="px-2">
                      Comparator: {data.outcome.comparator}
                    </th>
                    <th rowSpan={2} className="px-2">
                      Read from
                    </th>
                  </tr>
                  <tr className="border-b border-slate-200 text-left text-xs text-slate-500">
                    {ARMS.flatMap((arm) =>
                      fields.map((f) => (
                        <th key={`${arm}-${f}`} className="px-2">
                          {FIELD_LABEL[f]}
                        </th>
                      )),
                    )}
                  </tr>
                </thead>
                <tbody>
                  {data.studies.map((study) => (
                    <tr key={study.recordId} className="border-b border-slate-100 align-top">
                      <td className="max-w-xs py-1 pr-3 text-slate-900">
                        {study.title}
                        {study.year ? <span className="text-slate-500"> ({study.year})</span> : null}
                      </td>
                      {ARMS.flatMap((arm) =>
                        fields.map((field) => (
                          <td key={`${arm}-${field}`} className="px-2 py-1">
                            <ValueCell
                              study={study}
                              arm={arm}
                              field={field}
                              selected={cell?.recordId === study.recordId && cell.arm === arm && cell.field === field}
                              onSelect={() => setCell({ recordId: study.recordId, arm, field })}
                              onEdit={(value) => onEdit(study, arm, field, value)}
                            />
                          </td>
                        )),
                      )}
                      <td className="px-2 py-1 text-xs text-slate-500">
                        <Badge variant="secondary">{SOURCE_LABEL[study.source.kind]}</Badge>
                        {study.source.note && <p className="mt-0.5 max-w-[14rem]">{study.source.note}</p>}
                        <p className="mt-0.5">{study.result.extractor}</p>
                        {study.reported && (
                          <p className="mt-0.5" title={study.reported.quote}>
                            reported {study.reported.reportedMeasure ?? study.reported.measure} {fmt(study.reported.estimate)} {fmtInterval(study.reported.lower, study.reported.upper)}
                          </p>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {cell && selectedStudy && <QuotePanel study={selectedStudy} arm={cell.arm} field={cell.field} />}
          {data.mode === "dual" && (
            <DualExtractionPanel
              reviewId={review.id}
              outcomeId={data.outcome.id}
              studies={data.studies}
              userId={userId}
              canWrite={review.role !== "viewer"}
              canResolve={review.resolver}
              onStudy={(recordId, dual) => setData((d) => (d ? { ...d, studies: d.studies.map((s) => (s.recordId === recordId ? { ...s, dual } : s)) } : d))}
            />
          )}
          {pooling && (
            <div className="mt-4 rounded-md border border-slate-200 bg-slate-50 p-3 text-sm text-slate-800" data-testid="review-pooled">
              {pooling.pooled ? (
                <p>
                  Pooled {pooling.measure} ({pooling.pooled.method}, {pooling.pooled.test === "knha" ? "Hartung–Knapp" : "z"}, k = {pooling.pooled.k}):{" "}
                  <strong data-testid="review-pooled-estimate">
                    {ratio ? `${fmt(ratio.estimate)} ${fmtInterval(ratio.ci_lb, ratio.ci_ub)}` : `${fmt(pooling.pooled.estimate)} ${fmtInterval(pooling.pooled.ci_lb, pooling.pooled.ci_ub)}`}
                  </strong>
                  {" · "}I² = {fmtPct(pooling.pooled.I2)} · τ² = {fmt(pooling.pooled.tau2, 3)}
                </p>
              ) : (
                <p role="alert">{pooling.message}</p>
              )}
              <ul className="mt-2 space-y-0.5 text-xs text-slate-600" data-testid="review-pool-notes">
                {pooling.studies.map((s) => (
                  <li key={s.recordId}>
                    {s.title}: {s.note}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {audit.length > 0 && (
            <details className="mt-3 text-sm" open>
              <summary className="flex cursor-pointer items-center gap-1 text-slate-700">
                <History className="size-4" aria-hidden /> Corrections ({audit.length})
              </summary>
              <ul className="mt-1 space-y-0.5 text-xs text-slate-600" data-testid="review-audit">
                {audit.map((a, i) => (
                  <li key={i}>
                    {a.title} · {ARM_LABEL[a.arm]} {FIELD_LABEL[a.field]}: {a.oldValue ?? "not reported"} → {a.newValue ?? "not reported"} · {a.who} ·{" "}
                    {new Date(a.when).toLocaleString()}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </div>
      )}
    </section>
  );
}
