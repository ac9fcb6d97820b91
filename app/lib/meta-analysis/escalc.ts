import { lgamma } from "./distributions.ts";
import { MetaInputError } from "./errors.ts";
import type { EffectData, EffectSize, Measure } from "./types.ts";
import { RATIO_MEASURES } from "./types.ts";

/** z quantile used to recover a standard error from a reported 95% CI: (upper − lower) / (2 · 1.959964). */
export const Z_975 = 1.959964;

const MEASURE_NAMES: Record<Measure, string> = {
  RR: "risk ratio",
  OR: "odds ratio",
  RD: "risk difference",
  MD: "mean difference",
  SMD: "standardised mean difference",
  ROM: "ratio of means",
  GEN: "generic effect size",
};

/** Whether a measure is analysed on the log scale (RR, OR, ROM). */
export function isRatioMeasure(measure: Measure): boolean {
  return RATIO_MEASURES.includes(measure);
}

function finite(name: string, value: number, study: number | null): void {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new MetaInputError(`The ${name} must be a finite number (got ${String(value)}).`, study);
  }
}

/**
 * Hedges' small-sample correction J(m) = Γ(m/2) / (√(m/2) · Γ((m−1)/2)), the exact form metafor's
 * `.cmicalc` uses (not the approximation 1 − 3/(4m − 1)). m = n1 + n2 − 2 > 1.
 */
export function hedgesJ(m: number): number {
  if (!(m > 1)) return NaN;
  // Γ(m/2)/Γ((m−1)/2) by the recurrence r(x+1) = r(x) · x/(x − ½) from r(1) = 1/√π or r(3/2) = √π/2
  // when m is an integer (exact up to rounding); log-gamma otherwise.
  if (Number.isInteger(m) && m <= 20000) {
    const x = m / 2;
    let r: number;
    let start: number;
    if (Number.isInteger(x)) {
      r = 1 / Math.sqrt(Math.PI);
      start = 1;
    } else {
      r = Math.sqrt(Math.PI) / 2;
      start = 1.5;
    }
    for (let v = start; v < x; v += 1) r *= v / (v - 0.5);
    return r / Math.sqrt(x);
  }
  return Math.exp(lgamma(m / 2) - Math.log(Math.sqrt(m / 2)) - lgamma((m - 1) / 2));
}

/**
 * Effect size and sampling variance of one study, as metafor's escalc(measure = …) with its
 * defaults (add = 1/2, to = "only0", drop00 = FALSE, vtype = "LS").
 *
 * - counts (events1/n1 = treatment, events2/n2 = control): RR → yi = log(p1/p2), vi = 1/a − 1/n1 + 1/c − 1/n2;
 *   OR → yi = log(ad/bc), vi = 1/a + 1/b + 1/c + 1/d; RD → yi = p1 − p2, vi = p1(1−p1)/n1 + p2(1−p2)/n2.
 *   When any cell of the 2×2 table is 0, 0.5 is added to all four cells of that study (metafor's
 *   to = "only0"; a study with no events, or only events, in both arms is kept and corrected the same way).
 * - means: MD → m1 − m2, sd1²/n1 + sd2²/n2; SMD → Hedges' g = J(m)(m1 − m2)/s_pooled with the exact
 *   gamma-function J, vi = 1/n1 + 1/n2 + g²/(2(n1+n2)); ROM → bias-corrected log ratio of means
 *   log(m1/m2) + (sd1²/(n1 m1²) − sd2²/(n2 m2²))/2, vi = sd1²/(n1 m1²) + sd2²/(n2 m2²) (metafor ≥ 5.0-1 default).
 * - estimate-ci (natural scale): ratio measures → yi = log(estimate), se = (log upper − log lower)/(2·1.959964);
 *   difference measures (RD, MD, SMD, GEN) → yi = estimate, se = (upper − lower)/(2·1.959964); vi = se².
 * - yi-vi: passed through (already on the analysis scale).
 * - estimate-se (generic inverse variance): yi = log(estimate) for ratio measures, else estimate;
 *   vi = se² (se is the SE on the analysis scale, as RevMan's "estimate and SE"). Cochrane Handbook 6.3.
 *   With scale = "log" the estimate is already a log ratio (yi = estimate).
 * - rates (events x and person-time t per arm), measure RR (pooled as an incidence rate ratio):
 *   metafor escalc("IRR"): yi = log(x1/t1) − log(x2/t2), vi = 1/x1 + 1/x2; when either arm has no
 *   events, 0.5 is added to both event counts (add = 1/2, to = "only0"); person-time must be > 0.
 * - oe-var (O − E and its variance V; RevMan's Peto method for time-to-event data), measure RR
 *   (pooled as a hazard ratio): yi = (O − E)/V, vi = 1/V (Cochrane Handbook 6.8.2, Yusuf et al. 1985).
 *
 * Returns yi on the analysis scale (natural log for RR, OR, ROM) and vi > 0. `options.study` tags
 * errors with the study index; `options.correctRom = false` gives the uncorrected ROM.
 * Throws MetaInputError for data that cannot give a finite effect with positive variance.
 * Source: Viechtbauer (2010) metafor, R/escalc.r; Hedges (1981) for J.
 */
