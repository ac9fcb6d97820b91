/**
 * Placeholder before the first fit: every coefficient 0 (probability 0.5) and a threshold above 1 (nothing given).
 * Written by `node bench/arm-extraction.mjs --calibrate`.
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
  mean: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  sd: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
  coefficients: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  intercept: 0,
  threshold: 1.01,
};
