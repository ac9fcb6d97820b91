/**
 * The calibrated confidence's fitted model (issue 26 round 6; docs/methods/arm-extraction.md, ADR 0044). Generated:
 * do not edit by hand. Fitting command: `node bench/arm-extraction.mjs --calibrate`. Data: the open part of
 * ../shared/extraction-arms (40 reports: dev.jsonl and the train.jsonl reports not locked in
 * bench/arm-extraction-split.json), 263 values of the questions' best readings (evidence items off, consistency and
 * provenance withholding). L2-regularised logistic regression (λ = 1, standardised features, Newton–Raphson);
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
    0.6121673, 0.76045627, 0.94676806, 0.85551331, 0.2243346, 0, 0, 0.015209125, 0.33079848, 0.060836502, 0.84368821,
    0.35361217, 0.079847909, 0.038022814, 0.38022814, 0.24162557,
  ],
  sd: [
    0.48725609, 0.42680503, 0.22449566, 0.35158255, 0.41714337, 0, 0, 0.12238386, 0.47050063, 0.23903017, 0.22720506,
    0.47809058, 0.2710576, 0.19125135, 0.48544279, 0.35021271,
  ],
  coefficients: [
    0.82837355, 0.56887427, 0.1877592, 0.078736924, -0.71653795, 0, 0, 0.27396608, 0.25948993, -0.68823624, 0.37821699,
    -1.2319125, -0.89027987, 0.22915048, 0.62845708, -0.43921751,
  ],
  intercept: 4.6376109,
  threshold: 0.97,
};
