import { describe, expect, it } from "vitest";
import { normaliseOutcomePhrase, outcomesMatch, timepointDays, timepointsCompatible } from "./outcomes";

describe("outcome matching", () => {
  it("matches wording variants and synonyms", () => {
    expect(outcomesMatch("risk of venous thromboembolism", "VTE")).toBe(true);
    expect(outcomesMatch("All-cause mortality", "death from any cause")).toBe(true);
    expect(outcomesMatch("glycosylated haemoglobin", "HbA1c")).toBe(true);
    expect(outcomesMatch("strokes", "incidence of stroke")).toBe(true);
    expect(outcomesMatch("Body weight", "weight")).toBe(true);
  });
  it("never matches different outcomes", () => {
    expect(outcomesMatch("venous thromboembolism", "cerebrovascular diseases")).toBe(false);
    expect(outcomesMatch("cerebral infarction", "cerebrovascular disease")).toBe(false);
    expect(outcomesMatch("systolic blood pressure", "diastolic blood pressure")).toBe(false);
    expect(outcomesMatch("", "")).toBe(false);
  });
  it("normalises spelling and frames", () => {
    expect(normaliseOutcomePhrase("The risk of haemorrhage.")).toBe("the risk of hemorrhage");
    expect(normaliseOutcomePhrase("risk of haemorrhage")).toBe("hemorrhage");
  });
});

describe("timepoints", () => {
  it("reads durations in days", () => {
    expect(timepointDays("12 weeks")).toBe(84);
    expect(timepointDays("0-30 days")).toBe(30);
    expect(timepointDays("week 8")).toBe(56);
    expect(timepointDays("six months")).toBeCloseTo(182.64);
    expect(timepointDays("end of pregnancy")).toBeNull();
  });
  it("pools compatible times only", () => {
    expect(timepointsCompatible("12 weeks", "3 months")).toBe(true);
    expect(timepointsCompatible("0-30 days", "1 year")).toBe(false);
    expect(timepointsCompatible(null, "1 year")).toBe(true);
    expect(timepointsCompatible("end of pregnancy", "end of pregnancy")).toBe(true);
    expect(timepointsCompatible("end of pregnancy", "in-hospital")).toBe(false);
  });
});
