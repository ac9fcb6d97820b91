/**
 * Calibrated confidence of an arm-level value (issue 26 round 6; docs/methods/arm-extraction.md, ADR 0044).
 *
 * Each value the rules read is described by a few general properties of the reading (the evidence items shown,
 * where and how it was read); a logistic regression fitted by nested cross-validation on the open part of
 * ../shared/extraction-arms (`node bench/arm-extraction.mjs --calibrate`) turns them into an estimated
 * probability that the value is right. Pure: no I/O.
 */
import { CALIBRATION_MODEL } from "./calibration-model.ts";

/** What the core knows about one value's reading, before any fitted weight. */
export interface ValueFeatures {
  /** Evidence items (ADR 0029): both arms named, the outcome named in full, the timepoint settled, no rival reading. */
  armsShown: boolean;
  outcomeShown: boolean;
  timeShown: boolean;
  singleReading: boolean;
  /** Read in a sentence rather than a table cell. */
  prose: boolean;
  /** Prose only: the span is not one sentence (a run the splitter did not break, or markup). */
  notOneSentence: boolean;
  /** The value's statistic or derivation needs an assumption: a bare mean with no spread or label, a pooled SD from t/p. */
  assumption: boolean;
  /** The value needs the arm's n and it is not read in the values' table (nor the one n the text states). */
  nMissing: boolean;
  /** The arm's n is read in the values' own table (cell, header over the arm's columns, elsewhere in the table). */
  nSameTable: boolean;
  /** The value is derived (events from a percentage, SD from SE, CI or t/p). */
  derived: boolean;
  /** The outcome match of the row or sentence, on the table's scale, 0–1. */
  outcomeMatch: number;
  /** An arm is matched only by its role word ("Intervention", "Control"). */
  armRoleOnly: boolean;
  /** An arm is matched by elimination (a two-arm table's other group) or by a position the report defines ("group I"). */
  armIndirect: boolean;
  /** The timepoint was taken by position: several times and the question names none. */
  timeByPosition: boolean;
  /** A count (binary outcome) rather than a mean. */
  binary: boolean;
  /** Other readings of the same kind, at another place, naming the outcome in full, with other numbers. */
  rivals: number;
  /**
   * Not a model feature: the value is derived under an assumption the report does not state (round 11
   * pooled-sd-offer: a pooled SD from t/p assumes equal SDs), so it is offered and never given, whatever its probability.
   */
  offerOnly?: boolean;
  /**
   * Not a model feature: the definitional hard rule of round 14 the value fails (HARD_GATES in extract.ts, e.g.
   * timepoint-other), as "name: what"; such a value is withheld whatever its probability.
   */
  hardGate?: string;
}

/** The feature names, in the order of the model's coefficients. */
export const CALIBRATION_FEATURES = [
  "armsShown",
  "outcomeShown",
  "timeShown",
  "singleReading",
  "prose",
  "notOneSentence",
  "assumption",
  "nMissing",
  "nSameTable",
  "derived",
  "outcomeMatch",
  "armRoleOnly",
  "armIndirect",
  "timeByPosition",
  "binary",
  "rivals",
] as const satisfies readonly (keyof ValueFeatures)[];

/**
 * The numeric vector of a value's features, in CALIBRATION_FEATURES order: booleans as 0/1, the outcome match
 * clipped to 0–1, rivals as log(1 + k).
 */
export function featureVector(f: ValueFeatures): number[] {
  return CALIBRATION_FEATURES.map((name) => {
    const v = f[name];
    if (name === "rivals") return Math.log1p(Math.max(0, v as number));
    if (name === "outcomeMatch") return Math.min(1, Math.max(0, v as number));
    return v ? 1 : 0;
  });
}

/** A fitted logistic model on standardised features: p = 1 / (1 + exp(−(intercept + Σ βᵢ (xᵢ − meanᵢ) / sdᵢ))). */
export interface CalibrationModel {
  features: readonly string[];
  mean: readonly number[];
  sd: readonly number[];
  coefficients: readonly number[];
  intercept: number;
  /** The lowest confidence (probability rounded to 2 places) at which a value is given. */
  threshold: number;
}

/**
 * Estimated probability (0–1) that a value with these features is right, under `model` (default the committed
 * CALIBRATION_MODEL): logistic regression on standardised features (a feature with SD 0 in the training data
 * contributes nothing). Throws when the model's feature list is not CALIBRATION_FEATURES.
 */
export function calibratedProbability(f: ValueFeatures, model: CalibrationModel = CALIBRATION_MODEL): number {
  if (
    model.features.length !== CALIBRATION_FEATURES.length ||
    model.features.some((n, i) => n !== CALIBRATION_FEATURES[i])
  )
    throw new Error("calibration model: feature list differs from CALIBRATION_FEATURES");
  const x = featureVector(f);
  let z = model.intercept;
  for (let i = 0; i < x.length; i += 1)
    if (model.sd[i] > 0) z += (model.coefficients[i] * (x[i] - model.mean[i])) / model.sd[i];
  return 1 / (1 + Math.exp(-z));
}

/** The confidence shown for a probability: rounded to 2 places (the threshold applies to this number). */
export const roundedConfidence = (p: number): number => Math.round(p * 100) / 100;
