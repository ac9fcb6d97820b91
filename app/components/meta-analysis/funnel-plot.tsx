import {
  effectLabel,
  fmt,
  fmtP,
  isFiniteNumber,
  isRatioMeasure,
  Z975,
  type ReportedMeasure,
} from "~/lib/meta-analysis/display";
import { formatTick, linearScale, niceTicks, paddedDomain, ratioTicks } from "~/lib/meta-analysis/plot-scale";
import type { Measure } from "~/lib/meta-analysis/types";
import { counted } from "~/lib/wording";

export interface FunnelPoint {
  label: string;
  /** Effect size on the analysis scale. */
  yi: number;
  /** Sampling variance. */
  vi: number;
}

export interface FunnelPlotProps {
  /** Unique prefix for ids (title, desc, clip path). */
  id: string;
  measure: Measure;
  studies: readonly FunnelPoint[];
  /** Pooled estimate (analysis scale): the funnel's centre line. */
  estimate: number;
  /** Egger's regression line yi = intercept + slope · SE, with its test, or null. */
  egger: { intercept: number; slope: number; pval: number } | null;
  /** Studies imputed by trim and fill (analysis scale). */
  filled?: readonly { yi: number; vi: number }[];
  /** "HR"/"IRR" when hazard or rate ratios are pooled (measure RR). */
  reportedMeasure?: ReportedMeasure;
  title?: string;
}

const WIDTH = 520;
const HEIGHT = 380;
const X0 = 60;
const X1 = 500;
const Y0 = 20;
const Y1 = 320;
const FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif";

/** Standard error of a point, or NaN when the variance is not a finite non-negative number. */
export function standardError(vi: number): number {
  return isFiniteNumber(vi) && vi >= 0 ? Math.sqrt(vi) : Number.NaN;
}

/**
 * Axis domains of the funnel plot: SE from 0 to the largest finite SE (+5%), and effect sizes
 * covering the points and the pseudo-95% funnel at that SE around the estimate.
 */
export function funnelDomains(
  studies: readonly FunnelPoint[],
  estimate: number,
  filled: readonly { yi: number; vi: number }[] = [],
): { x: [number, number]; se: [number, number] } {
  const points = [...studies, ...filled].filter((p) => isFiniteNumber(p.yi) && isFiniteNumber(standardError(p.vi)));
  const maxSe = Math.max(0, ...points.map((p) => standardError(p.vi)));
  const seMax = maxSe > 0 ? maxSe * 1.05 : 1;
  const centre = isFiniteNumber(estimate) ? estimate : 0;
  const x = paddedDomain([...points.map((p) => p.yi), centre - Z975 * seMax, centre + Z975 * seMax]);
  return { x, se: [0, seMax] };
}

/**
 * Funnel plot (SVG): effect size (x) against standard error (y, inverted: precise studies on top),
 * the pseudo-95% confidence funnel around the pooled estimate, Egger's regression line, and the
 * studies imputed by trim and fill as open circles. Points with non-finite values are left out and
 * counted in the description.
 */
