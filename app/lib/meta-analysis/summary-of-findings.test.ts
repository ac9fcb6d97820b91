import { describe, expect, it } from "vitest";
import {
  certaintySymbols,
  correspondingRisk,
  formatSofRow,
  pooledControlRisk,
  sofTableCsv,
  summaryOfFindings,
  type SofInput,
} from "./summary-of-findings";
import type { EffectData, GradeAssessment } from "./types";

const counts = (e1: number, n1: number, e2: number, n2: number): EffectData => ({
  kind: "counts",
  events1: e1,
  n1,
  events2: e2,
  n2,
});

const grade: GradeAssessment = {
  certainty: "low",
  judgements: [
    { domain: "risk of bias", downgrade: -1, reason: "RoB 2, by meta-analysis weight: 60% some concerns." },
    { domain: "inconsistency", downgrade: 0, reason: "I² = 0.0%." },
    { domain: "indirectness", downgrade: 0, reason: "Not downgraded." },
    { domain: "imprecision", downgrade: -1, reason: "The 95% confidence interval includes no effect." },
    { domain: "publication bias", downgrade: 0, reason: "Not assessed." },
  ],
};

function input(over: Partial<SofInput> = {}): SofInput {
  return {
    measure: "RR",
    estimate: Math.log(0.75),
    ci_lb: Math.log(0.6),
    ci_ub: Math.log(0.9),
    grade,
    rows: [
      { totalN: 200, data: counts(15, 100, 20, 100) },
      { totalN: 300, data: counts(20, 150, 30, 150) },
    ],
    ...over,
  };
}

describe("summaryOfFindings", () => {
  it("risk ratio: ACR = pooled control risk; risk difference ACR × (RR − 1) per 1,000", () => {
    const sof = summaryOfFindings(input());
    expect(sof.relativeEffect.measure).toBe("RR");
    expect(sof.relativeEffect.estimate).toBeCloseTo(0.75, 12);
    expect(sof.relativeEffect.ci_lb).toBeCloseTo(0.6, 12);
    expect(sof.assumedRiskPer1000).toBeCloseTo(200, 10); // (20 + 30) / (100 + 150)
    expect(sof.correspondingRiskPer1000).toBeCloseTo(150, 10);
    expect(sof.riskDifferencePer1000!.estimate).toBeCloseTo(-50, 10);
    expect(sof.riskDifferencePer1000!.ci_lb).toBeCloseTo(-80, 10);
    expect(sof.riskDifferencePer1000!.ci_ub).toBeCloseTo(-20, 10);
    expect(sof.assumedRiskSource).toBe("pooled control groups");
    expect(sof.participants).toBe(500);
    expect(sof.studies).toBe(2);
    expect(sof.certainty).toBe("low");
    expect(sof.downgrades).toEqual([
      { domain: "risk of bias", levels: 1, reason: "RoB 2, by meta-analysis weight: 60% some concerns." },
      { domain: "imprecision", levels: 1, reason: "The 95% confidence interval includes no effect." },
    ]);
  });

  it("a reviewer's assumed control risk replaces the pooled one", () => {
    const sof = summaryOfFindings(input(), { assumedControlRisk: 0.1 });
    expect(sof.assumedRiskPer1000).toBeCloseTo(100, 10);
    expect(sof.riskDifferencePer1000!.estimate).toBeCloseTo(-25, 10);
    expect(sof.assumedRiskSource).toBe("reviewer");
  });

  it("odds ratio: corresponding risk ACR·OR / (1 − ACR + ACR·OR) (Cochrane Handbook 14.1.5)", () => {
    const sof = summaryOfFindings(
      input({ measure: "OR", estimate: Math.log(0.5), ci_lb: Math.log(0.25), ci_ub: Math.log(2) }),
      { assumedControlRisk: 0.2 },
    );
    expect(sof.correspondingRiskPer1000).toBeCloseTo((1000 * 0.1) / 0.9, 10);
    expect(sof.riskDifferencePer1000!.estimate).toBeCloseTo((1000 * 0.1) / 0.9 - 200, 10);
    expect(sof.riskDifferencePer1000!.ci_lb).toBeCloseTo((1000 * 0.05) / 0.85 - 200, 10);
    expect(sof.riskDifferencePer1000!.ci_ub).toBeCloseTo((1000 * 0.4) / 1.2 - 200, 10);
  });

  it("hazard ratio: 1 − (1 − ACR)^HR; risk difference: ACR + RD", () => {
    expect(correspondingRisk("HR", 0.3, 0.5)).toBeCloseTo(1 - Math.sqrt(0.7), 12);
    const hr = summaryOfFindings(
      input({ reportedMeasure: "HR", estimate: Math.log(0.5), ci_lb: Math.log(0.4), ci_ub: Math.log(0.7) }),
      { assumedControlRisk: 0.3 },
    );
    expect(hr.relativeEffect.measure).toBe("HR");
    expect(hr.correspondingRiskPer1000).toBeCloseTo(1000 * (1 - Math.sqrt(0.7)), 10);
    const rd = summaryOfFindings(input({ measure: "RD", estimate: -0.05, ci_lb: -0.08, ci_ub: -0.02 }));
    expect(rd.relativeEffect).toEqual({ measure: "RD", estimate: -0.05, ci_lb: -0.08, ci_ub: -0.02 });
    expect(rd.riskDifferencePer1000!.estimate).toBeCloseTo(-50, 10);
    expect(rd.correspondingRiskPer1000).toBeCloseTo(150, 10);
  });

  it("continuous outcomes: the mean difference, no per-1,000 figures; IRR likewise none", () => {
    const md = summaryOfFindings(
      input({
        measure: "MD",
        estimate: -2.5,
        ci_lb: -4,
        ci_ub: -1,
        rows: [{ totalN: 80, data: { kind: "means", mean1: 1, sd1: 1, n1: 40, mean2: 3, sd2: 1, n2: 40 } }],
      }),
      { assumedControlRisk: 0.2 },
    );
    expect(md.relativeEffect).toEqual({ measure: "MD", estimate: -2.5, ci_lb: -4, ci_ub: -1 });
    expect(md.assumedRiskPer1000).toBeNull();
    expect(md.correspondingRiskPer1000).toBeNull();
    expect(md.riskDifferencePer1000).toBeNull();
    const irr = summaryOfFindings(input({ reportedMeasure: "IRR" }));
    expect(irr.riskDifferencePer1000).toBeNull();
  });

  it("without arm counts and without an ACR, no absolute effect; unknown sample sizes give null participants", () => {
    const sof = summaryOfFindings(
      input({ rows: [{ totalN: null, data: { kind: "estimate-ci", estimate: 0.8, lower: 0.6, upper: 1.1 } }] }),
    );
    expect(pooledControlRisk(input({ rows: [] }).rows)).toBeNull();
    expect(sof.assumedRiskPer1000).toBeNull();
    expect(sof.riskDifferencePer1000).toBeNull();
    expect(sof.participants).toBeNull();
    expect(sof.assumedRiskSource).toBeNull();
  });
});