export interface EscalcOptions {
  /** Index of the study, reported in MetaInputError.study. */
  study?: number | null;
  /**
   * ROM only: apply the bias correction (metafor ≥ 5.0-1 default, Lajeunesse 2015). false gives the
   * uncorrected log ratio of means of older metafor versions.
   */
  correctRom?: boolean;
}

export function escalc(measure: Measure, data: EffectData, options: EscalcOptions = {}): EffectSize {
  const study = options.study ?? null;
  const name = MEASURE_NAMES[measure];
  if (!name) throw new MetaInputError(`Unknown effect measure "${String(measure)}".`, study);
  let out: EffectSize;
  switch (data.kind) {
    case "counts":
      out = fromCounts(measure, data, study);
      break;
    case "means":
      out = fromMeans(measure, data, study, options.correctRom ?? true);
      break;
    case "estimate-ci":
      out = fromEstimateCi(measure, data, study);
      break;
    case "yi-vi":
      finite("effect size (yi)", data.yi, study);
      finite("sampling variance (vi)", data.vi, study);
      if (!(data.vi > 0)) {
        throw new MetaInputError(`The sampling variance must be greater than 0 (got ${data.vi}).`, study);
      }
      out = { yi: data.yi, vi: data.vi };
      break;
    case "estimate-se":
      out = fromEstimateSe(measure, data, study);
      break;
    case "rates":
      out = fromRates(measure, data, study);
      break;
    case "oe-var":
      out = fromOeVar(measure, data, study);
      break;
    default:
      throw new MetaInputError("Unrecognised study data.", study);
  }
  if (!Number.isFinite(out.yi) || !Number.isFinite(out.vi)) {
    throw new MetaInputError(`The ${name} cannot be computed from these numbers.`, study);
  }
  if (!(out.vi > 0)) {
    throw new MetaInputError(
      `The ${name} has zero variance for these numbers, so the study cannot be weighted.`,
      study,
    );
  }
  return out;
}

function fromCounts(measure: Measure, d: Extract<EffectData, { kind: "counts" }>, study: number | null): EffectSize {
  if (measure !== "RR" && measure !== "OR" && measure !== "RD") {
    throw new MetaInputError(
      `Event counts give a risk ratio, odds ratio or risk difference, not a ${MEASURE_NAMES[measure]}.`,
      study,
    );
  }
  finite("number of events in group 1", d.events1, study);
  finite("number of events in group 2", d.events2, study);
  finite("size of group 1", d.n1, study);
  finite("size of group 2", d.n2, study);
  if (!(d.n1 > 0) || !(d.n2 > 0)) {
    throw new MetaInputError(`Group sizes must be greater than 0 (got ${d.n1} and ${d.n2}).`, study);
  }
  if (d.events1 < 0 || d.events2 < 0) {
    throw new MetaInputError(`Event counts cannot be negative (got ${d.events1} and ${d.events2}).`, study);
  }
  if (d.events1 > d.n1 || d.events2 > d.n2) {
    throw new MetaInputError(
      `Events cannot exceed the group size (got ${d.events1}/${d.n1} and ${d.events2}/${d.n2}).`,
      study,
    );
  }
  let a = d.events1;
  let b = d.n1 - d.events1;
  let c = d.events2;
  let dd = d.n2 - d.events2;
  if (a === 0 || b === 0 || c === 0 || dd === 0) {
    a += 0.5;
    b += 0.5;
    c += 0.5;
    dd += 0.5;
  }
  const n1 = a + b;
  const n2 = c + dd;
  const p1 = a / n1;
  const p2 = c / n2;
  if (measure === "RR") return { yi: Math.log(p1) - Math.log(p2), vi: 1 / a - 1 / n1 + 1 / c - 1 / n2 };
  if (measure === "OR") return { yi: Math.log((a * dd) / (b * c)), vi: 1 / a + 1 / b + 1 / c + 1 / dd };
  return { yi: p1 - p2, vi: (p1 * (1 - p1)) / n1 + (p2 * (1 - p2)) / n2 };
}

