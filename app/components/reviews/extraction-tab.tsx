import { Calculator, History, Loader2, Plus, Trash2 } from "lucide-react";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import { StudyDataImport } from "~/components/reviews/study-data-import";
import { DualExtractionPanel } from "~/components/reviews/dual-extraction-panel";
import { fmt, fmtInterval, fmtPct } from "~/lib/meta-analysis/display";
import { poolMeasuresFor, type PoolMeasure, type ReviewPoolType, SOURCE_LABEL } from "~/lib/review-extraction";
import type { ReviewWithSources } from "~/browser/reviews-client";
import { ARM_LABEL, ARMS, FIELD_LABEL } from "./extraction/labels";
import { QuotePanel } from "./extraction/quote-panel";
import { useOutcomeExtraction } from "./extraction/use-outcome-extraction";
import { ValueCell } from "./extraction/value-cell";

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
  const {
    outcomes,
    selectedId,
    setSelectedId,
    form,
    setForm,
    data,
    setData,
    loading,
    error,
    cell,
    setCell,
    type,
    setType,
    measures,
    setMeasures,
    measure,
    setAnalysed,
    load,
    onAdd,
    onDelete,
    onEdit,
    pooling,
    fields,
    selectedOutcome,
    audit,
    selectedStudy,
    ratio,
  } = useOutcomeExtraction(review);

  return (
    <section className="space-y-4" data-testid="review-extraction">
      <p className="text-sm text-slate-700">
        Name the outcomes of this review. For each, MetaMind reads every study included at full text — its Europe PMC
        full text when it has a PMCID, the uploaded PDF, the full text attached at screening, else the abstract — and
        fills in each arm&apos;s events and group size, or mean, SD and group size. Click a value to see where it was
        read; correct it if needed (every correction is kept with who and when).
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
          <Input
            id="outcome-name"
            value={form.name}
            maxLength={200}
            placeholder="e.g. mortality at 28 days"
            onChange={(e) => setForm({ ...form, name: e.target.value })}
          />
        </div>
        <div>
          <Label htmlFor="outcome-intervention" className="text-xs">
            Intervention arm
          </Label>
          <Input
            id="outcome-intervention"
            value={form.intervention}
            maxLength={500}
            placeholder="from the review's PICO"
            onChange={(e) => setForm({ ...form, intervention: e.target.value })}
          />
        </div>
        <div>
          <Label htmlFor="outcome-comparator" className="text-xs">
            Comparator arm
          </Label>
          <Input
            id="outcome-comparator"
            value={form.comparator}
            maxLength={500}
            placeholder="e.g. placebo"
            onChange={(e) => setForm({ ...form, comparator: e.target.value })}
          />
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
            <li
              key={o.id}
              className={`inline-flex items-center gap-1 rounded-full border px-3 py-1 text-sm ${o.id === selectedId ? "border-brand-500 bg-brand-50" : "border-slate-200"}`}
            >
              <button type="button" aria-pressed={o.id === selectedId} onClick={() => setSelectedId(o.id)}>
                {o.name}
              </button>
              <button
                type="button"
                aria-label={`Remove outcome ${o.name}`}
                className="text-slate-400 hover:text-red-600"
                onClick={() => void onDelete(o)}
              >
                <Trash2 className="size-3.5" aria-hidden />
              </button>
            </li>
          ))}
        </ul>
      )}
      {outcomes?.length === 0 && <p className="text-sm text-slate-500">No outcomes yet.</p>}
      <StudyDataImport
        reviewId={review.id}
        outcomes={outcomes ?? []}
        outcomeId={selectedId}
        onImported={() => selectedId !== null && void load(selectedId)}
      />
      {loading && (
        <p className="flex items-center gap-2 text-sm text-slate-600">
          <Loader2 className="size-4 animate-spin" aria-hidden /> Reading the included studies…
        </p>
      )}
      {data && selectedOutcome && !loading && (
        <div>
          <div className="flex flex-wrap items-center gap-3 text-sm text-slate-700">
            <span>
              <strong>{data.outcome.name}</strong>: {data.outcome.intervention} vs {data.outcome.comparator} ·{" "}
              {data.studies.length} of {data.included} included {data.included === 1 ? "study" : "studies"}
            </span>
            <select
              aria-label="Outcome type"
              className="rounded border border-slate-300 px-2 py-1"
              value={type}
              onChange={(e) => setType(e.target.value as ReviewPoolType)}
            >
              <option value="binary">binary (2×2)</option>
              <option value="continuous">continuous (means, SDs)</option>
              <option value="generic">
                generic inverse variance (reported HR, adjusted OR/RR, rate ratio with CI)
              </option>
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
            <p className="mt-3 text-sm text-amber-700">
              No study is included at full text yet: screen the full texts first.
            </p>
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
                            reported {study.reported.reportedMeasure ?? study.reported.measure}{" "}
                            {fmt(study.reported.estimate)} {fmtInterval(study.reported.lower, study.reported.upper)}
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
              onStudy={(recordId, dual) =>
                setData((d) =>
                  d ? { ...d, studies: d.studies.map((s) => (s.recordId === recordId ? { ...s, dual } : s)) } : d,
                )
              }
            />
          )}
          {pooling && (
            <div
              className="mt-4 rounded-md border border-slate-200 bg-slate-50 p-3 text-sm text-slate-800"
              data-testid="review-pooled"
            >
              {pooling.pooled ? (
                <p>
                  Pooled {pooling.measure} ({pooling.pooled.method},{" "}
                  {pooling.pooled.test === "knha" ? "Hartung–Knapp" : "z"}, k = {pooling.pooled.k}):{" "}
                  <strong data-testid="review-pooled-estimate">
                    {ratio
                      ? `${fmt(ratio.estimate)} ${fmtInterval(ratio.ci_lb, ratio.ci_ub)}`
                      : `${fmt(pooling.pooled.estimate)} ${fmtInterval(pooling.pooled.ci_lb, pooling.pooled.ci_ub)}`}
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
                    {a.title} · {ARM_LABEL[a.arm]} {FIELD_LABEL[a.field]}: {a.oldValue ?? "not reported"} →{" "}
                    {a.newValue ?? "not reported"} · {a.who} · {new Date(a.when).toLocaleString()}
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
