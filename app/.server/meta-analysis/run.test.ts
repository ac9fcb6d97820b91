import { describe, expect, it } from "vitest";
import type { EffectData, ExtractedStudyData } from "~/lib/meta-analysis/types";
import { CombinedSummarySchema } from "~/lib/combined-summary";
import { groupRows } from "./group";
import { numbersInValue } from "./narrative";
import { runMetaAnalysis } from "./run";

function row(studyId: string, data: EffectData, extra: Partial<ExtractedStudyData> = {}): ExtractedStudyData {
  return {
    studyId,
    title: `Trial ${studyId}`,
    outcome: "mortality",
    measure: "RR",
    data,
    quotes: [],
    extractedBy: "user",
    design: "RCT",
    totalN: data.kind === "counts" ? data.n1 + data.n2 : null,
    ...extra,
  };
}

const counts = (events1: number, n1: number, events2: number, n2: number): EffectData => ({
  kind: "counts",
  events1,
  n1,
  events2,
  n2,
});

const THREE = [
  row("a", counts(12, 100, 20, 98)),
  row("b", counts(57, 411, 73, 411)),
  row("c", counts(30, 200, 35, 190)),
];

function run(extracted: ExtractedStudyData[], options = {}) {
  return runMetaAnalysis({ studyCount: extracted.length, extracted, excluded: [], model: "test" }, options);
}

/** No NaN or Infinity anywhere in what the API would send. */
function expectJsonSafe(value: unknown) {
  const walk = (v: unknown, path: string) => {
    if (typeof v === "number") expect(Number.isFinite(v), path).toBe(true);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
  };
  walk(value, "result");
}