function fromMeans(
  measure: Measure,
  d: Extract<EffectData, { kind: "means" }>,
  study: number | null,
  correctRom: boolean,
): EffectSize {
  if (measure !== "MD" && measure !== "SMD" && measure !== "ROM") {
    throw new MetaInputError(
      `Means and SDs give a mean difference, standardised mean difference or ratio of means, not a ${MEASURE_NAMES[measure]}.`,
      study,
    );
  }
  finite("mean of group 1", d.mean1, study);
  finite("mean of group 2", d.mean2, study);
  finite("SD of group 1", d.sd1, study);
  finite("SD of group 2", d.sd2, study);
  finite("size of group 1", d.n1, study);
  finite("size of group 2", d.n2, study);
  if (d.sd1 < 0 || d.sd2 < 0) {
    throw new MetaInputError(`Standard deviations cannot be negative (got ${d.sd1} and ${d.sd2}).`, study);
  }
  if (!(d.n1 > 0) || !(d.n2 > 0)) {
    throw new MetaInputError(`Group sizes must be greater than 0 (got ${d.n1} and ${d.n2}).`, study);
  }
  const { mean1: m1, mean2: m2, sd1, sd2, n1, n2 } = d;
  if (measure === "MD") return { yi: m1 - m2, vi: (sd1 * sd1) / n1 + (sd2 * sd2) / n2 };
  if (measure === "SMD") {
    const m = n1 + n2 - 2;
    if (!(m > 1)) {
      throw new MetaInputError(
        `A standardised mean difference needs more than 3 participants in total (got ${n1} + ${n2}).`,
        study,
      );
    }
    const sp = Math.sqrt(((n1 - 1) * sd1 * sd1 + (n2 - 1) * sd2 * sd2) / m);
    if (!(sp > 0)) {
      throw new MetaInputError("A standardised mean difference needs a pooled SD greater than 0.", study);
    }
    const yi = (hedgesJ(m) * (m1 - m2)) / sp;
    return { yi, vi: 1 / n1 + 1 / n2 + (yi * yi) / (2 * (n1 + n2)) };
  }
  if (!(m1 > 0) || !(m2 > 0)) {
    throw new MetaInputError(`A ratio of means needs positive means in both groups (got ${m1} and ${m2}).`, study);
  }
  const v1 = (sd1 * sd1) / (n1 * m1 * m1);
  const v2 = (sd2 * sd2) / (n2 * m2 * m2);
  return { yi: Math.log(m1 / m2) + (correctRom ? (v1 - v2) / 2 : 0), vi: v1 + v2 };
}

function fromEstimateCi(
  measure: Measure,
  d: Extract<EffectData, { kind: "estimate-ci" }>,
  study: number | null,
): EffectSize {
  finite("estimate", d.estimate, study);
  finite("lower confidence limit", d.lower, study);
  finite("upper confidence limit", d.upper, study);
  if (!(d.lower < d.upper)) {
    throw new MetaInputError(
      `The lower confidence limit must be below the upper one (got ${d.lower} to ${d.upper}).`,
      study,
    );
  }
  if (d.estimate < d.lower || d.estimate > d.upper) {
    throw new MetaInputError(
      `The confidence interval ${d.lower} to ${d.upper} does not contain the estimate ${d.estimate}.`,
      study,
    );
  }
  if (isRatioMeasure(measure)) {
    if (!(d.lower > 0)) {
      throw new MetaInputError(
        `A ${MEASURE_NAMES[measure]} and its confidence limits must be greater than 0 (got ${d.estimate}, ${d.lower} to ${d.upper}).`,
        study,
      );
    }
    const se = (Math.log(d.upper) - Math.log(d.lower)) / (2 * Z_975);
    return { yi: Math.log(d.estimate), vi: se * se };
  }
  const se = (d.upper - d.lower) / (2 * Z_975);
  return { yi: d.estimate, vi: se * se };
}

