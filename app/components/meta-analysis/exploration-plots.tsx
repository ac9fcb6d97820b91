import type { ReactNode } from "react";
import { displayEstimate, ForestAxis, PLOT_X0, PLOT_X1 } from "./forest-plot";
import {
  effectLabel,
  effectName,
  fmt,
  fmtPct,
  isFiniteNumber,
  isRatioMeasure,
  NOT_ESTIMABLE,
  type ReportedMeasure,
} from "~/lib/meta-analysis/display";
import type { BaujatPoint, BubbleFit, CumulativeRow } from "~/lib/meta-analysis/plot-data";
import {
  clampToAxis,
  formatTick,
  linearScale,
  niceTicks,
  paddedDomain,
  ratioTicks,
  wrapText,
} from "~/lib/meta-analysis/plot-scale";
import type { Measure } from "~/lib/meta-analysis/types";

const FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif";
const W = 520;
const H = 380;
const X0 = 60;
const X1 = 500;
const Y0 = 20;
const Y1 = 320;

function Frame({
  id,
  title,
  desc,
  testId,
  children,
}: {
  id: string;
  title: string;
  desc: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`0 0 ${W} ${H}`}
      width="100%"
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
      data-testid={testId}
      fontFamily={FONT}
      fontSize={11}
      style={{ maxWidth: W }}
    >
      <title id={`${id}-title`}>{title}</title>
      <desc id={`${id}-desc`}>{desc}</desc>
      <rect x={0} y={0} width={W} height={H} fill="#ffffff" />
      {children}
      <rect x={X0} y={Y0} width={X1 - X0} height={Y1 - Y0} fill="none" stroke="#0f172a" />
    </svg>
  );
}

function Axes({
  x,
  y,
  xTicks,
  yTicks,
  xTitle,
  yTitle,
}: {
  x: (v: number) => number;
  y: (v: number) => number;
  xTicks: { value: number; label: string }[];
  yTicks: { value: number; label: string }[];
  xTitle: string;
  yTitle: string;
}) {
  return (
    <>
      {xTicks.map((t) => (
        <g key={`x-${t.label}`}>
          <line x1={x(t.value)} x2={x(t.value)} y1={Y1} y2={Y1 + 5} stroke="#0f172a" />
          <text x={x(t.value)} y={Y1 + 17} textAnchor="middle" fill="#0f172a">
            {t.label}
          </text>
        </g>
      ))}
      {yTicks.map((t) => (
        <g key={`y-${t.label}`}>
          <line x1={X0 - 5} x2={X0} y1={y(t.value)} y2={y(t.value)} stroke="#0f172a" />
          <text x={X0 - 8} y={y(t.value) + 4} textAnchor="end" fill="#0f172a">
            {t.label}
          </text>
        </g>
      ))}
      <text x={(X0 + X1) / 2} y={Y1 + 34} textAnchor="middle" fill="#334155">
        {xTitle}
      </text>
      <text x={14} y={(Y0 + Y1) / 2} textAnchor="middle" fill="#334155" transform={`rotate(-90 14 ${(Y0 + Y1) / 2})`}>
        {yTitle}
      </text>
    </>
  );
}

const plain = (lo: number, hi: number) => niceTicks(lo, hi, 5).map((v) => ({ value: v, label: formatTick(v) }));

/**
 * Bubble plot of a meta-regression on one numeric moderator (metafor regplot): each study at
 * (moderator, effect) with an area proportional to its model weight, the fitted line and its
 * confidence band. Effects on the display scale for ratio measures (log axis).
 */
