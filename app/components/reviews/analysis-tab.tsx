import { Download, Loader2 } from "lucide-react";
import { useEffect, useMemo, useState } from "react";
import { CumulativePanel, SensitivityPanel } from "~/components/meta-analysis/exploration-panels";
import { ForestPlot } from "~/components/meta-analysis/forest-plot";
import { InfluenceTable } from "~/components/meta-analysis/influence-table";
import { MetaRegressionPanel } from "~/components/meta-analysis/metareg-panel";
import { SummaryOfFindingsTable } from "~/components/meta-analysis/risk-of-bias-panels";
import { SubgroupPanel } from "~/components/meta-analysis/subgroup-panel";
import { Button } from "~/components/ui/button";
import type { CharacteristicsTable } from "~/lib/characteristics";
import {
  fmt,
  fmtInterval,
  fmtPct,
  GENQ_WEIGHT_CHOICES,
  GENQ_WEIGHT_LABELS,
  isGenq,
  METHOD_LABELS,
} from "~/lib/meta-analysis/display";
import { DEFAULT_OPTIONS, METHOD_CHOICES } from "~/lib/meta-analysis/page-logic";
import { downloadText } from "~/browser/download";
import { formatSofRow, sofTableCsv } from "~/lib/meta-analysis/summary-of-findings";
import type { GenqWeights, Method } from "~/lib/meta-analysis/types";
import {
  reviewExplorationColumns,
  reviewExploredAnalysis,
  reviewOutcomeCertainty,
  riskOfBiasColumn,
} from "~/lib/review-analysis";
import {
  DEFAULT_POOL_MEASURES,
  inferGenericMeasure,
  inferPoolType,
  parsePoolChoice,
  type PoolMeasure,
  poolChoiceKey,
  poolMeasuresFor,
  poolReviewOutcome,
  type ReviewOutcome,
  type ReviewOutcomeExtraction,
  type ReviewPoolType,
} from "~/lib/review-extraction";
import type { ReviewWithSources } from "~/browser/reviews-client";
import { robApi } from "~/browser/risk-of-bias-client";
import type { ApiGradeSettings, ApiRobOverview } from "~/lib/risk-of-bias/types";
import { fetchCharacteristics } from "./characteristics-tab";

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path);
  const body = (await res.json().catch(() => ({}))) as T & { message?: string };
  if (!res.ok) throw new Error(body.message ?? `Request failed (${res.status})`);
  return body;
}

function safeStorage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    return null;
  }
}

/**
 * Explaining heterogeneity in a review (issue 29): for one of the review's outcomes, pooled from its
 * data extraction (type and measure as last chosen there), the forest plot, a subgroup analysis by
 * any categorical column of the characteristics table (subgroup table, subgroup forest plot, test
 * for subgroup differences), a meta-regression on numeric or categorical columns, and the influence
 * diagnostics — the same engine and components as /meta-analysis.
 */
