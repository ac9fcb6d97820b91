import {
  fmt,
  fmtPct,
  isFiniteNumber,
  isRatioMeasure,
  effectLabel,
  effectName,
  NOT_ESTIMABLE,
  toDisplayScale,
  Z975,
  type ReportedMeasure,
} from "~/lib/meta-analysis/display";
import {
  clampToAxis,
  linearScale,
  niceTicks,
  paddedDomain,
  ratioTicks,
  squareSide,
  wrapText,
  formatTick,
} from "~/lib/meta-analysis/plot-scale";
import type { Measure } from "~/lib/meta-analysis/types";
import { ROBVIS_COLOUR, ROBVIS_GLYPH } from "~/lib/risk-of-bias/plots";
import type { RobJudgement } from "~/lib/risk-of-bias/rob2";
import { ROBVIS_LABEL } from "~/lib/risk-of-bias/robvis";

/** One study row of the forest plot, on the analysis scale (log for ratio measures). */
export interface ForestStudy {
  label: string;
  yi: number;
  vi: number;
  /** Weight in percent. */
  weight: number;
  /** RoB 2 overall judgement (drawn in a risk-of-bias column when any study has one; null = not assessed). */
  riskOfBias?: RobJudgement | null;
}

/** The pooled estimate drawn as a diamond, with its prediction interval, on the analysis scale. */
export interface ForestPooled {
  label: string;
  estimate: number;
  ci_lb: number;
  ci_ub: number;
  pi_lb: number;
  pi_ub: number;
}

export interface ForestPlotProps {
  /** Unique prefix for the SVG's title/desc ids (several plots may share a document). */
  id: string;
  measure: Measure;
  studies: readonly ForestStudy[];
  pooled: ForestPooled | null;
  /** "HR"/"IRR" when hazard or rate ratios are pooled (measure RR). */
  reportedMeasure?: ReportedMeasure;
  title?: string;
}

const WIDTH = 760;
const LABEL_X = 8;
/** The plot area's left and right edges in the SVG (px), shared by the subgroup forest plot. */
export const PLOT_X0 = 250;
export const PLOT_X1 = 520;
const WEIGHT_X = 580;
const EST_X = 752;
const ROW = 22;
const TOP = 34;
const FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif";
/** Extra width of the risk-of-bias column, and its centre. */
const ROB_COLUMN = 44;
const ROB_X = WIDTH + ROB_COLUMN / 2 - 4;

/** 95% CI of a study from yi and vi (normal approximation, as metafor's forest()). */
export function studyInterval(yi: number, vi: number): [number, number] | null {
  if (!isFiniteNumber(yi) || !isFiniteNumber(vi) || vi < 0) return null;
  const half = Z975 * Math.sqrt(vi);
  return [yi - half, yi + half];
}

/**
 * The forest plot's horizontal domain (analysis scale): every finite study CI bound, the pooled CI
 * and PI, and the null value, padded by 5%.
 */
export function forestDomain(
  measure: Measure,
  studies: readonly ForestStudy[],
  pooled: ForestPooled | null,
): [number, number] {
  // The null line: 0 on the analysis scale (log 1 for ratios, 0 for differences).
  const values: number[] = [0];
  for (const s of studies) {
    const ci = studyInterval(s.yi, s.vi);
    if (ci) values.push(ci[0], ci[1]);
  }
  if (pooled) values.push(pooled.ci_lb, pooled.ci_ub, pooled.pi_lb, pooled.pi_ub, pooled.estimate);
  return paddedDomain(values);
}

/** "0.75 [0.60, 0.93]" on the display scale, or the not-estimable text. */
export function displayEstimate(measure: Measure, est: number, lo: number, hi: number): string {
  const e = toDisplayScale(measure, est);
  const l = toDisplayScale(measure, lo);
  const h = toDisplayScale(measure, hi);
  if (!isFiniteNumber(e) || !isFiniteNumber(l) || !isFiniteNumber(h)) return NOT_ESTIMABLE;
  return `${fmt(e)} [${fmt(l)}, ${fmt(h)}]`;
}

/**
 * Forest plot (SVG): per study a square (area ∝ weight) at the estimate with its 95% CI line,
 * label, weight in percent and the estimate with CI as text; the pooled estimate as a diamond
 * spanning its CI with the prediction interval as a line through it; a dashed line at no effect; a
 * log axis labelled with ratios for ratio measures. Studies whose values are not finite are listed
 * as "not estimable" without marks. When studies carry a RoB 2 overall judgement, a risk-of-bias
 * column (robvis colours and glyphs: + low, - some concerns, X high; "?" not assessed) is added on
 * the right, as in RevMan's forest plots.
 */