export function BubblePlot({
  id,
  measure,
  reportedMeasure,
  moderator,
  x: xs,
  yi,
  labels,
  fit,
}: {
  id: string;
  measure: Measure;
  reportedMeasure?: ReportedMeasure;
  moderator: string;
  x: readonly number[];
  yi: readonly number[];
  labels: readonly string[];
  fit: BubbleFit;
}) {
  const ratio = isRatioMeasure(measure);
  const xd = paddedDomain([...xs]);
  const yd = paddedDomain([...yi, ...fit.line.flatMap((p) => [p.ci_lb, p.ci_ub])].filter(isFiniteNumber));
  const x = linearScale(xd, [X0, X1]);
  const y = linearScale([yd[1], yd[0]], [Y0, Y1]);
  const maxW = Math.max(...fit.weights);
  const band = [
    ...fit.line.map((p) => `${x(p.x)},${y(p.ci_ub)}`),
    ...[...fit.line].reverse().map((p) => `${x(p.x)},${y(p.ci_lb)}`),
  ].join(" ");
  const yTicks = ratio ? ratioTicks(yd[0], yd[1], 6) : plain(yd[0], yd[1]);
  const name = effectLabel(measure, reportedMeasure);
  const desc = `${xs.length} studies by ${moderator} and ${name}; fitted line: ${fmt(fit.intercept)} + ${fmt(fit.slope, 4)} × ${moderator} (analysis scale), with its 95% confidence band.`;
  return (
    <Frame id={id} title={`Bubble plot: ${name} by ${moderator}`} desc={desc} testId="bubble-plot">
      <polygon data-testid="bubble-band" points={band} fill="#dbeafe" stroke="none" />
      <polyline
        data-testid="bubble-line"
        points={fit.line.map((p) => `${x(p.x)},${y(p.pred)}`).join(" ")}
        fill="none"
        stroke="#1e3a8a"
        strokeWidth={1.5}
      />
      {xs.map((v, i) => (
        <circle
          key={i}
          data-testid="bubble-point"
          cx={x(v)}
          cy={y(yi[i]!)}
          r={3 + 9 * Math.sqrt((fit.weights[i] ?? 0) / maxW)}
          fill="#334155"
          fillOpacity={0.45}
          stroke="#0f172a"
        >
          <title>{`${labels[i]}: weight ${fmtPct(fit.weights[i] ?? 0)}`}</title>
        </circle>
      ))}
      <Axes
        x={x}
        y={y}
        xTicks={plain(xd[0], xd[1])}
        yTicks={yTicks}
        xTitle={moderator}
        yTitle={ratio ? `${effectName(measure, reportedMeasure)} (log scale)` : effectName(measure, reportedMeasure)}
      />
    </Frame>
  );
}

/**
 * Baujat plot (Baujat et al. 2002; metafor baujat): each study's contribution to the overall
 * heterogeneity (x) against its influence on the pooled result (y), labelled by study number.
 */
export function BaujatPlot({
  id,
  points,
  labels,
}: {
  id: string;
  points: readonly BaujatPoint[];
  labels: readonly string[];
}) {
  const ok = points.map((p, i) => ({ ...p, i })).filter((p) => isFiniteNumber(p.x) && isFiniteNumber(p.y));
  const xd: [number, number] = [0, Math.max(1e-9, ...ok.map((p) => p.x)) * 1.08];
  const yd: [number, number] = [0, Math.max(1e-9, ...ok.map((p) => p.y)) * 1.08];
  const x = linearScale(xd, [X0, X1]);
  const y = linearScale([yd[1], yd[0]], [Y0, Y1]);
  const top = [...ok].sort((a, b) => b.x + b.y - (a.x + a.y))[0];
  const desc =
    `${ok.length} studies. ` +
    ok.map((p) => `${p.i + 1} ${labels[p.i]}: contribution ${fmt(p.x)}, influence ${fmt(p.y)}`).join("; ") +
    (top ? `. Largest combined: study ${top.i + 1}.` : ".");
  return (
    <Frame id={id} title="Baujat plot" desc={desc} testId="baujat-plot">
      {ok.map((p) => (
        <g key={p.i} data-testid="baujat-point">
          <text x={x(p.x)} y={y(p.y) + 4} textAnchor="middle" fontWeight={600} fill="#0f172a">
            <title>{labels[p.i]}</title>
            {p.i + 1}
          </text>
        </g>
      ))}
      <Axes
        x={x}
        y={y}
        xTicks={plain(xd[0], xd[1])}
        yTicks={plain(yd[0], yd[1])}
        xTitle="Contribution to overall heterogeneity"
        yTitle="Influence on overall result"
      />
    </Frame>
  );
}

