/**
 * The calibrated confidence's fitted model (issue 26 rounds 6–7; docs/methods/arm-extraction.md, ADR 0044). Generated:
 * do not edit by hand. Fitting command: `node bench/arm-extraction.mjs --calibrate`. Data: the open part of
 * ../shared/extraction-arms (40 reports: dev.jsonl and the train.jsonl reports not locked in
 * bench/arm-extraction-split.json), 471 values of every candidate reading of the questions (evidence items off;
 * consistency and provenance checks withholding). L2-regularised logistic regression (λ = 1, standardised features, Newton–Raphson);
 * threshold: the lowest confidence whose precision over the 5-fold out-of-fold predictions (cvFolds of
 * bench/arm-extraction-folds.json, seed 20261127) is ≥ 0.95. Fitted 2026-11-27.
 */
import type { CalibrationModel } from "./calibration.ts";

export const CALIBRATION_MODEL: CalibrationModel = {
  features: [
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
  ],
  mean: [
    0.61146497, 0.66666667, 0.97027601, 0.55626327, 0.23566879, 0, 0.0042462845, 0.014861996, 0.23142251, 0.063694268,
    0.81475348, 0.36942675, 0.2059448, 0.021231423, 0.44798301, 0.39984622,
  ],
  sd: [
    0.48741723, 0.47140452, 0.16982484, 0.49682436, 0.42441608, 0, 0.065025023, 0.12100048, 0.42174178, 0.24420751,
    0.21288363, 0.48264959, 0.40439033, 0.14415495, 0.49728687, 0.4207055,
  ],
  coefficients: [
    0.38911736, 0.5388101, 0.3735927, 0.81741383, -0.49869705, 0, -0.28059312, 0.59126575, 0.071967119, -0.73233176,
    0.55524856, -0.46801669, -0.96095776, 0.58353705, 1.325061, -0.83381883,
  ],
  intercept: 2.1982187,
  threshold: 0.95,
};
