import { describe, expect, it } from "vitest";
import { countFromPercent, sdFromCi, sdFromSe, tQuantile975 } from "./derive.ts";
import { groundProposedValue } from "./verify.ts";
import { findAbbreviations } from "./text.ts";

describe("derivations", () => {
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
    const found = findAbbreviations("Patients received treatment as usual (TAU) or H1 (haloperidol 1 mg). PBO, placebo.");
    expect(found).toEqual(
      expect.arrayContaining([
        { short: "TAU", long: "treatment as usual" },
        { short: "H1", long: "haloperidol 1 mg" },
        { short: "PBO", long: "placebo" },
      ]),
    );
  });
});