describe("runMetaAnalysis", () => {
  it("pools 2×2 counts as metafor does (RR, REML, Hartung–Knapp by default)", () => {
    // R: d <- escalc("RR", ai=c(12,57,30), n1i=c(100,411,200), ci=c(20,73,35), n2i=c(98,411,190));
    //    rma(yi, vi, data=d, method="REML", test="knha")
    const result = run(THREE);
    expect(result.analyses).toHaveLength(1);
    const a = result.analyses[0]!;
    expect(a).toMatchObject({
      outcome: "mortality",
      measure: "RR",
      method: "REML",
      test: "knha",
      k: 3,
      studyIds: ["a", "b", "c"],
    });
    expect(a.estimate).toBeCloseTo(-0.27303629, 6);
    expect(a.se).toBeCloseTo(0.07284725, 6);
    expect(a.ci_lb).toBeCloseTo(-0.58647269, 6);
    expect(a.ci_ub).toBeCloseTo(0.04040012, 6);
    expect(a.tau2).toBeCloseTo(0, 8);
    expect(a.QE).toBeCloseTo(0.70172356, 6);
    expect(a.QEp).toBeCloseTo(0.70408107, 6);
    expect(a.ratio!.estimate).toBeCloseTo(0.7610652, 6);
    expect(a.ratio!.ci_lb).toBeCloseTo(0.556286, 6);
    expect(a.ratio!.ci_ub).toBeCloseTo(1.0412273, 6);
    expect(a.egger).not.toBeNull();
    expect(a.begg).not.toBeNull();
    expect(a.leaveOneOut).toHaveLength(3);
    expect(a.effects.map((e) => e.label)).toEqual(["Trial a", "Trial b", "Trial c"]);
    expectJsonSafe(result);
  });

  it("uses the requested measure for arm-level data and the z-test when asked", () => {
    const a = run(THREE, { measure: "OR", method: "DL", test: "z" }).analyses[0]!;
    expect(a).toMatchObject({ measure: "OR", method: "DL", test: "z" });
  });

  it("keeps hazard ratios apart from risk ratios, pooled as log ratios", () => {
    const hr = (id: string, estimate: number, lower: number, upper: number) =>
      row(id, { kind: "estimate-ci", estimate, lower, upper }, { reportedMeasure: "HR" });
    const result = run([...THREE, hr("h1", 0.74, 0.52, 1.05), hr("h2", 0.66, 0.48, 0.92)]);
    expect(result.analyses.map((a) => [a.outcome, a.reportedMeasure ?? a.measure, a.k])).toEqual([
      ["mortality", "RR", 3],
      ["mortality", "HR", 2],
    ]);
    const h = result.analyses[1]!;
    // yi = log(HR), vi from the CI: the pooled ratio lies between the two HRs.
    expect(h.ratio!.estimate).toBeGreaterThan(0.66);
    expect(h.ratio!.estimate).toBeLessThan(0.74);
    expect(h.egger).toBeNull();
    expect(h.notes!.join(" ")).toMatch(/need at least 3 studies \(k = 2\)/);
  });

  it("outcomes with one study are reported, not pooled", () => {
    const result = run([...THREE, row("d", counts(5, 50, 9, 50), { outcome: "stroke" })]);
    expect(result.unpooled).toEqual([
      {
        outcome: "stroke",
        measure: "RR",
        studyIds: ["d"],
        reason: "Only one study reports stroke as a risk ratio; at least 2 are needed to pool.",
      },
    ]);
  });

  it("degenerate rows are left out with clear reasons; nothing is NaN", () => {
    const result = run([
      ...THREE,
      row("zero", counts(0, 50, 0, 52)),
      row(
        "neg-sd",
        { kind: "means", mean1: 1, sd1: -2, n1: 20, mean2: 2, sd2: 1, n2: 20 },
        { measure: "MD", outcome: "pain" },
      ),
      row(
        "p1",
        { kind: "means", mean1: 1, sd1: 2, n1: 20, mean2: 2, sd2: 1, n2: 20 },
        { measure: "MD", outcome: "pain" },
      ),
      row("zero-var", { kind: "estimate-ci", estimate: 0.8, lower: 0.8, upper: 0.8 }, { outcome: "stroke" }),
      row(
        "bad-ci",
        { kind: "estimate-ci", estimate: -2.21, lower: 1.54, upper: 2.88 },
        { measure: "MD", outcome: "pulse rate" },
      ),
      row(
        "pr2",
        { kind: "estimate-ci", estimate: 1.1, lower: 0.2, upper: 2.0 },
        { measure: "MD", outcome: "pulse rate" },
      ),
    ]);
    const mortality = result.analyses.find((a) => a.outcome === "mortality")!;
    expect(mortality.k).toBe(3);
    expect(mortality.notes!.join(" ")).toContain('"Trial zero" left out: no events in either arm');
    const unpooled = Object.fromEntries(result.unpooled!.map((u) => [u.outcome, u.reason]));
    expect(unpooled.pain).toContain('"Trial neg-sd" left out: a standard deviation is negative');
    expect(unpooled["pulse rate"]).toContain("does not contain the estimate -2.21");
    expect(unpooled.stroke).toBe("Only one study reports stroke as a risk ratio; at least 2 are needed to pool.");
    expectJsonSafe(result);
    expect(JSON.stringify(result)).not.toMatch(/NaN|Infinity/);
  });

  it("identical studies: zero heterogeneity, Hartung–Knapp falls back to z with a note, no NaN", () => {
    const result = run([
      row("x", counts(10, 100, 20, 100)),
      row("y", counts(10, 100, 20, 100)),
      row("z", counts(10, 100, 20, 100)),
    ]);
    const a = result.analyses[0]!;
    expect(a.tau2).toBe(0);
    expect(a.I2).toBe(0);
    expect(a.egger).toBeNull();
    expect(a.notes!.join(" ")).toMatch(/same effect size/);
    expectJsonSafe(result);
  });

  it("a single study: nothing pooled, the narrative says why", () => {
    const result = run([row("only", counts(10, 100, 20, 100))]);
    expect(result.analyses).toEqual([]);
    expect(result.unpooled).toHaveLength(1);
    const narrative = CombinedSummarySchema.parse(result.narrative);
    expect(narrative.executiveSummary).toMatch(/nothing was pooled/);
  });

  it("PRISMA counts from the request and the extraction", () => {
    const result = runMetaAnalysis(
      {
        studyCount: 5,
        extracted: THREE,
        excluded: [
          { studyId: "e1", title: "E1", reason: "No effect estimate" },
          { studyId: "e2", title: "E2", reason: "No effect estimate" },
        ],
        prisma: { identified: { pubmed: 120, crossref: 40 }, duplicatesRemoved: 10, screened: 150 },
        model: "test",
      },
      {},
    );
    expect(result.prisma).toEqual({
      identified: { pubmed: 120, crossref: 40 },
      duplicatesRemoved: 10,
      screened: 150,
      excluded: 145,
      reportsAssessed: 5,
      reportsExcluded: [{ reason: "No effect estimate", count: 2 }],
      included: 3,
    });
    expect(run(THREE).prisma).toBeNull();
  });

  it("the template narrative is a valid combined summary whose numbers all come from the result", () => {
    const result = run(THREE);
    const narrative = CombinedSummarySchema.parse(result.narrative);
    expect(narrative.quantitativeFindings.pooledEffectSize).toContain("RR 0.76 (95% CI 0.56 to 1.04)");
    expect(narrative.strengthOfEvidence).toBe(
      result.analyses[0]!.grade.certainty === "high"
        ? "high"
        : result.analyses[0]!.grade.certainty === "moderate"
          ? "moderate"
          : "low",
    );
    // Every number printed is one of the computed values (rounded) or a count of the input.
    const a = result.analyses[0]!;
    const allowed = new Set(
      [
        ...[a.ratio!.estimate, a.ratio!.ci_lb, a.ratio!.ci_ub, a.ratio!.pi_lb, a.ratio!.pi_ub].map((x) => x.toFixed(2)),
        a.I2.toFixed(1),
        a.tau2.toFixed(4),
        a.QE.toFixed(2),
        a.QEp.toFixed(3),
        a.pval.toFixed(3),
        a.egger!.pval.toFixed(3),
        a.begg!.pval.toFixed(3),
        String(a.trimfill!.k0),
        ...a.leaveOneOut.map((r) => Math.exp(r.estimate).toFixed(2)),
        "3",
        "2",
        "0",
        "1",
        "95",
        "10",
        "300",
        "400",
        String(THREE.reduce((s, r) => s + r.totalN!, 0)),
        String(THREE.reduce((s, r) => s + (r.data.kind === "counts" ? r.data.events1 + r.data.events2 : 0), 0)),
      ].map((x) => String(Number(x))),
    );
    const foreign = numbersInValue(narrative).filter((n) => !allowed.has(String(n)));
    expect(foreign).toEqual([]);
  });
});

