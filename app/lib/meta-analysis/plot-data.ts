/**
 * The numbers behind the exploration plots (issue 29): Baujat plot (metafor baujat.rma), the bubble
 * plot's fitted line with its confidence band (metafor regplot / predict.rma for one moderator),
 * and the cumulative forest plot's rows (metafor cumul.rma.uni). Pure; the SVG components in
 * app/components/meta-analysis/exploration-plots.tsx draw them.
 */
import { MetaInputError } from "./errors.ts";
import { cumulative, leaveOneOut } from "./influence.ts";
import { fitModel, type ModelOptions } from "./metareg.ts";

/** One study of a Baujat plot. */
export interface BaujatPoint {
  /** Contribution to the overall heterogeneity: (y_i − μ̂)² / (v_i + τ̂²). */
  x: number;
  /** Influence on the pooled result: (μ̂₋ᵢ − μ̂)² / Var(μ̂₋ᵢ). */
  y: number;
}

/**
 * Baujat et al. (2002) plot of an intercept-only model, as metafor baujat.rma computes it: x = the
 * squared Pearson residual (y_i − μ̂)² / (τ̂² + v_i) of the full model, y = (μ̂₋ᵢ − μ̂)² / Var(μ̂₋ᵢ)
 * with μ̂₋ᵢ and its variance from the model refitted without study i (same estimator and test).
 * @throws MetaInputError for fewer than 3 studies or invalid data.
 */
export function baujat(yi: ArrayLike<number>, vi: ArrayLike<number>, opts: ModelOptions): BaujatPoint[] {
  if (yi.length < 3) throw new MetaInputError("A Baujat plot needs at least 3 studies.");
  const full = fitModel(yi, vi, null, opts);
  const mu = full.beta[0]!;
  const l1o = leaveOneOut(yi, vi, opts);
  return Array.from({ length: yi.length }, (_, i) => ({
    x: (yi[i]! - mu) ** 2 / (full.tau2 + vi[i]!),
    y: (l1o.estimate[i]! - mu) ** 2 / l1o.se[i]! ** 2,
  }));
}

/** The fitted line of a meta-regression on one numeric moderator, with its confidence band. */
export interface BubbleFit {
  intercept: number;
  slope: number;
  /** Points of the line and band over the moderator's range (analysis scale). */
  line: { x: number; pred: number; ci_lb: number; ci_ub: number }[];
  /** Model weights in percent (point areas). */
  weights: number[];
  QMp: number;
}

/**
 * metafor regplot()'s line and band: rma(yi, vi, mods = ~ x) and predict() at `points` evenly
 * spaced moderator values over the range of x; band = pred ± crit·√(x₀ᵀ Var(β̂) x₀) with crit the
 * normal quantile, or t(k − 2) under Hartung–Knapp.
 * @throws MetaInputError for fewer than 3 studies, a constant moderator or invalid data.
 */
export function bubbleFit(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  x: ArrayLike<number>,
  opts: ModelOptions,
  points = 41,
): BubbleFit {
  if (yi.length < 3) throw new MetaInputError("A bubble plot needs at least 3 studies.");
  const fit = fitModel(yi, vi, [x], opts);
  const [b0, b1] = fit.beta as [number, number];
  const [v00, v01, , v11] = fit.vb as [number, number, number, number];
  const crit = (fit.ci_ub[0]! - b0) / fit.se[0]!;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < x.length; i++) {
    lo = Math.min(lo, x[i]!);
    hi = Math.max(hi, x[i]!);
  }
  const line = Array.from({ length: points }, (_, j) => {
    const x0 = lo + ((hi - lo) * j) / (points - 1);
    const pred = b0 + b1 * x0;
    const se = Math.sqrt(v00 + 2 * x0 * v01 + x0 * x0 * v11);
    return { x: x0, pred, ci_lb: pred - crit * se, ci_ub: pred + crit * se };
  });
  let sw = 0;
  for (const w of fit.w) sw += w;
  return { intercept: b0, slope: b1, line, weights: Array.from(fit.w, (w) => (100 * w) / sw), QMp: fit.QMp };
}

/** One row of a cumulative forest plot: the pooled estimate after adding study `index`. */
export interface CumulativeRow {
  index: number;
  estimate: number;
  ci_lb: number;
  ci_ub: number;
  tau2: number;
  I2: number;
}

/**
 * Cumulative meta-analysis (metafor cumul.rma.uni) in `order` (study indexes; default: as given),
 * one row per added study.
 * @throws MetaInputError for fewer than 2 studies or invalid data.
 */
export function cumulativeRows(
  yi: ArrayLike<number>,
  vi: ArrayLike<number>,
  opts: ModelOptions,
  order?: readonly number[],
): CumulativeRow[] {
  const r = cumulative(yi, vi, opts, order);
  return r.order.map((index, j) => ({
    index,
    estimate: r.estimate[j]!,
    ci_lb: r.ci_lb[j]!,
    ci_ub: r.ci_ub[j]!,
    tau2: r.tau2[j]!,
    I2: r.I2[j]!,
  }));
}
