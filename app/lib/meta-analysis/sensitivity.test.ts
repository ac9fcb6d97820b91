import { describe, expect, it } from "vitest";
import { yi, vi } from "../../../tests/meta-analysis-bcg";
import type { ExploredAnalysis } from "./explore";
import { subgroupNarrative } from "./explore";
import { influence } from "./influence";
import { rma } from "./rma";
import { sensitivityAnalyses } from "./sensitivity";
import { subgroupAnalysis } from "./subgroup";

// metafor's dat.bcg, escalc(measure = "RR").
const effects = yi.map((y, i) => ({ yi: y, vi: vi[i]!, studyId: String(i + 1), label: `Trial ${i + 1}` }));

function analysis(method: "REML" | "DL" | "EE", test: "z" | "knha"): ExploredAnalysis {
  return { ...rma(effects, { measure: "RR", method, test }), outcome: "TB", effects };
}

describe("sensitivityAnalyses", () => {
  it("re-runs a REML analysis as fixed effects, with DL, and without the influential studies", () => {
    const a = analysis("REML", "knha");
    const runs = sensitivityAnalyses(a);
    expect(runs.map((r) => r.key)).toEqual(["main", "model", "estimator", "influential"]);
    expect(runs[0]).toMatchObject({ estimate: a.estimate, studies: 13 });
    const ee = rma(effects, { measure: "RR", method: "EE", test: "z" });
    expect(runs[1]).toMatchObject({ method: "EE", test: "z", estimate: ee.estimate, ci_lb: ee.ci_lb, tau2: 0 });
    const dl = rma(effects, { measure: "RR", method: "DL", test: "knha" });
    expect(runs[2]).toMatchObject({ method: "DL", test: "knha", estimate: dl.estimate, tau2: dl.tau2 });
    const flags = influence(yi, vi, null, { method: "REML", test: "knha" }).inf;
    const keep = effects.filter((_, i) => !flags[i]);
    expect(runs[3]!.studies).toBe(keep.length);
    expect(runs[3]!.left_out).toEqual(effects.filter((_, i) => flags[i]).map((e) => e.label));
    if (keep.length < effects.length)
      expect(runs[3]!.estimate).toBeCloseTo(rma(keep, { measure: "RR", method: "REML", test: "knha" }).estimate, 12);
  });

  it("re-runs a fixed-effect analysis as REML random effects and offers no other τ² estimator", () => {
    const runs = sensitivityAnalyses(analysis("EE", "z"));
    expect(runs.map((r) => [r.key, r.method])).toEqual([
      ["main", "EE"],
      ["model", "REML"],
      ["influential", "EE"],
    ]);
  });

  it("uses REML as the other estimator of a DL analysis, and says when no study is influential", () => {
    const two = effects.slice(0, 3).map((e) => ({ ...e, yi: -0.5, vi: 0.1 }));
    const a = { ...rma(two, { measure: "RR", method: "DL", test: "z" }), outcome: "TB", effects: two };
    const runs = sensitivityAnalyses(a);
    expect(runs[2]).toMatchObject({ key: "estimator", method: "REML" });
    expect(runs[3]).toMatchObject({
      key: "influential",
      estimate: null,
      note: expect.stringContaining("No study is influential"),
    });
  });
});

describe("subgroupNarrative", () => {
  it("states the test and its limits", () => {
    const r = subgroupAnalysis(
      yi,
      vi,
      yi.map((_, i) => (i < 6 ? "North" : "South")),
      { method: "REML", test: "z" },
    );
    const text = subgroupNarrative(r, "Region");
    expect(text).toMatch(/^The test for subgroup differences by region (suggests|found no evidence)/);
    expect(text).toContain(`df = 1`);
    expect(text).toContain("Subgroup comparisons are observational");
    const small = subgroupAnalysis(yi.slice(0, 4), vi.slice(0, 4), ["a", "a", "b", "b"], { method: "DL", test: "z" });
    expect(subgroupNarrative(small, "Dose")).toContain(
      "with as few as 2 studies in a subgroup the test has little power",
    );
  });
});