describe("groupRows", () => {
  it("groups by normalised outcome and keeps one row per study", () => {
    const { groups, single } = groupRows([
      row("a", counts(1, 10, 2, 10), { outcome: "The Mortality" }),
      row("a", counts(1, 10, 3, 10), { outcome: "mortality" }),
      row("b", counts(1, 10, 2, 10), { outcome: "mortality." }),
    ]);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.rows.map((r) => r.studyId)).toEqual(["a", "b"]);
    expect(groups[0]!.notes[0]).toMatch(/more than one risk ratio/);
    expect(single).toEqual([]);
  });

  it("each pooled analysis gains its Summary of Findings row; the reviewer's GRADE inputs reach the rating", () => {
    const a = run(THREE).analyses[0]!;
    const sof = a.summaryOfFindings!;
    const acr = (20 + 73 + 35) / (98 + 411 + 190);
    expect(sof.relativeEffect.measure).toBe("RR");
    expect(sof.relativeEffect.estimate).toBeCloseTo(Math.exp(-0.27303629), 6);
    expect(sof.assumedRiskPer1000).toBeCloseTo(1000 * acr, 10);
    expect(sof.riskDifferencePer1000!.estimate).toBeCloseTo(1000 * acr * (Math.exp(a.estimate) - 1), 10);
    expect(sof.riskDifferencePer1000!.ci_lb).toBeCloseTo(1000 * acr * (Math.exp(a.ci_lb) - 1), 10);
    expect(sof.certainty).toBe(a.grade.certainty.replace(" ", "_"));
    expect(sof.participants).toBe(198 + 822 + 390);

    const reviewed = run(THREE, {
      summaryOfFindings: { assumedControlRisk: 0.1 },
      grade: {
        riskOfBias: { a: "high", b: "high", c: "high" },
        indirectness: { mortality: { levels: 1, reason: "Surrogate population." } },
      },
    }).analyses[0]!;
    expect(reviewed.summaryOfFindings!.assumedRiskPer1000).toBeCloseTo(100, 10);
    expect(reviewed.grade.judgements.find((j) => j.domain === "risk of bias")!.downgrade).toBe(-2);
    expect(reviewed.summaryOfFindings!.downgrades.map((d) => [d.domain, d.levels])).toEqual(
      expect.arrayContaining([
        ["risk of bias", 2],
        ["indirectness", 1],
      ]),
    );
    expectJsonSafe(reviewed);

    const threshold = run(THREE, { grade: { decisionThresholds: { mortality: 0.9 } } }).analyses[0]!;
    expect(threshold.grade.judgements.find((j) => j.domain === "imprecision")!.reason).toContain(
      "decision threshold (RR 0.90)",
    );
    const ignored = run(THREE, { grade: { decisionThresholds: { mortality: -1 } } }).analyses[0]!;
    expect(ignored.notes).toContain("The decision threshold -1 was ignored: a RR threshold must be a positive ratio.");
  });

  it("sensitivity analysis by risk of bias: without high and low only, same estimator and test (metafor rma subset)", () => {
    const four = [...THREE, row("d", counts(8, 80, 15, 82))];
    const a = run(four, {
      grade: { riskOfBiasByOutcome: { mortality: { a: "low", b: "some_concerns", c: "high", d: "low" } } },
    }).analyses[0]!;
    expect(a.riskOfBias).toEqual(["low", "some_concerns", "high", "low"]);
    const [all, withoutHigh, lowOnly] = a.riskOfBiasSensitivity!;
    // metafor 4: rma(yi, vi, method = "REML", test = "knha", subset = …)
    expect(all!.estimate).toBeCloseTo(-0.30051897, 6);
    expect(withoutHigh!.studyIds).toEqual(["a", "b", "d"]);
    expect(withoutHigh!.estimate).toBeCloseTo(-0.33542623, 6);
    expect(withoutHigh!.ci_lb).toBeCloseTo(-0.76748682, 5);
    expect(withoutHigh!.ci_ub).toBeCloseTo(0.09663436, 5);
    expect(withoutHigh!.pval).toBeCloseTo(0.07913164, 5);
    expect(lowOnly!.studyIds).toEqual(["a", "d"]);
    expect(lowOnly!.estimate).toBeCloseTo(-0.56046678, 6);
    expect(lowOnly!.ci_lb).toBeCloseTo(-1.01489421, 5);
    expect(lowOnly!.pval).toBeCloseTo(0.04056864, 5);
    expectJsonSafe(a);

    const fewLow = run(THREE, { grade: { riskOfBiasByOutcome: { mortality: { a: "low", b: "high" } } } }).analyses[0]!;
    expect(fewLow.riskOfBias).toEqual(["low", "high", null]);
    expect(fewLow.riskOfBiasSensitivity![1]!.studyIds).toEqual(["a", "c"]);
    expect(fewLow.riskOfBiasSensitivity![2]).toMatchObject({
      k: 1,
      estimate: null,
      note: "Only 1 study remains; at least 2 are needed to pool.",
    });
    expect(fewLow.riskOfBiasDomains).toBeUndefined();
    const sets = {
      a: { D1: "low", D2: "low", D3: "low", D4: "low", D5: "some_concerns", overall: "some_concerns" },
      c: "high",
    } as const;
    const withDomains = run(THREE, { grade: { riskOfBiasByOutcome: { mortality: sets } } }).analyses[0]!;
    expect(withDomains.riskOfBias).toEqual(["some_concerns", null, "high"]);
    expect(withDomains.riskOfBiasDomains).toEqual([sets.a, null, null]);
    expect(run(THREE).analyses[0]!.riskOfBiasSensitivity).toBeUndefined();
    expect(
      run(THREE, { grade: { riskOfBiasByOutcome: { other: { a: "high" } } } }).analyses[0]!.riskOfBiasSensitivity,
    ).toBeUndefined();
  });
});