export function FunnelPlot({
  id,
  measure,
  studies,
  estimate,
  egger,
  filled = [],
  reportedMeasure,
  title,
}: FunnelPlotProps) {
  const ratio = isRatioMeasure(measure);
  const domains = funnelDomains(studies, estimate, filled);
  const x = linearScale(domains.x, [X0, X1]);
  const y = linearScale(domains.se, [Y0, Y1]);
  const seMax = domains.se[1];
  const usable = studies.filter((s) => isFiniteNumber(s.yi) && isFiniteNumber(standardError(s.vi)));
  const usableFilled = filled.filter((s) => isFiniteNumber(s.yi) && isFiniteNumber(standardError(s.vi)));
  const xTicks = ratio
    ? ratioTicks(domains.x[0], domains.x[1], 6)
    : niceTicks(domains.x[0], domains.x[1], 5).map((v) => ({ value: v, label: formatTick(v) }));
  const seTicks = niceTicks(0, seMax, 4);
  const centreOk = isFiniteNumber(estimate);
  const eggerOk = egger && isFiniteNumber(egger.intercept) && isFiniteNumber(egger.slope);
  const heading = title ?? "Funnel plot";
  const legendX = X0 + (usableFilled.length > 0 ? 210 : 76);
  const description =
    `${counted(usable.length, "study")} plotted by effect size and standard error` +
    (studies.length > usable.length ? ` (${studies.length - usable.length} not plottable)` : "") +
    (usableFilled.length
      ? `; ${counted(usableFilled.length, "study")} imputed by trim and fill shown as open circles`
      : "") +
    (eggerOk ? `; Egger's regression line drawn, test p = ${fmtP(egger.pval)}` : "") +
    ".";

  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width="100%"
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
      data-testid="funnel-plot"
      fontFamily={FONT}
      fontSize={11}
      style={{ maxWidth: WIDTH }}
    >
      <title id={`${id}-title`}>{heading}</title>
      <desc id={`${id}-desc`}>{description}</desc>
      <defs>
        <clipPath id={`${id}-clip`}>
          <rect x={X0} y={Y0} width={X1 - X0} height={Y1 - Y0} />
        </clipPath>
      </defs>
      <rect x={0} y={0} width={WIDTH} height={HEIGHT} fill="#ffffff" />
      <g clipPath={`url(#${id}-clip)`}>
        {centreOk && (
          <>
            <polygon
              data-testid="funnel-region"
              points={`${x(estimate)},${y(0)} ${x(estimate - Z975 * seMax)},${y(seMax)} ${x(estimate + Z975 * seMax)},${y(seMax)}`}
              fill="#f1f5f9"
              stroke="#94a3b8"
              strokeDasharray="4 3"
            />
            <line x1={x(estimate)} x2={x(estimate)} y1={y(0)} y2={y(seMax)} stroke="#334155" />
          </>
        )}
        {eggerOk && (
          <line
            data-testid="egger-line"
            x1={x(egger.intercept)}
            y1={y(0)}
            x2={x(egger.intercept + egger.slope * seMax)}
            y2={y(seMax)}
            stroke="#b91c1c"
            strokeWidth={1.5}
          />
        )}
        {usable.map((s, i) => (
          <circle
            key={`o-${i}`}
            data-testid="funnel-point"
            cx={x(s.yi)}
            cy={y(standardError(s.vi))}
            r={4}
            fill="#0f172a"
          >
            <title>{s.label}</title>
          </circle>
        ))}
        {usableFilled.map((s, i) => (
          <circle
            key={`f-${i}`}
            data-testid="funnel-filled-point"
            cx={x(s.yi)}
            cy={y(standardError(s.vi))}
            r={4}
            fill="#ffffff"
            stroke="#0f172a"
            strokeWidth={1.5}
          >
            <title>Imputed by trim and fill</title>
          </circle>
        ))}
      </g>
      <rect x={X0} y={Y0} width={X1 - X0} height={Y1 - Y0} fill="none" stroke="#0f172a" />
      {xTicks.map((t) => (
        <g key={`x-${t.label}`}>
          <line x1={x(t.value)} x2={x(t.value)} y1={Y1} y2={Y1 + 5} stroke="#0f172a" />
          <text x={x(t.value)} y={Y1 + 17} textAnchor="middle" fill="#0f172a">
            {t.label}
          </text>
        </g>
      ))}
      {seTicks.map((t) => (
        <g key={`y-${t}`}>
          <line x1={X0 - 5} x2={X0} y1={y(t)} y2={y(t)} stroke="#0f172a" />
          <text x={X0 - 8} y={y(t) + 4} textAnchor="end" fill="#0f172a">
            {formatTick(t)}
          </text>
        </g>
      ))}
      <text x={(X0 + X1) / 2} y={Y1 + 34} textAnchor="middle" fill="#334155">
        {ratio ? `${effectLabel(measure, reportedMeasure)} (log scale)` : effectLabel(measure, reportedMeasure)}
      </text>
      <text x={14} y={(Y0 + Y1) / 2} textAnchor="middle" fill="#334155" transform={`rotate(-90 14 ${(Y0 + Y1) / 2})`}>
        Standard error
      </text>
      <g fontSize={10} fill="#334155" data-testid="funnel-legend">
        <circle cx={X0 + 6} cy={HEIGHT - 12} r={4} fill="#0f172a" />
        <text x={X0 + 14} y={HEIGHT - 8}>
          Observed
        </text>
        {usableFilled.length > 0 && (
          <>
            <circle cx={X0 + 76} cy={HEIGHT - 12} r={4} fill="#ffffff" stroke="#0f172a" strokeWidth={1.5} />
            <text x={X0 + 84} y={HEIGHT - 8}>
              Imputed (trim and fill)
            </text>
          </>
        )}
        {eggerOk ? (
          <>
            <line x1={legendX} x2={legendX + 18} y1={HEIGHT - 12} y2={HEIGHT - 12} stroke="#b91c1c" strokeWidth={1.5} />
            <text x={legendX + 22} y={HEIGHT - 8}>{`Egger's line (p = ${fmtP(egger.pval)})`}</text>
          </>
        ) : (
          <text x={legendX} y={HEIGHT - 8}>
            {usable.length < 3 ? "Egger's test needs 3 or more studies" : "Egger's test not estimable"}
          </text>
        )}
      </g>
      <text x={X1} y={12} textAnchor="end" fontSize={10} fill="#475569">
        {centreOk
          ? `Centre: pooled estimate ${fmt(ratio ? Math.exp(estimate) : estimate)}`
          : "Pooled estimate not estimable"}
      </text>
    </svg>
  );
}