export function ReviewAnalysisPanel({ review }: { review: ReviewWithSources }) {
  const base = `/api/reviews/${encodeURIComponent(review.id)}/outcomes`;
  const [outcomes, setOutcomes] = useState<ReviewOutcome[] | null>(null);
  const [outcomeId, setOutcomeId] = useState<number | null>(null);
  const [data, setData] = useState<ReviewOutcomeExtraction | null>(null);
  const [table, setTable] = useState<CharacteristicsTable | null>(null);
  const [robOverview, setRobOverview] = useState<ApiRobOverview | null>(null);
  const [gradeSettings, setGradeSettings] = useState<ApiGradeSettings[]>([]);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [type, setType] = useState<ReviewPoolType>("binary");
  const [measure, setMeasure] = useState<PoolMeasure>(DEFAULT_POOL_MEASURES.binary);
  const [method, setMethod] = useState<Method>(DEFAULT_OPTIONS.method);
  const [genqChoice, setGenqChoice] = useState<GenqWeights>("inverse-variance");
  const genqWeights = isGenq(method) ? genqChoice : undefined;
  const [subgroup, setSubgroup] = useState<string | null>(null);
  const [moderators, setModerators] = useState<string[]>([]);

  useEffect(() => {
    let live = true;
    getJson<{ outcomes: ReviewOutcome[] }>(base)
      .then(({ outcomes: list }) => {
        if (!live) return;
        setOutcomes(list);
        setOutcomeId((id) => id ?? list[0]?.id ?? null);
      })
      .catch((e: unknown) => live && setError(e instanceof Error ? e.message : "The outcomes could not be loaded."));
    return () => {
      live = false;
    };
  }, [base]);

  useEffect(() => {
    if (outcomeId === null) return;
    let live = true;
    setLoading(true);
    setError(null);
    setSubgroup(null);
    setModerators([]);
    Promise.all([
      getJson<ReviewOutcomeExtraction>(`${base}/${outcomeId}`),
      fetchCharacteristics(review.id),
      // Risk of bias and GRADE settings are optional: without them (or on an error) there is no RoB column, and GRADE uses the computed ratings.
      robApi.overview(review.id).then(
        (o) => o,
        () => null,
      ),
      robApi.gradeSettings(review.id).then(
        (r) => r.settings,
        () => [] as ApiGradeSettings[],
      ),
    ])
      .then(([extraction, characteristics, overview, settings]) => {
        if (!live) return;
        const stored = parsePoolChoice(safeStorage()?.getItem(poolChoiceKey(review.id, outcomeId)) ?? null);
        const inferred = inferPoolType(extraction.studies);
        const t = stored?.type ?? inferred;
        setType(t);
        setMeasure(
          stored?.measure ?? (t === "generic" ? inferGenericMeasure(extraction.studies) : DEFAULT_POOL_MEASURES[t]),
        );
        setData(extraction);
        setTable(characteristics);
        setRobOverview(overview);
        setGradeSettings(settings);
      })
      .catch((e: unknown) => live && setError(e instanceof Error ? e.message : "The analysis could not be loaded."))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [base, outcomeId, review.id]);

  const test = DEFAULT_OPTIONS.test;
  const explored = useMemo(() => {
    if (!data) return null;
    const pooling = poolReviewOutcome(data.studies, { type, measure, method, test, genqWeights });
    const years = new Map(data.studies.map((s) => [s.recordId, s.year ?? null]));
    return { pooling, view: reviewExploredAnalysis(data.outcome.name, pooling, years) };
  }, [data, type, measure, method, test, genqWeights]);
  const columns = useMemo(() => {
    if (!explored?.view || !table || outcomeId === null) return { subgroups: [], moderators: [] };
    const cols = reviewExplorationColumns(table, explored.view.recordIds);
    const robColumn = riskOfBiasColumn(robOverview?.assessments ?? [], outcomeId, explored.view.recordIds);
    if (!robColumn) return cols;
    return {
      subgroups: [...cols.subgroups, robColumn],
      moderators: [...cols.moderators, { ...robColumn, kind: "categorical" as const }],
    };
  }, [explored, table, robOverview, outcomeId]);
  // Summary of Findings (issue 28): GRADE with the review's stored settings and RoB 2 judgements, the job's core.
  const certainty = useMemo(() => {
    if (!explored || !data) return null;
    return reviewOutcomeCertainty(
      data,
      { type, measure },
      explored.pooling,
      { method, test, ...(genqWeights ? { control: { weightScheme: genqWeights } } : {}) },
      gradeSettings,
      robOverview,
    );
  }, [explored, data, type, measure, method, test, genqWeights, gradeSettings, robOverview]);
  const downloadSof = () => {
    if (!certainty || !data) return;
    const csv = sofTableCsv([formatSofRow(data.outcome.name, certainty.summaryOfFindings)]);
    const stem =
      data.outcome.name
        .replace(/[^A-Za-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .toLowerCase()
        .slice(0, 60) || "outcome";
    downloadText(`${stem}-summary-of-findings.csv`, csv, "text/csv;charset=utf-8");
  };
  const a = explored?.view?.analysis ?? null;
  const years = useMemo(() => {
    if (!explored?.view || !data) return undefined;
    const byId = new Map(data.studies.map((s) => [s.recordId, s.year ?? null]));
    return explored.view.recordIds.map((id) => byId.get(id) ?? null);
  }, [explored, data]);
  const ratio = a?.ratio ?? null;

  if (outcomes?.length === 0) {
    return (
      <p className="text-sm text-slate-600">
        Name an outcome in Data extraction first; its pooled analysis can then be explored here.
      </p>
    );
  }
  return (
    <section className="space-y-4" data-testid="review-analysis">
      <h3 className="text-base font-semibold text-slate-900">Explore heterogeneity</h3>
      <div className="flex flex-wrap items-center gap-3 text-sm text-slate-700">
        <label className="flex items-center gap-2">
          <span>Outcome</span>
          <select
            data-testid="analysis-outcome"
            className="rounded border border-slate-300 bg-white px-2 py-1"
            value={outcomeId ?? ""}
            onChange={(e) => setOutcomeId(Number(e.target.value))}
          >
            {(outcomes ?? []).map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </label>
        <select
          aria-label="Outcome type"
          className="rounded border border-slate-300 bg-white px-2 py-1"
          value={type}
          onChange={(e) => {
            const t = e.target.value as ReviewPoolType;
            setType(t);
            setMeasure(DEFAULT_POOL_MEASURES[t]);
          }}
        >
          <option value="binary">binary (2×2)</option>
          <option value="continuous">continuous (means, SDs)</option>
          <option value="generic">generic inverse variance</option>
        </select>
        <select
          aria-label="Effect measure"
          className="rounded border border-slate-300 bg-white px-2 py-1"
          value={measure}
          onChange={(e) => setMeasure(e.target.value as PoolMeasure)}
        >
          {poolMeasuresFor(type).map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
        <select
          aria-label="τ² estimator"
          className="rounded border border-slate-300 bg-white px-2 py-1"
          value={method}
          onChange={(e) => setMethod(e.target.value as Method)}
        >
          {METHOD_CHOICES.map((m) => (
            <option key={m} value={m}>
              {METHOD_LABELS[m]}
            </option>
          ))}
        </select>
        {genqWeights && (
          <select
            aria-label="Generalised Q weights"
            className="rounded border border-slate-300 bg-white px-2 py-1"
            value={genqWeights}
            onChange={(e) => setGenqChoice(e.target.value as GenqWeights)}
          >
            {GENQ_WEIGHT_CHOICES.map((w) => (
              <option key={w} value={w}>
                {GENQ_WEIGHT_LABELS[w]}
              </option>
            ))}
          </select>
        )}
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      {loading && (
        <p className="flex items-center gap-2 text-sm text-slate-600">
          <Loader2 className="size-4 animate-spin" aria-hidden /> Reading the included studies…
        </p>
      )}
      {!loading && explored && !a && <p className="text-sm text-amber-700">{explored.pooling.message}</p>}
      {!loading && a && (
        <div className="space-y-6">
          <p className="text-sm text-slate-800" data-testid="analysis-pooled">
            Pooled {explored?.pooling.measure} ({a.method}, {a.test === "knha" ? "Hartung–Knapp" : "z"}, k = {a.k}):{" "}
            <strong>
              {ratio
                ? `${fmt(ratio.estimate)} ${fmtInterval(ratio.ci_lb, ratio.ci_ub)}`
                : `${fmt(a.estimate)} ${fmtInterval(a.ci_lb, a.ci_ub)}`}
            </strong>{" "}
            · I² = {fmtPct(a.I2)} · τ² = {fmt(a.tau2, 3)}
          </p>
          <figure className="overflow-x-auto" tabIndex={0} role="region" aria-label={`Forest plot: ${a.outcome}`}>
            <ForestPlot
              id="review-forest"
              measure={a.measure}
              studies={a.effects.map((e, i) => ({ label: e.label, yi: e.yi, vi: e.vi, weight: a.weights[i] ?? 0 }))}
              pooled={{
                label: "Overall",
                estimate: a.estimate,
                ci_lb: a.ci_lb,
                ci_ub: a.ci_ub,
                pi_lb: a.pi_lb,
                pi_ub: a.pi_ub,
              }}
              title={`Forest plot: ${a.outcome}`}
            />
          </figure>
          <div className="overflow-x-auto">
            <SubgroupPanel a={a} index={0} columns={columns.subgroups} selected={subgroup} onSelect={setSubgroup} />
          </div>
          {columns.subgroups.length === 0 && (
            <p className="text-sm text-slate-600">
              Add a categorical column in Characteristics (or fill in Design, Country, Setting) to split the studies
              into subgroups.
            </p>
          )}
          <div className="overflow-x-auto">
            <MetaRegressionPanel a={a} choices={columns.moderators} selected={moderators} onChange={setModerators} />
          </div>
          <div
            className="overflow-x-auto"
            tabIndex={0}
            role="region"
            aria-label="Influence diagnostics (scrolls sideways on a narrow screen)"
          >
            <InfluenceTable a={a} />
          </div>
          <SensitivityPanel a={a} />
          <CumulativePanel a={a} index={0} years={years} />
          {certainty && (
            <div className="space-y-2">
              <SummaryOfFindingsTable
                analyses={[{ outcome: a.outcome, summaryOfFindings: certainty.summaryOfFindings }]}
              />
              {certainty.note && <p className="text-xs text-amber-700">{certainty.note}</p>}
              <p className="text-xs text-slate-600">
                GRADE uses this review&apos;s RoB 2 judgements and the GRADE settings stored in Risk of bias for this
                outcome (rating changes with their justifications, decision threshold, assumed control risk).
              </p>
              <Button type="button" variant="outline" size="sm" onClick={downloadSof} data-testid="analysis-sof-csv">
                <Download className="size-4" aria-hidden /> Download Summary of Findings (CSV)
              </Button>
            </div>
          )}
        </div>
      )}
    </section>
  );
}