describe("the reviewer's GRADE ratings", () => {
  it("replaces a computed rating with the reviewer's (both kept), rates up, and reaches the Summary of Findings", () => {
    const computed = run(THREE).analyses[0]!;
    const imprecision = computed.grade.judgements.find((j) => j.domain === "imprecision")!;
    const a = run(THREE, {
      summaryOfFindings: { assumedControlRisk: 0.2, assumedControlRiskByOutcome: { mortality: 0.05 } },
      grade: {
        reviewerRatings: {
          mortality: {
            overrides: {
              indirectness: { downgrade: -1, justification: "Only older adults were enrolled." },
              imprecision: { downgrade: 0, justification: "The CI excludes any important harm." },
            },
            rateUp: [{ reason: "large effect", levels: 1, justification: "RR below 0.5 in every trial." }],
          },
        },
      },
    }).analyses[0]!;
    const ind = a.grade.judgements.find((j) => j.domain === "indirectness")!;
    expect(ind).toMatchObject({
      downgrade: -1,
      reason: "Reviewer's judgement: Only older adults were enrolled.",
      computed: { downgrade: 0 },
    });
    expect(a.grade.judgements.find((j) => j.domain === "imprecision")!.computed).toEqual({
      downgrade: imprecision.downgrade,
      reason: imprecision.reason,
    });
    const levels = ["very low", "low", "moderate", "high"];
    const sum = a.grade.judgements.reduce((s, j) => s + j.downgrade, 0) + 1;
    expect(a.grade.certainty).toBe(levels[Math.max(0, Math.min(3, 3 + sum))]);
    expect(a.grade.ratedUp).toEqual([
      { reason: "large effect", levels: 1, justification: "RR below 0.5 in every trial." },
    ]);
    expect(a.summaryOfFindings!.assumedRiskPer1000).toBeCloseTo(50, 10);
    expect(a.summaryOfFindings!.assumedRiskSource).toBe("reviewer");
    expect(a.summaryOfFindings!.ratedUp).toHaveLength(1);
    expect(a.summaryOfFindings!.downgrades).toContainEqual({
      domain: "indirectness",
      levels: 1,
      reason: "Reviewer's judgement: Only older adults were enrolled.",
    });
    expect(run(THREE, { grade: { reviewerRatings: { other: { rateUp: [] } } } }).analyses[0]!.grade).toEqual(
      computed.grade,
    );
  });
});
