import {
  fmt,
  fmtPct,
  isFiniteNumber,
  isRatioMeasure,
  effectLabel,
  effectName,
  methodLabel,
  modelShortLabel,
  NOT_ESTIMABLE,
  pText,
  TEST_LABELS,
  toDisplayScale,
} from "~/lib/meta-analysis/display";
import { moderatorChoices, subgroupColumns, type ModeratorColumn, type StudyColumn } from "~/lib/meta-analysis/explore";
import type { MetaAnalysisJobResult, OutcomeAnalysis, PrismaCounts } from "~/lib/meta-analysis/types";
import { displayEstimate, ForestPlot } from "./forest-plot";
import { FunnelPlot } from "./funnel-plot";
import { GradeTable } from "./grade-table";
import { HeterogeneityPanel } from "./heterogeneity-panel";
import { CumulativePanel, SensitivityPanel } from "./exploration-panels";
import { InfluenceTable } from "./influence-table";
import { MetaRegressionPanel } from "./metareg-panel";
import { PrismaDiagram } from "./prisma-diagram";
import { RobPlots, RobSensitivityTable, SummaryOfFindingsTable } from "./risk-of-bias-panels";
import { SubgroupPanel } from "./subgroup-panel";

/** "RR 0.75 [0.60, 0.93]" for the pooled estimate on the display scale. */
export function pooledSummary(
  a: Pick<OutcomeAnalysis, "measure" | "estimate" | "ci_lb" | "ci_ub" | "reportedMeasure">,
): string {
  return `${effectName(a.measure, a.reportedMeasure)} ${displayEstimate(a.measure, a.estimate, a.ci_lb, a.ci_ub)}`;
}

/** The trim-and-fill sentence of an analysis. */
export function trimFillNote(a: OutcomeAnalysis): string {
  const tf = a.trimfill;
  if (!tf) return `Trim and fill was not run${a.k < 3 ? " (it needs at least 3 studies)" : ""}.`;
  if (tf.k0 === 0)
    return `Trim and fill (${tf.estimator}) imputed no studies: the funnel plot gives no sign of missing studies.`;
  const adjusted = displayEstimate(a.measure, tf.adjusted.estimate, tf.adjusted.ci_lb, tf.adjusted.ci_ub);
  return `Trim and fill (${tf.estimator}) imputed ${tf.k0} ${tf.k0 === 1 ? "study" : "studies"} on the ${tf.side} side; the adjusted estimate is ${adjusted} (a sensitivity check, not a corrected result).`;
}

/** Egger's test as a sentence. */
export function eggerNote(a: OutcomeAnalysis): string {
  if (!a.egger) return `Egger's regression test was not run${a.k < 3 ? " (it needs at least 3 studies)" : ""}.`;
  const stat = isFiniteNumber(a.egger.statistic)
    ? `${a.egger.df === null ? "z" : `t(${a.egger.df})`} = ${fmt(a.egger.statistic)}`
    : `statistic ${NOT_ESTIMABLE}`;
  const caution = a.k < 10 ? " With fewer than 10 studies the test has little power." : "";
  return `Egger's regression test for funnel plot asymmetry: ${stat}, ${pText(a.egger.pval)}.${caution}`;
}

