import { useId } from "react";
import {
  effectLabel,
  effectName,
  fmt,
  fmtPct,
  isFiniteNumber,
  isRatioMeasure,
  NOT_ESTIMABLE,
} from "~/lib/meta-analysis/display";
import {
  type ExploredAnalysis,
  exploreSubgroups,
  mixedModelText,
  subgroupCaveat,
  subgroupNarrative,
  subgroupTestText,
  type StudyColumn,
  type SubgroupView,
} from "~/lib/meta-analysis/explore";
import { clampToAxis, linearScale, paddedDomain, squareSide, wrapText } from "~/lib/meta-analysis/plot-scale";
import { displayEstimate, ForestAxis, ForestMarks, PLOT_X0, PLOT_X1, studyInterval } from "./forest-plot";

const WIDTH = 760;
const LABEL_X = 8;
const WEIGHT_X = 580;
const EST_X = 752;
const ROW = 22;
const TOP = 34;
const FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif";

function diamond(x: (v: number) => number, est: number, lo: number, hi: number, y: number): string {
  return [`${x(lo)},${y}`, `${x(est)},${y - 7}`, `${x(hi)},${y}`, `${x(est)},${y + 7}`].join(" ");
}

/**
 * Subgroup forest plot (SVG, RevMan's layout): per subgroup a header, its studies (square ∝ weight
 * within the subgroup, 95% CI line), a subtotal diamond with k, τ² and I²; the overall diamond; and
 * the test for subgroup differences printed under the axis.
 */