function fromEstimateSe(
  measure: Measure,
  d: Extract<EffectData, { kind: "estimate-se" }>,
  study: number | null,
): EffectSize {
  finite("estimate", d.estimate, study);
  finite("standard error", d.se, study);
  if (!(d.se > 0)) throw new MetaInputError(`The standard error must be greater than 0 (got ${d.se}).`, study);
  if (isRatioMeasure(measure) && d.scale !== "log") {
    if (!(d.estimate > 0))
      throw new MetaInputError(`A ${MEASURE_NAMES[measure]} must be greater than 0 (got ${d.estimate}).`, study);
    return { yi: Math.log(d.estimate), vi: d.se * d.se };
  }
  return { yi: d.estimate, vi: d.se * d.se };
}

function fromRates(measure: Measure, d: Extract<EffectData, { kind: "rates" }>, study: number | null): EffectSize {
  if (measure !== "RR") {
    throw new MetaInputError(
      `Events and person-time give a rate ratio (pooled as RR), not a ${MEASURE_NAMES[measure]}.`,
      study,
    );
  }
  for (const [name, v] of [
    ["events (T)", d.events1],
    ["person-time (T)", d.time1],
    ["events (C)", d.events2],
    ["person-time (C)", d.time2],
  ] as const)
    finite(name, v, study);
  if (d.events1 < 0 || d.events2 < 0) throw new MetaInputError("Event counts cannot be negative.", study);
  if (!(d.time1 > 0 && d.time2 > 0))
    throw new MetaInputError("Person-time must be greater than 0 in both arms.", study);
  if (d.events1 === 0 && d.events2 === 0) {
    throw new MetaInputError("No events in either arm: the rate ratio is not estimable.", study);
  }
  const add = d.events1 === 0 || d.events2 === 0 ? 0.5 : 0;
  const x1 = d.events1 + add;
  const x2 = d.events2 + add;
  return { yi: Math.log(x1 / d.time1) - Math.log(x2 / d.time2), vi: 1 / x1 + 1 / x2 };
}

function fromOeVar(measure: Measure, d: Extract<EffectData, { kind: "oe-var" }>, study: number | null): EffectSize {
  if (measure !== "RR") {
    throw new MetaInputError(
      `O − E and its variance give a hazard ratio (pooled as RR), not a ${MEASURE_NAMES[measure]}.`,
      study,
    );
  }
  finite("O − E", d.oe, study);
  finite("variance V", d.v, study);
  if (!(d.v > 0)) throw new MetaInputError(`The variance V must be greater than 0 (got ${d.v}).`, study);
  return { yi: d.oe / d.v, vi: 1 / d.v };
}

/**
 * Peto's one-step log odds ratio of a 2×2 table, as metafor escalc(measure = "PETO") with its
 * defaults (add = 1/2, to = "only0"): `add` is added to every cell of a table with a zero cell, then
 * with O = a, E = (a + c)·n1/N and V = (a + c)(b + d)(n1/N)(n2/N)/(N − 1): yi = (O − E)/V, vi = 1/V
 * (Yusuf et al. 1985). Throws MetaInputError for invalid counts.
 */
export function escalcPeto(
  d: { events1: number; n1: number; events2: number; n2: number },
  options: { add?: number; study?: number } = {},
): EffectSize {
  const study = options.study ?? null;
  for (const v of [d.events1, d.n1, d.events2, d.n2]) {
    if (!Number.isFinite(v) || v < 0) throw new MetaInputError("Counts must be finite numbers ≥ 0.", study);
  }
  if (d.n1 <= 0 || d.n2 <= 0) throw new MetaInputError("Group sizes must be greater than 0.", study);
  if (d.events1 > d.n1 || d.events2 > d.n2) {
    throw new MetaInputError(
      `Events cannot exceed the group size (got ${d.events1}/${d.n1} and ${d.events2}/${d.n2}).`,
      study,
    );
  }
  const add = options.add ?? 0.5;
  let a = d.events1;
  let b = d.n1 - d.events1;
  let c = d.events2;
  let dd = d.n2 - d.events2;
  if (a === 0 || b === 0 || c === 0 || dd === 0) {
    a += add;
    b += add;
    c += add;
    dd += add;
  }
  const n1 = a + b;
  const n2 = c + dd;
  const N = n1 + n2;
  const xt = a + c;
  const yt = b + dd;
  const V = (xt * yt * (n1 / N) * (n2 / N)) / (N - 1);
  if (!(V > 0))
    throw new MetaInputError("Peto's odds ratio is undefined for this table (no events or no non-events).", study);
  return { yi: (a - (xt * n1) / N) / V, vi: 1 / V };
}
