import {
  fmt,
  fmtInterval,
  fmtPct,
  pText,
  isCommonEffect,
  isFiniteNumber,
  NOT_ESTIMABLE,
  toDisplayScale,
} from "~/lib/meta-analysis/display";
import type { Measure, Method } from "~/lib/meta-analysis/types";

export interface HeterogeneityPanelProps {
  measure: Measure;
  method: Method;
  k: number;
  tau2: number;
  tau2_ci: [number, number] | null;
  I2: number;
  H2: number;
  QE: number;
  QEp: number;
  pi_lb: number;
  pi_ub: number;
}

/**
 * How Cochrane's Handbook (§10.10.2) reads I²: 0–40% might not be important, 30–60% moderate,
 * 50–90% substantial, 75–100% considerable. Overlapping bands are resolved to the higher reading
 * from the band's midpoint on.
 */
export function interpretI2(i2: number): string {
  if (!isFiniteNumber(i2)) return "I² could not be estimated.";
  if (i2 < 30) return "Heterogeneity might not be important (I² below 30%).";
  if (i2 < 50) return "Moderate heterogeneity may be present (I² 30–50%).";
  if (i2 < 75) return "Substantial heterogeneity (I² 50–75%).";
  return "Considerable heterogeneity (I² of 75% or more).";
}

/**
 * Heterogeneity panel of one analysis: τ² with its Q-profile CI, τ, I² with the Cochrane reading,
 * H², Cochran's Q with df and p, and the 95% prediction interval on the display scale. For k = 1
 * or equal-effects models the statistics that do not apply are said so in words.
 */
export function HeterogeneityPanel(props: HeterogeneityPanelProps) {
  const { measure, method, k, tau2, tau2_ci, I2, H2, QE, QEp, pi_lb, pi_ub } = props;
  const single = k < 2;
  const common = isCommonEffect(method);
  const items: [string, string, string][] = [
    [
      "τ² (between-study variance)",
      single ? "not applicable (one study)" : common ? "0 (assumed by the equal-effects model)" : fmt(tau2, 4),
      "tau2",
    ],
    [
      "τ² 95% CI (Q-profile)",
      tau2_ci && !single && !common ? fmtInterval(tau2_ci[0], tau2_ci[1], 4) : "not applicable",
      "tau2-ci",
    ],
    [
      "τ",
      single || common ? "not applicable" : isFiniteNumber(tau2) && tau2 >= 0 ? fmt(Math.sqrt(tau2), 4) : NOT_ESTIMABLE,
      "tau",
    ],
    ["I²", single ? "not applicable (one study)" : fmtPct(I2), "I2"],
    ["H²", single ? "not applicable (one study)" : fmt(H2), "H2"],
    ["Cochran's Q", single ? "not applicable (one study)" : `${fmt(QE)} (df = ${k - 1}), ${pText(QEp)}`, "Q"],
    [
      "95% prediction interval",
      single
        ? "not applicable (one study)"
        : fmtInterval(toDisplayScale(measure, pi_lb), toDisplayScale(measure, pi_ub)),
      "pi",
    ],
  ];
  return (
    <section
      data-testid="heterogeneity-panel"
      aria-label="Heterogeneity"
      className="heterogeneity rounded-lg border border-slate-200 p-4"
    >
      <h4 className="text-sm font-semibold text-slate-900">Heterogeneity</h4>
      <dl className="mt-2 grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
        {items.map(([label, value, key]) => (
          <div
            key={key}
            className="flex justify-between gap-3 border-b border-slate-100 py-1"
            data-testid={`het-${key}`}
          >
            <dt className="text-slate-600">{label}</dt>
            <dd className="font-medium text-slate-900 tabular-nums">{value}</dd>
          </div>
        ))}
      </dl>
      {!single && <p className="mt-2 text-sm text-slate-700">{interpretI2(I2)}</p>}
    </section>
  );
}