export function SubgroupForestPlot({
  id,
  a,
  view,
}: {
  id: string;
  a: ExploredAnalysis;
  view: SubgroupView & { result: NonNullable<SubgroupView["result"]> };
}) {
  const r = view.result;
  const ratio = isRatioMeasure(a.measure);
  const values: number[] = [0, a.ci_lb, a.ci_ub, a.estimate];
  view.rows.flat().forEach((s) => {
    const ci = studyInterval(s.yi, s.vi);
    if (ci) values.push(ci[0], ci[1]);
  });
  r.groups.forEach((g) => values.push(g.ci_lb, g.ci_ub));
  const [lo, hi] = paddedDomain(values.filter(isFiniteNumber));
  const x = linearScale([lo, hi], [PLOT_X0, PLOT_X1]);
  type Line = { kind: "header" | "study" | "subtotal" | "gap"; g: number; s?: number };
  const lines: Line[] = [];
  r.groups.forEach((g, gi) => {
    lines.push({ kind: "header", g: gi });
    view.rows[gi].forEach((_, si) => lines.push({ kind: "study", g: gi, s: si }));
    lines.push({ kind: "subtotal", g: gi });
    lines.push({ kind: "gap", g: gi });
  });
  const overallY = TOP + lines.length * ROW + ROW / 2;
  const axisY = overallY + ROW;
  const height = axisY + 66;
  const name = effectName(a.measure, a.reportedMeasure);
  const longName = effectLabel(a.measure, a.reportedMeasure);
  const testText = subgroupTestText(r);
  const description =
    r.groups.map((g) => `${g.level} (k = ${g.k}): ${displayEstimate(a.measure, g.b, g.ci_lb, g.ci_ub)}`).join("; ") +
    `. ${testText}.`;
  const clampX = (v: number) => x(clampToAxis(v, lo, hi).value);
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`0 0 ${WIDTH} ${height}`}
      width="100%"
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
      data-testid="subgroup-forest"
      fontFamily={FONT}
      fontSize={12}
      style={{ maxWidth: WIDTH }}
    >
      <title id={`${id}-title`}>{`Subgroup forest plot by ${view.column.label.toLowerCase()}: ${a.outcome}`}</title>
      <desc id={`${id}-desc`}>{description}</desc>
      <rect x={0} y={0} width={WIDTH} height={height} fill="#ffffff" />
      <g fontWeight={600} fill="#0f172a">
        <text x={LABEL_X} y={18}>{`Study or subgroup (${view.column.label})`}</text>
        <text x={WEIGHT_X} y={18} textAnchor="end">
          Weight
        </text>
        <text x={EST_X} y={18} textAnchor="end">{`${name} [95% CI]`}</text>
      </g>
      <line x1={0} x2={WIDTH} y1={TOP - 8} y2={TOP - 8} stroke="#cbd5e1" />
      <line x1={x(0)} x2={x(0)} y1={TOP - 8} y2={axisY} stroke="#64748b" strokeDasharray="4 3" />
      {lines.map((l, i) => {
        const y = TOP + i * ROW + ROW / 2;
        const g = r.groups[l.g];
        if (l.kind === "header")
          return (
            <text key={i} x={LABEL_X} y={y + 4} fontWeight={600} fill="#1e3a8a" data-testid="subgroup-header">
              {wrapText(g.level, 60, 1)[0]}
            </text>
          );
        if (l.kind === "study") {
          const s = view.rows[l.g][l.s!];
          const ci = studyInterval(s.yi, s.vi);
          const maxW = Math.max(...view.rows[l.g].map((t) => t.weight));
          return (
            <g key={i} data-testid="subgroup-study">
              <text x={LABEL_X + 10} y={y + 4} fill="#0f172a">
                {wrapText(s.label, 36, 1)[0]}
              </text>
              {ci && <ForestMarks ci={ci} yi={s.yi} y={y} side={squareSide(s.weight, maxW)} x={x} lo={lo} hi={hi} />}
              <text x={WEIGHT_X} y={y + 4} textAnchor="end" fill="#334155">
                {fmtPct(s.weight)}
              </text>
              <text x={EST_X} y={y + 4} textAnchor="end" fill="#0f172a">
                {ci ? displayEstimate(a.measure, s.yi, ci[0], ci[1]) : NOT_ESTIMABLE}
              </text>
            </g>
          );
        }
        if (l.kind === "subtotal") {
          const ok = [g.b, g.ci_lb, g.ci_ub].every(isFiniteNumber);
          return (
            <g key={i} data-testid="subgroup-subtotal">
              <text x={LABEL_X + 10} y={y + 4} fontWeight={600} fill="#0f172a">
                {`Subtotal (k = ${g.k}${g.k > 1 ? `; τ² = ${fmt(g.tau2, 3)}; I² = ${fmtPct(g.I2)}` : ""})`}
              </text>
              {ok && (
                <polygon
                  data-testid="subgroup-diamond"
                  points={diamond(clampX, g.b, g.ci_lb, g.ci_ub, y)}
                  fill="#475569"
                  stroke="#0f172a"
                />
              )}
              <text x={EST_X} y={y + 4} textAnchor="end" fontWeight={600} fill="#0f172a">
                {displayEstimate(a.measure, g.b, g.ci_lb, g.ci_ub)}
              </text>
            </g>
          );
        }
        return null;
      })}
      <line x1={LABEL_X} x2={WIDTH - 8} y1={overallY - ROW / 2} y2={overallY - ROW / 2} stroke="#cbd5e1" />
      <g data-testid="subgroup-overall">
        <text x={LABEL_X} y={overallY + 4} fontWeight={600} fill="#0f172a">
          {`Total (k = ${a.k})`}
        </text>
        {[a.estimate, a.ci_lb, a.ci_ub].every(isFiniteNumber) && (
          <polygon points={diamond(clampX, a.estimate, a.ci_lb, a.ci_ub, overallY)} fill="#1e3a8a" stroke="#0f172a" />
        )}
        <text x={WEIGHT_X} y={overallY + 4} textAnchor="end" fill="#334155">
          100.0%
        </text>
        <text x={EST_X} y={overallY + 4} textAnchor="end" fontWeight={600} fill="#0f172a">
          {displayEstimate(a.measure, a.estimate, a.ci_lb, a.ci_ub)}
        </text>
      </g>
      <ForestAxis x={x} lo={lo} hi={hi} ratio={ratio} axisY={axisY} title={longName} titleDy={32} />
      <text x={LABEL_X} y={axisY + 54} fontSize={12} fill="#0f172a" data-testid="subgroup-test-line">
        {testText}
      </text>
    </svg>
  );
}

