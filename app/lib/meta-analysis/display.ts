import { RATIO_MEASURES, type GenqWeights, type Measure, type Method, type TestType } from "./types";

/**
 * Display helpers of the meta-analysis page, plots and report (client-safe, no I/O): number
 * formatting that never prints NaN or Infinity, back-transformation of ratio measures, and the
 * labels of measures, estimators and tests.
 */

/** Text shown instead of a number that cannot be computed (NaN, ±Infinity, null). */
export const NOT_ESTIMABLE = "not estimable";

/** 97.5% quantile of the standard normal: the half-width multiplier of a 95% CI. */
export const Z975 = 1.959963984540054;

/** Whether the value is a finite number (false for NaN, ±Infinity, null, undefined). */
export function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/**
 * Formats a number with `digits` decimals (trailing zeros kept, as metafor prints), or
 * `fallback` when it is not finite. Very large or small magnitudes use exponent notation.
 */
export function fmt(value: number | null | undefined, digits = 2, fallback = NOT_ESTIMABLE): string {
  if (!isFiniteNumber(value)) return fallback;
  const abs = Math.abs(value);
  if (abs !== 0 && (abs >= 1e6 || abs < 10 ** -(digits + 2))) return value.toExponential(digits);
  const text = value.toFixed(digits);
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

/** A p-value as journals print it: "< 0.001" below 0.001, else three decimals. */
export function fmtP(p: number | null | undefined): string {
  if (!isFiniteNumber(p)) return NOT_ESTIMABLE;
  if (p < 0.001) return "< 0.001";
  return p.toFixed(3);
}

/** A percentage with one decimal (I², weights). */
export function fmtPct(value: number | null | undefined): string {
  return isFiniteNumber(value) ? `${value.toFixed(1)}%` : NOT_ESTIMABLE;
}

/** "est [lo, hi]" with one fallback for the whole interval when any bound is not finite. */
export function fmtInterval(lo: number | null | undefined, hi: number | null | undefined, digits = 2): string {
  if (!isFiniteNumber(lo) || !isFiniteNumber(hi)) return NOT_ESTIMABLE;
  return `[${fmt(lo, digits)}, ${fmt(hi, digits)}]`;
}

/** Whether the measure is analysed on the log scale (RR, OR, ROM). */
export function isRatioMeasure(measure: Measure): boolean {
  return RATIO_MEASURES.includes(measure);
}

/**
 * The value on the scale readers expect: exp() for ratio measures (log scale → ratio), the value
 * itself for differences. Non-finite input gives NaN (format it with `fmt`).
 */
export function toDisplayScale(measure: Measure, value: number): number {
  if (!isFiniteNumber(value)) return Number.NaN;
  return isRatioMeasure(measure) ? Math.exp(value) : value;
}

/** The value at which the measure shows no effect, on the display scale (1 for ratios, 0 else). */
export function nullValue(measure: Measure): number {
  return isRatioMeasure(measure) ? 1 : 0;
}

export const MEASURE_LABELS: Record<Measure, string> = {
  RR: "Risk ratio",
  OR: "Odds ratio",
  RD: "Risk difference",
  MD: "Mean difference",
  SMD: "Standardised mean difference (Hedges' g)",
  ROM: "Ratio of means",
  GEN: "Generic effect size",
};

export const METHOD_LABELS: Record<Method, string> = {
  EE: "Equal effects",
  FE: "Fixed effects",
  DL: "DerSimonian–Laird",
  REML: "Restricted maximum likelihood",
  ML: "Maximum likelihood",
  PM: "Paule–Mandel",
  HS: "Hunter–Schmidt",
  SJ: "Sidik–Jonkman",
  HE: "Hedges",
  EB: "Empirical Bayes",
  HSk: "Hunter–Schmidt (small-sample corrected)",
  PMM: "Median-unbiased Paule–Mandel",
  DL2: "Two-step DerSimonian–Laird",
  CA2: "Two-step Cochran ANOVA",
  SJ2: "Two-step Sidik–Jonkman",
  GENQ: "Generalised Q",
  GENQM: "Median-unbiased generalised Q",
};

/** The weight rules of the generalised Q estimators GENQ/GENQM, as offered to reviewers (see GenqWeights). */
export const GENQ_WEIGHT_CHOICES: readonly GenqWeights[] = ["inverse-variance", "inverse-se", "equal"];

/** Labels of the GENQ/GENQM weights, each with what it reduces to or who proposed it. */
export const GENQ_WEIGHT_LABELS: Record<GenqWeights, string> = {
  "inverse-variance": "Inverse-variance weights 1/v (as DerSimonian–Laird)",
  "inverse-se": "Inverse standard-error weights 1/SE (Jackson 2013)",
  equal: "Equal weights (as Hedges / Cochran ANOVA)",
};

/** Short names of the GENQ/GENQM weights, without numbers (narrative text, script comments). */
export const GENQ_WEIGHT_SHORT: Record<GenqWeights, string> = {
  "inverse-variance": "inverse-variance weights",
  "inverse-se": "inverse standard-error weights",
  equal: "equal weights",
};

/** Whether the estimator takes generalised Q weights (GENQ, GENQM). */
export function isGenq(method: Method): boolean {
  return method === "GENQ" || method === "GENQM";
}

/**
 * The estimator's name for reports and pages: METHOD_LABELS, and for GENQ/GENQM also its weights,
 * e.g. "Generalised Q, inverse standard-error weights 1/SE (Jackson 2013)" (default inverse-variance).
 */
export function methodLabel(method: Method, genqWeights?: GenqWeights): string {
  if (!isGenq(method)) return METHOD_LABELS[method];
  const w = GENQ_WEIGHT_LABELS[genqWeights ?? "inverse-variance"];
  return `${METHOD_LABELS[method]}, ${w.charAt(0).toLowerCase()}${w.slice(1)}`;
}

export const TEST_LABELS: Record<TestType, string> = {
  z: "Normal (z) test and CI",
  knha: "Hartung–Knapp(–Sidik–Jonkman) t-based adjustment",
};

/** Whether the estimator is an equal-/fixed-effects model (no tau²). */
export function isCommonEffect(method: Method): boolean {
  return method === "EE" || method === "FE";
}

/** The model's short name as shown on the forest plot's pooled row, e.g. "RE model (REML, HK)". */
export function modelShortLabel(method: Method, test: TestType): string {
  const base = isCommonEffect(method) ? `${method} model` : `RE model (${method}`;
  if (isCommonEffect(method)) return test === "knha" ? `${base} (HK)` : base;
  return `${base}${test === "knha" ? ", HK" : ""})`;
}

/** "p < 0.001", "p = 0.042", or "p not estimable". */
export function pText(p: number | null | undefined): string {
  if (!isFiniteNumber(p)) return `p ${NOT_ESTIMABLE}`;
  return p < 0.001 ? "p < 0.001" : `p = ${p.toFixed(3)}`;
}

/** Reported ratio names that are pooled as log ratios under measure "RR" (see ExtractedStudyData). */
export type ReportedMeasure = "HR" | "IRR";

const REPORTED_LABELS: Record<ReportedMeasure, string> = { HR: "Hazard ratio", IRR: "Rate ratio" };

/** Short name of an effect as readers know it: "HR" for pooled hazard ratios, "Effect" for GEN. */
export function effectName(measure: Measure, reported?: ReportedMeasure): string {
  if (reported) return reported;
  return measure === "GEN" ? "Effect" : measure;
}

/** Long name of an effect: "Hazard ratio", "Risk ratio", … */
export function effectLabel(measure: Measure, reported?: ReportedMeasure): string {
  return reported ? REPORTED_LABELS[reported] : MEASURE_LABELS[measure];
}