export function ForestPlot({ id, measure, studies, pooled, reportedMeasure, title }: ForestPlotProps) {
  const ratio = isRatioMeasure(measure);
  const [lo, hi] = forestDomain(measure, studies, pooled);
  const x = linearScale([lo, hi], [PLOT_X0, PLOT_X1]);
  const rows = studies.length;
  const pooledY = TOP + rows * ROW + ROW;
  const axisY = pooledY + ROW;
  const height = axisY + 44;
  const maxWeight = Math.max(0, ...studies.map((s) => (isFiniteNumber(s.weight) ? s.weight : 0)));
  const nullX = x(0);
  const longName = effectLabel(measure, reportedMeasure);
  const heading = title ?? `Forest plot: ${longName}`;
  const withRob = studies.some((s) => s.riskOfBias !== undefined && s.riskOfBias !== null);
  const width = withRob ? WIDTH + ROB_COLUMN : WIDTH;
  const pooledText = pooled ? displayEstimate(measure, pooled.estimate, pooled.ci_lb, pooled.ci_ub) : NOT_ESTIMABLE;
  const description =
    `${rows} ${rows === 1 ? "study" : "studies"}. ` +
    studies
      .map((s) => {
        const ci = studyInterval(s.yi, s.vi);
        const rob = withRob
          ? `, risk of bias ${s.riskOfBias ? ROBVIS_LABEL[s.riskOfBias].toLowerCase() : "not assessed"}`
          : "";
        return `${s.label}: ${ci ? displayEstimate(measure, s.yi, ci[0], ci[1]) : NOT_ESTIMABLE}, weight ${fmtPct(s.weight)}${rob}`;
      })
      .join("; ") +
    (pooled ? `. Pooled (${pooled.label}): ${pooledText}.` : ".");
  const pooledOk =
    pooled && isFiniteNumber(pooled.estimate) && isFiniteNumber(pooled.ci_lb) && isFiniteNumber(pooled.ci_ub);
  const piOk = pooledOk && isFiniteNumber(pooled.pi_lb) && isFiniteNumber(pooled.pi_ub);

  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`0 0 ${width} ${height}`}
      width="100%"
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
      data-testid="forest-plot"
      fontFamily={FONT}
      fontSize={12}
      style={{ maxWidth: width }}
    >
      <title id={`${id}-title`}>{heading}</title>
      <desc id={`${id}-desc`}>{description}</desc>
      <rect x={0} y={0} width={width} height={height} fill="#ffffff" />
      <g fontWeight={600} fill="#0f172a">
        <text x={LABEL_X} y={18}>
          Study
        </text>
        <text x={WEIGHT_X} y={18} textAnchor="end">
          Weight
        </text>
        <text x={EST_X} y={18} textAnchor="end">{`${effectName(measure, reportedMeasure)} [95% CI]`}</text>
        {withRob && (
          <text x={ROB_X} y={18} textAnchor="middle">
            RoB
          </text>
        )}
      </g>
      <line x1={0} x2={width} y1={TOP - 8} y2={TOP - 8} stroke="#cbd5e1" />
      <line
        x1={nullX}
        x2={nullX}
        y1={TOP - 8}
        y2={axisY}
        stroke="#64748b"
        strokeDasharray="4 3"
        data-testid="null-line"
      />

      {studies.map((s, i) => {
        const y = TOP + i * ROW + ROW / 2;
        const ci = studyInterval(s.yi, s.vi);
        const label = wrapText(s.label, 38, 1)[0] ?? "";
        const side = squareSide(s.weight, maxWeight);
        return (
          <g key={`${s.label}-${i}`} data-testid="forest-study">
            <text x={LABEL_X} y={y + 4} fill="#0f172a">
              {label !== s.label && <title>{s.label}</title>}
              {label}
            </text>
            {ci && isFiniteNumber(s.yi) ? (
              <ForestMarks ci={ci} yi={s.yi} y={y} side={side} x={x} lo={lo} hi={hi} />
            ) : null}
            <text x={WEIGHT_X} y={y + 4} textAnchor="end" fill="#334155">
              {fmtPct(s.weight)}
            </text>
            <text x={EST_X} y={y + 4} textAnchor="end" fill="#0f172a">
              {ci ? displayEstimate(measure, s.yi, ci[0], ci[1]) : NOT_ESTIMABLE}
            </text>
            {withRob && <RobMark y={y} judgement={s.riskOfBias ?? null} />}
          </g>
        );
      })}

      <line x1={LABEL_X} x2={width - 8} y1={pooledY - ROW / 2 - 2} y2={pooledY - ROW / 2 - 2} stroke="#cbd5e1" />
      {pooled && (
        <g data-testid="forest-pooled">
          <text x={LABEL_X} y={pooledY + 4} fontWeight={600} fill="#0f172a">
            {pooled.label}
          </text>
          {piOk && (
            <line
              data-testid="prediction-interval"
              x1={clampToAxis(x(pooled.pi_lb), PLOT_X0, PLOT_X1).value}
              x2={clampToAxis(x(pooled.pi_ub), PLOT_X0, PLOT_X1).value}
              y1={pooledY}
              y2={pooledY}
              stroke="#0f172a"
              strokeWidth={1.5}
            />
          )}
          {pooledOk && (
            <polygon
              data-testid="pooled-diamond"
              points={[
                `${x(pooled.ci_lb)},${pooledY}`,
                `${x(pooled.estimate)},${pooledY - 7}`,
                `${x(pooled.ci_ub)},${pooledY}`,
                `${x(pooled.estimate)},${pooledY + 7}`,
              ].join(" ")}
              fill="#1e3a8a"
              stroke="#0f172a"
            />
          )}
          <text x={WEIGHT_X} y={pooledY + 4} textAnchor="end" fill="#334155">
            100.0%
          </text>
          <text x={EST_X} y={pooledY + 4} textAnchor="end" fontWeight={600} fill="#0f172a">
            {pooledText}
          </text>
          {piOk && (
            <text x={LABEL_X} y={pooledY + 18} fontSize={10} fill="#475569">
              {`Prediction interval ${fmt(toDisplayScale(measure, pooled.pi_lb))} to ${fmt(toDisplayScale(measure, pooled.pi_ub))}`}
            </text>
          )}
        </g>
      )}

      <ForestAxis
        x={x}
        lo={lo}
        hi={hi}
        ratio={ratio}
        axisY={axisY}
        title={longName}
        titleDy={34}
        testId="forest-axis"
      />
    </svg>
  );
}