/**
 * Subgroup analysis of one outcome's analysis: a choice of study characteristic (when `onSelect` is
 * given; the saved report shows the chosen one without the control), the per-subgroup table, the
 * subgroup forest plot with the test for subgroup differences under it, the common-τ² model and
 * the caveat. Renders nothing in the report when no subgroup was chosen.
 */
export function SubgroupPanel({
  a,
  index,
  columns,
  selected,
  onSelect,
}: {
  a: ExploredAnalysis;
  index: number;
  columns: StudyColumn[];
  selected: string | null;
  onSelect?: (key: string | null) => void;
}) {
  const selectId = useId();
  const column = columns.find((c) => c.key === selected) ?? null;
  if (!onSelect && !column) return null;
  const view = column ? exploreSubgroups(a, column) : null;
  return (
    <section data-testid="subgroup-analysis" aria-label="Subgroup analysis" className="subgroups space-y-3">
      <h4 className="text-sm font-semibold text-slate-900">Subgroup analysis</h4>
      {onSelect &&
        (columns.length === 0 || a.k < 2 ? (
          <p className="text-sm text-slate-600" data-testid="subgroup-none">
            No study characteristic in the data table splits these studies into two or more subgroups.
          </p>
        ) : (
          <label htmlFor={selectId} className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
            <span>Split the studies by</span>
            <select
              id={selectId}
              data-testid="subgroup-select"
              value={selected ?? ""}
              onChange={(e) => onSelect(e.target.value || null)}
              className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm"
            >
              <option value="">No subgroups</option>
              {columns.map((c) => (
                <option key={c.key} value={c.key}>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
        ))}
      {view?.error && (
        <p role="alert" className="rounded-md bg-amber-50 p-2 text-sm text-amber-900">
          The subgroup analysis could not be computed: {view.error}
        </p>
      )}
      {view?.result && (
        <>
          <table data-testid="subgroup-table" className="w-full border-collapse text-left text-sm">
            <caption className="mb-1 text-left text-sm font-semibold text-slate-900">{`Subgroups by ${view.column.label.toLowerCase()}`}</caption>
            <thead>
              <tr className="border-b border-slate-300">
                <th scope="col" className="py-1 pr-3">
                  Subgroup
                </th>
                <th scope="col" className="py-1 pr-3">
                  k
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
              {view.result.groups.map((g) => (
                <tr key={g.level} className="border-b border-slate-100" data-testid="subgroup-row">
                  <th scope="row" className="py-1 pr-3 font-normal">
                    {g.level}
                  </th>
                  <td className="py-1 pr-3 tabular-nums">{g.k}</td>
                  <td className="py-1 pr-3 tabular-nums">{displayEstimate(a.measure, g.b, g.ci_lb, g.ci_ub)}</td>
                  <td className="py-1 pr-3 tabular-nums">{g.k > 1 ? fmt(g.tau2, 4) : "not applicable"}</td>
                  <td className="py-1 tabular-nums">{g.k > 1 ? fmtPct(g.I2) : "not applicable"}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <figure className="figure">
            <SubgroupForestPlot
              id={`subgroup-forest-${index}`}
              a={a}
              view={view as SubgroupView & { result: NonNullable<SubgroupView["result"]> }}
            />
          </figure>
          <p data-testid="subgroup-test" className="text-sm font-medium text-slate-900">
            {subgroupTestText(view.result)}
          </p>
          <p data-testid="subgroup-mixed" className="text-sm text-slate-700">
            {mixedModelText(view.result, a.test)}
          </p>
          <p className="text-sm text-slate-600">{subgroupCaveat(view.result)}</p>
          <p data-testid="subgroup-narrative" className="text-sm text-slate-800">
            {subgroupNarrative(view.result, view.column.label)}
          </p>
        </>
      )}
    </section>
  );
}