const ROW = 22;
const TOP = 34;
const FW = 760;

/**
 * Cumulative forest plot (metafor forest(cumul())): row j is the pooled estimate with its CI after
 * adding the j-th study in the chosen order ("+ study"), with τ² and I² at that point.
 */
export function CumulativeForestPlot({
  id,
  measure,
  reportedMeasure,
  rows,
  labels,
  orderLabel,
}: {
  id: string;
  measure: Measure;
  reportedMeasure?: ReportedMeasure;
  rows: readonly CumulativeRow[];
  labels: readonly string[];
  orderLabel: string;
}) {
  const ratio = isRatioMeasure(measure);
  const [lo, hi] = paddedDomain([0, ...rows.flatMap((r) => [r.ci_lb, r.ci_ub]).filter(isFiniteNumber)]);
  const x = linearScale([lo, hi], [PLOT_X0, PLOT_X1]);
  const axisY = TOP + rows.length * ROW + 6;
  const height = axisY + 44;
  const name = effectName(measure, reportedMeasure);
  const desc =
    `Cumulative meta-analysis ordered by ${orderLabel}. ` +
    rows
      .map(
        (r, j) =>
          `${j + 1}. adding ${labels[r.index]}: ${isFiniteNumber(r.ci_lb) ? displayEstimate(measure, r.estimate, r.ci_lb, r.ci_ub) : NOT_ESTIMABLE}`,
      )
      .join("; ") +
    ".";
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`0 0 ${FW} ${height}`}
      width="100%"
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
      data-testid="cumulative-forest-plot"
      fontFamily={FONT}
      fontSize={12}
      style={{ maxWidth: FW }}
    >
      <title id={`${id}-title`}>{`Cumulative forest plot (ordered by ${orderLabel})`}</title>
      <desc id={`${id}-desc`}>{desc}</desc>
      <rect x={0} y={0} width={FW} height={height} fill="#ffffff" />
      <g fontWeight={600} fill="#0f172a">
        <text x={8} y={18}>
          Adding study
        </text>
        <text x={598} y={18} textAnchor="end">
          I²
        </text>
        <text x={752} y={18} textAnchor="end">{`${name} [95% CI]`}</text>
      </g>
      <line x1={0} x2={FW} y1={TOP - 8} y2={TOP - 8} stroke="#cbd5e1" />
      <line x1={x(0)} x2={x(0)} y1={TOP - 8} y2={axisY} stroke="#64748b" strokeDasharray="4 3" />
      {rows.map((r, j) => {
        const yy = TOP + j * ROW + ROW / 2;
        const label = `+ ${wrapText(labels[r.index] ?? "", 36, 1)[0] ?? ""}`;
        const okRow = isFiniteNumber(r.estimate) && isFiniteNumber(r.ci_lb) && isFiniteNumber(r.ci_ub);
        const l = clampToAxis(r.ci_lb, lo, hi).value;
        const u = clampToAxis(r.ci_ub, lo, hi).value;
        return (
          <g key={j} data-testid="cumulative-row">
            <text x={8} y={yy + 4} fill="#0f172a">
              <title>{labels[r.index]}</title>
              {label}
            </text>
            {okRow && (
              <>
                <line x1={x(l)} x2={x(u)} y1={yy} y2={yy} stroke="#0f172a" />
                <circle cx={x(r.estimate)} cy={yy} r={4} fill="#1e3a8a" />
              </>
            )}
            <text x={598} y={yy + 4} textAnchor="end" fill="#334155">
              {j === 0 ? "—" : fmtPct(r.I2)}
            </text>
            <text x={752} y={yy + 4} textAnchor="end" fill="#0f172a">
              {okRow ? displayEstimate(measure, r.estimate, r.ci_lb, r.ci_ub) : NOT_ESTIMABLE}
            </text>
          </g>
        );
      })}
      <ForestAxis
        x={x}
        lo={lo}
        hi={hi}
        ratio={ratio}
        axisY={axisY}
        title={effectLabel(measure, reportedMeasure)}
        titleDy={34}
      />
    </svg>
  );
}