/** The risk-of-bias column's mark of one study: a robvis-coloured circle with its glyph, "?" when not assessed. */
function RobMark({ y, judgement }: { y: number; judgement: RobJudgement | null }) {
  return (
    <g data-testid="forest-rob" data-judgement={judgement ?? "not_assessed"}>
      <title>{`Risk of bias: ${judgement ? ROBVIS_LABEL[judgement] : "not assessed"}`}</title>
      <circle
        cx={ROB_X}
        cy={y}
        r={8}
        fill={judgement ? ROBVIS_COLOUR[judgement] : "#cbd5e1"}
        stroke="#334155"
        strokeWidth={0.5}
      />
      <text x={ROB_X} y={y + 4} textAnchor="middle" fontSize={11} fontWeight={700} fill="#000000">
        {judgement ? ROBVIS_GLYPH[judgement] : "?"}
      </text>
    </g>
  );
}

/**
 * A forest plot's x axis: the line from PLOT_X0 to PLOT_X1 at `axisY`, ticks (on the ratio scale for
 * ratio measures, else about 5 round values between `lo` and `hi`) and the measure's name
 * `titleDy` px below the axis.
 */
export function ForestAxis({
  x,
  lo,
  hi,
  ratio,
  axisY,
  title,
  titleDy,
  testId,
}: {
  x: (v: number) => number;
  lo: number;
  hi: number;
  ratio: boolean;
  axisY: number;
  title: string;
  titleDy: number;
  testId?: string;
}) {
  const ticks = ratio ? ratioTicks(lo, hi) : niceTicks(lo, hi, 5).map((v) => ({ value: v, label: formatTick(v) }));
  return (
    <g data-testid={testId}>
      <line x1={PLOT_X0} x2={PLOT_X1} y1={axisY} y2={axisY} stroke="#0f172a" />
      {ticks.map((t) => (
        <g key={t.label}>
          <line x1={x(t.value)} x2={x(t.value)} y1={axisY} y2={axisY + 5} stroke="#0f172a" />
          <text x={x(t.value)} y={axisY + 17} textAnchor="middle" fontSize={10} fill="#0f172a">
            {t.label}
          </text>
        </g>
      ))}
      <text x={(PLOT_X0 + PLOT_X1) / 2} y={axisY + titleDy} textAnchor="middle" fontSize={11} fill="#334155">
        {ratio ? `${title} (log scale)` : title}
      </text>
    </g>
  );
}

export function ForestMarks({
  ci,
  yi,
  y,
  side,
  x,
  lo,
  hi,
}: {
  ci: [number, number];
  yi: number;
  y: number;
  side: number;
  x: (v: number) => number;
  lo: number;
  hi: number;
}) {
  const left = clampToAxis(ci[0], lo, hi);
  const right = clampToAxis(ci[1], lo, hi);
  const cx = x(yi);
  return (
    <>
      <line x1={x(left.value)} x2={x(right.value)} y1={y} y2={y} stroke="#0f172a" />
      {left.clipped && <polygon points={`${x(lo)},${y} ${x(lo) + 6},${y - 3} ${x(lo) + 6},${y + 3}`} fill="#0f172a" />}
      {right.clipped && <polygon points={`${x(hi)},${y} ${x(hi) - 6},${y - 3} ${x(hi) - 6},${y + 3}`} fill="#0f172a" />}
      <rect data-testid="forest-square" x={cx - side / 2} y={y - side / 2} width={side} height={side} fill="#334155" />
    </>
  );
}
