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
    expect(normaliseOutcomePhrase("The risk of haemorrhage.")).toBe("hemorrhage");
    // The labels the meta-analysis groups by (the former second normaliser of extract-rules.ts).
    expect(normaliseOutcomePhrase("  The Risk of  Haemorrhage. ")).toBe("hemorrhage");
    expect(normaliseOutcomePhrase("All-cause Mortality")).toBe("all-cause mortality");
    expect(normaliseOutcomePhrase("death from any cause")).toBe("all-cause mortality");
    expect(normaliseOutcomePhrase("Glycosylated haemoglobin")).toBe("hba1c");
    expect(normaliseOutcomePhrase("mortality")).toBe("mortality");
    expect(normaliseOutcomePhrase("<i>Weight</i>")).toBe("body weight");
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
