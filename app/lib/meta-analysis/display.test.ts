import { describe, expect, it } from "vitest";
import {
  effectName,
  fmt,
  fmtInterval,
  fmtP,
  fmtPct,
  modelShortLabel,
  NOT_ESTIMABLE,
  pText,
  toDisplayScale,
} from "./display";

describe("display helpers", () => {
  it("never prints NaN or Infinity", () => {
    expect(fmt(Number.NaN)).toBe(NOT_ESTIMABLE);
    expect(fmt(Infinity)).toBe(NOT_ESTIMABLE);
    expect(fmt(null)).toBe(NOT_ESTIMABLE);
    expect(fmt(undefined, 2, "—")).toBe("—");
    expect(fmtP(Number.NaN)).toBe(NOT_ESTIMABLE);
    expect(fmtPct(Number.NaN)).toBe(NOT_ESTIMABLE);
    expect(fmtInterval(0.1, Number.NaN)).toBe(NOT_ESTIMABLE);
    expect(pText(Infinity)).toBe(`p ${NOT_ESTIMABLE}`);
  });

  it("formats numbers as metafor prints them", () => {
    expect(fmt(0.71454, 4)).toBe("0.7145");
    expect(fmt(-0.0001, 2)).toBe("0.00");
    expect(fmt(2, 2)).toBe("2.00");
    expect(fmt(1234567, 2)).toBe("1.23e+6");
    expect(fmtP(0.0004)).toBe("< 0.001");
    expect(fmtP(0.04213)).toBe("0.042");
    expect(pText(0.5)).toBe("p = 0.500");
    expect(fmtPct(92.2174)).toBe("92.2%");
    expect(fmtInterval(-1.0669, -0.3622)).toBe("[-1.07, -0.36]");
  });

  it("back-transforms ratio measures only", () => {
    expect(toDisplayScale("RR", Math.log(0.75))).toBeCloseTo(0.75, 12);
    expect(toDisplayScale("OR", 0)).toBe(1);
    expect(toDisplayScale("MD", -2.5)).toBe(-2.5);
    expect(toDisplayScale("SMD", Number.NaN)).toBeNaN();
  });

  it("names effects and models", () => {
    expect(effectName("RR", "HR")).toBe("HR");
    expect(effectName("GEN")).toBe("Effect");
    expect(modelShortLabel("REML", "knha")).toBe("RE model (REML, HK)");
    expect(modelShortLabel("DL", "z")).toBe("RE model (DL)");
    expect(modelShortLabel("EE", "z")).toBe("EE model");
  });
});
