import { describe, expect, it } from "vitest";
import { pipeTable } from "../../../tests/arm-reports";
import {
  ABSTAIN_BELOW,
  CALIBRATION_FEATURES,
  CALIBRATION_MODEL,
  calibratedProbability,
  extractArms,
  featureVector,
  parseReport,
  perValue,
  roundedConfidence,
  type CalibrationModel,
  type ValueFeatures,
} from "./index.ts";

/** A value read in a table row with every evidence item shown (arms named, outcome in full, one time, no rival). */
const evidenced: ValueFeatures = {
  armsShown: true,
  outcomeShown: true,
  timeShown: true,
  singleReading: true,
  prose: false,
  notOneSentence: false,
  assumption: false,
  nMissing: false,
  nSameTable: true,
  derived: false,
  outcomeMatch: 1,
  armRoleOnly: false,
  armIndirect: false,
  timeByPosition: false,
  binary: false,
  rivals: 0,
};

describe("calibration features (pure)", () => {
  it("turns booleans into 0/1, clips the outcome match and takes log(1 + k) of the rivals", () => {
    const x = featureVector({ ...evidenced, prose: true, outcomeMatch: 1.2, rivals: 3 });
    expect(x).toHaveLength(CALIBRATION_FEATURES.length);
    expect(x[CALIBRATION_FEATURES.indexOf("armsShown")]).toBe(1);
    expect(x[CALIBRATION_FEATURES.indexOf("prose")]).toBe(1);
    expect(x[CALIBRATION_FEATURES.indexOf("derived")]).toBe(0);
    expect(x[CALIBRATION_FEATURES.indexOf("outcomeMatch")]).toBe(1);
    expect(x[CALIBRATION_FEATURES.indexOf("rivals")]).toBeCloseTo(Math.log(4), 12);
  });

  it("computes the logistic probability on standardised features and ignores a feature with SD 0", () => {
    const d = CALIBRATION_FEATURES.length;
    const model: CalibrationModel = {
      features: [...CALIBRATION_FEATURES],
      mean: new Array(d).fill(0.5),
      sd: new Array(d).fill(0).map((_, i) => (i === 0 ? 0.5 : 0)),
      coefficients: new Array(d).fill(0).map((_, i) => (i === 0 ? 2 : 100)),
      intercept: -1,
      threshold: 0.9,
    };
    // armsShown = 1: z = −1 + 2 × (1 − 0.5) / 0.5 = 1; every other feature has SD 0 and adds nothing.
    expect(calibratedProbability(evidenced, model)).toBeCloseTo(1 / (1 + Math.exp(-1)), 12);
    expect(calibratedProbability({ ...evidenced, armsShown: false }, model)).toBeCloseTo(1 / (1 + Math.exp(3)), 12);
    expect(roundedConfidence(0.9749)).toBe(0.97);
  });

  it("refuses a model whose feature list is not the core's", () => {
    expect(() =>
      calibratedProbability(evidenced, { ...CALIBRATION_MODEL, features: [...CALIBRATION_FEATURES].reverse() }),
    ).toThrow(/feature list/);
  });
});

describe("the committed model (node bench/arm-extraction.mjs --calibrate)", () => {
  it("is fitted on the core's features and its threshold is the product's ABSTAIN_BELOW", () => {
    expect(CALIBRATION_MODEL.features).toEqual([...CALIBRATION_FEATURES]);
    expect(CALIBRATION_MODEL.coefficients.some((c) => c !== 0)).toBe(true);
    expect(ABSTAIN_BELOW).toBe(CALIBRATION_MODEL.threshold);
    expect(ABSTAIN_BELOW).toBeGreaterThan(0.5);
    expect(ABSTAIN_BELOW).toBeLessThanOrEqual(1);
  });

  it("gives a fully evidenced table row a confidence at or above the threshold", () => {
    expect(roundedConfidence(calibratedProbability(evidenced))).toBeGreaterThanOrEqual(ABSTAIN_BELOW);
    expect(roundedConfidence(calibratedProbability({ ...evidenced, binary: true }))).toBeGreaterThanOrEqual(
      ABSTAIN_BELOW,
    );
  });

  it("puts an arm matched only by its role, with a rival reading, below the threshold", () => {
    const roleOnly = { ...evidenced, armsShown: false, armRoleOnly: true, singleReading: false, rivals: 1 };
    expect(roundedConfidence(calibratedProbability(roleOnly))).toBeLessThan(ABSTAIN_BELOW);
    expect(calibratedProbability(roleOnly)).toBeLessThan(calibratedProbability(evidenced));
  });
});

describe("features of a reading and the calibrated gate (invented reports)", () => {
  // Family: outcome tables with one column per named arm, n in the header, 'mean (SD)' cells.
  const named = pipeTable(
    "Table 2. Outcomes at 12 weeks",
    ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)"],
    [["Pain score (0-10)", "3.1 (1.2)", "4.6 (1.5)"]],
  );
  // Family: two-arm tables whose columns name only the arm's role, the outcome also in a second table.
  const roles = (caption: string, a: string, b: string) =>
    pipeTable(caption, ["Outcome", "Intervention (n = 30)", "Control (n = 31)"], [["Pain score (0-10)", a, b]]);

  it("describes a named table row: every item shown, a table cell, n from the same table, no rival", () => {
    const features = perValue<ValueFeatures | null>(null);
    const r = extractArms(
      parseReport(`Results.\n\n${named}`, "markdown"),
      { intervention: "velatrin", comparator: "placebo", outcome: "pain score" },
      { features },
    );
    expect(features.intervention.mean).toMatchObject({
      armsShown: true,
      outcomeShown: true,
      singleReading: true,
      prose: false,
      nSameTable: true,
      armRoleOnly: false,
      binary: false,
      rivals: 0,
    });
    expect(features.intervention.events).toBeNull();
    expect(r.confidence?.intervention.mean).toBe(roundedConfidence(calibratedProbability(features.intervention.mean!)));
    expect(r.confidence?.intervention.mean).toBeGreaterThanOrEqual(ABSTAIN_BELOW);
  });

  it("withholds a role-only column with a rival table below the threshold, listing the items and the probability", () => {
    const text = `Results.\n\n${roles("Table 2. Outcomes", "3.1 (1.2)", "4.6 (1.5)")}\n\n${roles("Table 3. Outcomes", "2.2 (1.0)", "4.9 (1.1)")}`;
    const question = { intervention: "motivational interviewing", comparator: "usual care", outcome: "pain score" };
    const features = perValue<ValueFeatures | null>(null);
    const raw = extractArms(parseReport(text, "markdown"), question, { abstainBelow: 0, features });
    expect(features.intervention.mean).toMatchObject({ armRoleOnly: true, singleReading: false, rivals: 1 });
    expect(raw.confidence?.intervention.mean).toBeLessThan(ABSTAIN_BELOW);
    const r = extractArms(parseReport(text, "markdown"), question);
    expect(r.intervention.mean).toBeNull();
    expect(r.reason?.intervention.mean).toMatch(
      /^not found: the best candidate \(\d\.\d, confidence 0\.\d\d\) is too uncertain — .*estimated probability right 0\.\d\d; .*missing: arms: a label names only the arm's role; single reading: no/,
    );
  });
});
