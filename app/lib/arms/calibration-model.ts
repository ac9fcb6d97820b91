/**
 * The calibrated confidence's fitted model (issue 26 rounds 6–7; docs/methods/arm-extraction.md, ADR 0044). Generated:
 * do not edit by hand. Fitting command: `node bench/arm-extraction.mjs --calibrate`. Data: the open part of
 * ../shared/extraction-arms (40 reports: dev.jsonl and the train.jsonl reports not locked in
 * bench/arm-extraction-split.json), 395 values of every candidate reading of the questions (evidence items off;
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
    0.53670886, 0.73670886, 0.96455696, 0.60506329, 0.28101266, 0, 0.0050632911, 0.017721519, 0.27594937, 0.075949367,
    0.83365401, 0.44050633, 0.053164557, 0.025316456, 0.34177215, 0.39430292,
  ],
  sd: [
    0.49865064, 0.44041902, 0.18489681, 0.48883709, 0.44949365, 0, 0.070976434, 0.13193736, 0.4469914, 0.26491708,
    0.21538851, 0.49644789, 0.22436151, 0.15708448, 0.47430365, 0.43479077,
  ],
  coefficients: [
    0.24932176, 0.29629517, 0.32031826, 0.62984469, -0.69577209, 0, -0.26598155, 0.62801691, -0.15947661, -0.84127764,
    0.84472088, -0.72999189, -0.43910028, 0.6114159, 1.4877168, -1.0597828,
  ],
  intercept: 2.3771663,
  threshold: 0.97,
};
