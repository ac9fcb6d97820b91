import { describe, expect, it } from "vitest";
import {
  countFromPercent,
  countsFromPercent,
  normalQuantile,
  sdFromCi,
  sdFromSe,
  sdFromT,
  tFromP,
  tQuantile975,
  tQuantileUpper,
} from "./derive.ts";
import { groundProposedValue } from "./verify.ts";
import { findAbbreviations } from "./text.ts";

describe("derivations", () => {
  it("lists every whole number of events a percentage fits: none, one or several (round 23)", () => {
    expect(countsFromPercent(55.3, 1, 591)).toEqual([327]);
    expect(countsFromPercent(90.4, 1, 1640)).toEqual([1482, 1483]);
    expect(countsFromPercent(75.7, 1, 363)).toEqual([]);
    expect(countFromPercent(90.4, 1, 1640)).toBeNull();
  });

  it("computes normal and t quantiles (checked against R's qnorm and qt)", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 5);
    // qt(0.975, 24) = 2.063899; qt(0.995, 40) = 2.704459; qt(1 - 0.0005, 10) = 4.586894
    expect(tQuantileUpper(0.025, 24)).toBeCloseTo(2.063899, 3);
    expect(tQuantileUpper(0.005, 40)).toBeCloseTo(2.704459, 3);
    expect(tQuantileUpper(0.0005, 10)).toBeCloseTo(4.586894, 1);
    expect(() => normalQuantile(1)).toThrow(RangeError);
  });

  it("derives a pooled SD from t or an exact p and the mean difference (Cochrane Handbook 6.5.2.3)", () => {
    // Worked example: MD 3.8, t = 2.28, n 25 and 22: SE = 3.8 / 2.28, SD = SE / √(1/25 + 1/22) = 5.7014 (R);
    // the exact two-sided p of t = 2.28 with 45 df is 0.0274 (R: 2 * pt(-2.28, 45)).
    expect(sdFromT(3.8, 2.28, 25, 22)).toBeCloseTo(5.7014, 3);
    expect(tFromP(0.05, 30, 30)).toBeCloseTo(2.001717, 3);
    expect(sdFromT(3.8, tFromP(0.0274, 25, 22) ?? NaN, 25, 22)).toBeCloseTo(5.7014, 1);
    expect(tFromP(1, 30, 30)).toBeNull();
    expect(sdFromT(1, 0, 30, 30)).toBeNull();
  });

  it("finds the one count whose percentage rounds to the reported one", () => {
    expect(countFromPercent(78.2, 1, 101)).toBe(79);
    expect(countFromPercent(33, 0, 3)).toBe(1);
    expect(countFromPercent(50, 0, 1000)).toBeNull();
    expect(countFromPercent(12, 0, 200)).toBeNull();
  });

  it("computes SDs from SE and 95% CI (Cochrane Handbook 6.5.2.2)", () => {
    expect(sdFromSe(0.5, 100)).toBeCloseTo(5, 10);
    expect(sdFromCi(1.2, 2.8, 100)).toBeCloseTo((10 * 1.6) / 3.919928, 6);
    expect(tQuantile975(24)).toBeCloseTo(2.0639, 3);
    expect(sdFromCi(10, 14, 25)).toBeCloseTo((5 * 4) / (2 * 2.0639), 2);
  });

  it("keeps a model's number only when its quote grounds it", () => {
    expect(groundProposedValue(31, "events", "31/250 (12.4%)", 250)).toBe("");
    expect(groundProposedValue(79, "events", "response in 78.2% of children", 101)).toBe("78.2% of n = 101");
    expect(groundProposedValue(80, "events", "response in 78.2% of children", 101)).toBeNull();
    expect(groundProposedValue(5, "sd", "mean change −4.1 (SE 0.5)", 100)).toBe("SE 0.5 × √100");
  });

  it("finds abbreviations defined in text and footnotes", () => {
    const found = findAbbreviations(
      "Patients received treatment as usual (TAU) or H1 (haloperidol 1 mg). PBO, placebo.",
    );
    expect(found).toEqual(
      expect.arrayContaining([
        { short: "TAU", long: "treatment as usual" },
        { short: "H1", long: "haloperidol 1 mg" },
        { short: "PBO", long: "placebo" },
      ]),
    );
  });
});