function SummaryNumbers({ a }: { a: OutcomeAnalysis }) {
  const ratio = isRatioMeasure(a.measure);
  const rows: [string, string, string][] = [
    ["Studies (k)", String(a.k), "k"],
    ["Pooled estimate [95% CI]", pooledSummary(a), "estimate"],
    [
      "95% prediction interval",
      isFiniteNumber(a.pi_lb) && isFiniteNumber(a.pi_ub) && a.k > 1
        ? `${fmt(toDisplayScale(a.measure, a.pi_lb))} to ${fmt(toDisplayScale(a.measure, a.pi_ub))}`
        : a.k > 1
          ? NOT_ESTIMABLE
          : "not applicable (one study)",
      "pi",
    ],
    [
      ratio ? `log ${effectName(a.measure, a.reportedMeasure)} (SE)` : "Estimate (SE)",
      isFiniteNumber(a.estimate) ? `${fmt(a.estimate, 4)} (${fmt(a.se, 4)})` : NOT_ESTIMABLE,
      "log",
    ],
    [a.test === "knha" ? "Test (t)" : "Test (z)", `${fmt(a.statistic)}, ${pText(a.pval)}`, "test"],
    ["τ²", a.k > 1 ? fmt(a.tau2, 4) : "not applicable", "tau2"],
    ["I²", a.k > 1 ? fmtPct(a.I2) : "not applicable", "I2"],
    ["H²", a.k > 1 ? fmt(a.H2) : "not applicable", "H2"],
    ["Q", a.k > 1 ? `${fmt(a.QE)}, ${pText(a.QEp)}` : "not applicable", "Q"],
  ];
  return (
    <dl data-testid="summary-numbers" className="summary grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
      {rows.map(([label, value, key]) => (
        <div
          key={key}
          className="flex justify-between gap-3 border-b border-slate-100 py-1"
          data-testid={`summary-${key}`}
        >
          <dt className="text-slate-600">{label}</dt>
          <dd className="font-medium text-slate-900 tabular-nums">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function LeaveOneOutTable({ a }: { a: OutcomeAnalysis }) {
  if (a.leaveOneOut.length === 0) {
    return <p className="text-sm text-slate-600">Leave-one-out analysis needs at least 3 studies.</p>;
  }
  return (
    <table data-testid="leave-one-out" className="w-full border-collapse text-left text-sm">
      <caption className="mb-1 text-left text-sm font-semibold text-slate-900">
        Sensitivity analysis: leave one out
      </caption>
      <thead>
        <tr className="border-b border-slate-300">
          <th scope="col" className="py-1 pr-3">
            Study omitted
          </th>
          <th scope="col" className="py-1 pr-3">
            {effectName(a.measure, a.reportedMeasure)} [95% CI]
          </th>
          <th scope="col" className="py-1 pr-3">
            τ²
          </th>
          <th scope="col" className="py-1">
            I²
          </th>
        </tr>
      </thead>
      <tbody>
        {a.leaveOneOut.map((r, i) => (
          <tr key={`${r.omitted}-${i}`} className="border-b border-slate-100">
            <th scope="row" className="py-1 pr-3 font-normal">
              {r.omitted}
            </th>
            <td className="py-1 pr-3 tabular-nums">{displayEstimate(a.measure, r.estimate, r.ci_lb, r.ci_ub)}</td>
            <td className="py-1 pr-3 tabular-nums">{fmt(r.tau2, 4)}</td>
            <td className="py-1 tabular-nums">{fmtPct(r.I2)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * One outcome's analysis: the summary numbers (ratio measures back-transformed, the log-scale
 * estimate beside them), forest plot, funnel plot with Egger's line and trim-and-fill, the
 * heterogeneity panel, the subgroup analysis (when study characteristics are given: a choice on the
 * page via `onSubgroupChange`, the chosen one only in the report), leave-one-out sensitivity and the
 * GRADE table. `index` makes SVG ids unique.
 */
export function AnalysisView({
  a,
  index,
  columns,
  subgroup = null,
  onSubgroupChange,
  moderators,
  chosenModerators = [],
  onModeratorsChange,
}: {
  a: OutcomeAnalysis;
  index: number;
  columns?: StudyColumn[];
  subgroup?: string | null;
  onSubgroupChange?: (key: string | null) => void;
  moderators?: ModeratorColumn[];
  chosenModerators?: string[];
  onModeratorsChange?: (keys: string[]) => void;
}) {
  const label = modelShortLabel(a.method, a.test);
  const studies = a.effects.map((e, i) => ({
    label: e.label,
    yi: e.yi,
    vi: e.vi,
    weight: a.weights[i] ?? Number.NaN,
    ...(a.riskOfBias ? { riskOfBias: a.riskOfBias[i] ?? null } : {}),
  }));
  return (
    <section
      data-testid="outcome-analysis"
      aria-labelledby={`analysis-${index}-heading`}
      className="analysis space-y-5"
    >
      <header>
        <h3 id={`analysis-${index}-heading`} className="text-lg font-semibold text-slate-900">
          {a.outcome}{" "}
          <span className="font-normal text-slate-600">
            ({effectLabel(a.measure, a.reportedMeasure)}, k = {a.k})
          </span>
        </h3>
        <p className="text-sm text-slate-600">
          {methodLabel(a.method, a.genqWeights)} ({a.method}) · {TEST_LABELS[a.test]}
          {a.family !== "IV" ? ` · ${a.family === "MH" ? "Mantel–Haenszel" : "Peto"} pooling` : ""}
        </p>
      </header>
      {a.k < 2 && (
        <p role="note" className="rounded-md bg-amber-50 p-2 text-sm text-amber-900">
          Only one study reports this outcome: the estimate is that study&apos;s own result and heterogeneity cannot be
          assessed.
        </p>
      )}
      {a.notes && a.notes.length > 0 && (
        <ul data-testid="analysis-notes" className="list-disc space-y-1 pl-5 text-sm text-slate-700">
          {a.notes.map((n, i) =>
            n.startsWith("Warning:") ? (
              <li
                key={i}
                data-testid="heterogeneity-warning"
                className="rounded bg-amber-50 p-1 font-medium text-amber-900"
              >
                <span role="alert">{n}</span>
              </li>
            ) : (
              <li key={i}>{n}</li>
            ),
          )}
        </ul>
      )}
      <SummaryNumbers a={a} />
      <figure className="figure">
        {/* Drawn at its natural width (labels 10–12 px); a narrower screen scrolls it sideways. */}
        <div
          className="forest-scroll overflow-x-auto [&>svg]:min-w-[760px] print:[&>svg]:min-w-0"
          tabIndex={0}
          role="region"
          aria-label={`Forest plot: ${a.outcome} (scrolls sideways on a narrow screen)`}
          data-testid="forest-scroll"
        >
          <ForestPlot
            id={`forest-${index}`}
            measure={a.measure}
            studies={studies}
            pooled={{ label, estimate: a.estimate, ci_lb: a.ci_lb, ci_ub: a.ci_ub, pi_lb: a.pi_lb, pi_ub: a.pi_ub }}
            reportedMeasure={a.reportedMeasure}
            title={`Forest plot: ${a.outcome}`}
          />
        </div>
      </figure>
      <HeterogeneityPanel
        measure={a.measure}
        method={a.method}
        k={a.k}
        tau2={a.tau2}
        tau2_ci={a.tau2_ci}
        I2={a.I2}
        H2={a.H2}
        QE={a.QE}
        QEp={a.QEp}
        pi_lb={a.pi_lb}
        pi_ub={a.pi_ub}
      />
      <div className="grid gap-4 lg:grid-cols-2">
        <figure className="figure">
          <FunnelPlot
            id={`funnel-${index}`}
            measure={a.measure}
            studies={a.effects}
            estimate={a.estimate}
            egger={a.egger ? { intercept: a.egger.intercept, slope: a.egger.slope, pval: a.egger.pval } : null}
            filled={a.trimfill?.filled ?? []}
            reportedMeasure={a.reportedMeasure}
            title={`Funnel plot: ${a.outcome}`}
          />
        </figure>
        <div className="space-y-2 text-sm text-slate-700">
          <h4 className="font-semibold text-slate-900">Small-study effects</h4>
          <p data-testid="egger-note">{eggerNote(a)}</p>
          {a.begg && (
            <p>
              Begg&apos;s rank correlation: Kendall&apos;s τ = {fmt(a.begg.tau, 3)}, {pText(a.begg.pval)}.
            </p>
          )}
          <p data-testid="trimfill-note">{trimFillNote(a)}</p>
        </div>
      </div>
      {columns && (
        <SubgroupPanel a={a} index={index} columns={columns} selected={subgroup} onSelect={onSubgroupChange} />
      )}
      {moderators && (
        <MetaRegressionPanel a={a} choices={moderators} selected={chosenModerators} onChange={onModeratorsChange} />
      )}
      <LeaveOneOutTable a={a} />
      <RobPlots a={a} index={index} />
      <RobSensitivityTable a={a} />
      <InfluenceTable a={a} />
      <SensitivityPanel a={a} runs={a.sensitivity} />
      <CumulativePanel a={a} index={index} />
      <GradeTable outcome={a.outcome} grade={a.grade} />
    </section>
  );
}

/** "quantitativeFindings" → "Quantitative findings". */
export function sectionTitle(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function NarrativeValue({ value }: { value: unknown }) {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "string") return <p className="whitespace-pre-line">{value}</p>;
  if (typeof value === "number") return <p>{isFiniteNumber(value) ? String(value) : NOT_ESTIMABLE}</p>;
  if (typeof value === "boolean") return <p>{value ? "Yes" : "No"}</p>;
  if (Array.isArray(value)) {
    return (
      <ul className="list-disc space-y-1 pl-5">
        {value.map((v, i) => (
          <li key={i}>{typeof v === "object" && v !== null ? <NarrativeValue value={v} /> : String(v)}</li>
        ))}
      </ul>
    );
  }
  if (typeof value === "object") {
    return (
      <dl className="space-y-1">
        {Object.entries(value as Record<string, unknown>).map(([k, v]) => (
          <div key={k}>
            <dt className="font-medium text-slate-900">{sectionTitle(k)}</dt>
            <dd className="text-slate-700">
              <NarrativeValue value={v} />
            </dd>
          </div>
        ))}
      </dl>
    );
  }
  return null;
}

/** The narrative (combined-summary fields written from the computed numbers), one section per field. */
export function NarrativeSections({ narrative }: { narrative: Record<string, unknown> }) {
  const entries = Object.entries(narrative).filter(([, v]) => v !== null && v !== undefined && v !== "");
  if (entries.length === 0) return null;
  return (
    <section data-testid="narrative" aria-label="Narrative" className="narrative space-y-3 text-sm text-slate-800">
      {entries.map(([key, value]) => (
        <div key={key}>
          <h4 className="font-semibold text-slate-900">{sectionTitle(key)}</h4>
          <NarrativeValue value={value} />
        </div>
      ))}
    </section>
  );
}

/**
 * The PRISMA section: the diagram, or why it cannot be drawn. A living review with updates
 * (`prisma.updated`) gets PRISMA 2020's template for updated reviews (previous studies, the
 * updates' records, the total), as its PRISMA tab draws it; any other review the whole flow.
 */
export function PrismaSection({ prisma }: { prisma: PrismaCounts | null }) {
  const updated = prisma?.updated;
  return (
    <section aria-label="PRISMA 2020 flow diagram" className="prisma space-y-2">
      <h3 className="text-lg font-semibold text-slate-900">PRISMA 2020 flow diagram</h3>
      {prisma && updated ? (
        <figure className="figure" data-testid="report-prisma-updated">
          <figcaption className="text-sm text-slate-700">
            Updated review: {updated.updates} living update{updated.updates === 1 ? "" : "s"}
            {updated.lastUpdateAt ? `, the last on ${updated.lastUpdateAt.slice(0, 10)}` : ""} (PRISMA 2020 flow diagram
            for updated systematic reviews).
          </figcaption>
          <PrismaDiagram
            id="prisma"
            counts={updated.newFlow}
            update={{ previousStudies: updated.previousStudies, totalStudies: updated.totalStudies }}
          />
        </figure>
      ) : prisma ? (
        <figure className="figure">
          <PrismaDiagram id="prisma" counts={prisma} />
        </figure>
      ) : (
        <p className="text-sm text-slate-600">
          These studies were picked by hand, not screened in a systematic review, so there is no PRISMA flow to draw.
          Run the meta-analysis from a review (Reviews → Analysis) to include its PRISMA 2020 diagram.
        </p>
      )}
    </section>
  );
}

/**
 * Every analysis of a job result, then the narrative and the PRISMA diagram. `subgroups` maps an
 * analysis index to the study characteristic its subgroup analysis splits by, `moderators` to the
 * moderators of its meta-regression; the `on…Change` callbacks (page only) let the reviewer choose.
 */
export function ResultsView({
  result,
  subgroups,
  onSubgroupChange,
  moderators,
  onModeratorsChange,
}: {
  result: MetaAnalysisJobResult;
  subgroups?: Record<number, string | null>;
  onSubgroupChange?: (index: number, key: string | null) => void;
  /** Meta-regression moderators chosen per analysis index. */
  moderators?: Record<number, string[]>;
  onModeratorsChange?: (index: number, keys: string[]) => void;
}) {
  return (
    <div className="results space-y-10">
      {result.analyses.length === 0 ? (
        <p className="rounded-md bg-amber-50 p-3 text-sm text-amber-900" role="note">
          No outcome had data from enough studies to pool. Review the data table: studies need the same outcome and a
          compatible measure.
        </p>
      ) : (
        result.analyses.map((a, i) => (
          <AnalysisView
            key={`${a.outcome}-${a.measure}-${i}`}
            a={a}
            index={i}
            columns={subgroupColumns(a, result.extracted ?? [])}
            subgroup={subgroups?.[i] ?? null}
            onSubgroupChange={onSubgroupChange ? (key) => onSubgroupChange(i, key) : undefined}
            moderators={moderatorChoices(a, result.extracted ?? [])}
            chosenModerators={moderators?.[i] ?? []}
            onModeratorsChange={onModeratorsChange ? (keys) => onModeratorsChange(i, keys) : undefined}
          />
        ))
      )}
      <SummaryOfFindingsTable analyses={result.analyses} />
      {result.unpooled && result.unpooled.length > 0 && (
        <section data-testid="unpooled" aria-label="Outcomes not pooled" className="space-y-1 text-sm text-slate-700">
          <h3 className="text-lg font-semibold text-slate-900">Outcomes reported but not pooled</h3>
          <ul className="list-disc space-y-1 pl-5">
            {result.unpooled.map((u, i) => (
              <li key={`${u.outcome}-${i}`}>
                <span className="font-medium">{u.outcome}</span> ({effectLabel(u.measure, u.reportedMeasure)},{" "}
                {u.studyIds.length} {u.studyIds.length === 1 ? "study" : "studies"}): {u.reason}
              </li>
            ))}
          </ul>
        </section>
      )}
      <NarrativeSections narrative={result.narrative} />
      <PrismaSection prisma={result.prisma} />
    </div>
  );
}