describe("Summary of Findings table", () => {
  it("GRADEpro's symbols", () => {
    expect(certaintySymbols("high")).toBe("⊕⊕⊕⊕ High");
    expect(certaintySymbols("moderate")).toBe("⊕⊕⊕◯ Moderate");
    expect(certaintySymbols("low")).toBe("⊕⊕◯◯ Low");
    expect(certaintySymbols("very_low")).toBe("⊕◯◯◯ Very low");
  });

  it("rounds risks to whole numbers per 1,000 and writes fewer/more", () => {
    const row = formatSofRow("Mortality", summaryOfFindings(input()));
    expect(row).toEqual({
      outcome: "Mortality",
      participants: "500 (2 studies)",
      certainty: "⊕⊕◯◯ Low",
      footnotes: [
        "Rated down one level for risk of bias: RoB 2, by meta-analysis weight: 60% some concerns.",
        "Rated down one level for imprecision: The 95% confidence interval includes no effect.",
      ],
      relativeEffect: "RR 0.75 (0.60 to 0.90)",
      riskWithComparator: "200 per 1,000",
      riskDifference: "50 fewer per 1,000 (from 80 fewer to 20 fewer)",
    });
    const md = formatSofRow("Pain", summaryOfFindings(input({ measure: "MD", estimate: -2.5, ci_lb: -4, ci_ub: -1 })));
    expect(md.relativeEffect).toBe("—");
    expect(md.riskDifference).toBe("MD -2.50 (-4.00 to -1.00)");
  });

  it("CSV quotes fields with commas and joins footnotes", () => {
    const csv = sofTableCsv([formatSofRow("Mortality, 28 days", summaryOfFindings(input()))]);
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toBe(
      "Outcome,No of participants (studies),Certainty of the evidence (GRADE),Relative effect (95% CI),Risk with comparator,Risk difference with intervention (95% CI),Footnotes",
    );
    expect(lines[1]).toMatch(
      /^"Mortality, 28 days",500 \(2 studies\),⊕⊕◯◯ Low,RR 0\.75 \(0\.60 to 0\.90\),"200 per 1,000","50 fewer per 1,000 \(from 80 fewer to 20 fewer\)","Rated down .* \| Rated down/,
    );
  });
});
