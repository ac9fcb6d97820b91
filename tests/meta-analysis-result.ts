/**
 * A hand-built meta-analysis job result for the page, plot and report tests: five two-arm trials
 * of one outcome pooled as log risk ratios. The pooled numbers are plausible but were not computed
 * by the engine (these tests check rendering, not statistics).
 */
import type { ExtractedStudyData, MetaAnalysisJobResult, OutcomeAnalysis } from "~/lib/meta-analysis/types";

const trials: [string, number, number, number, number][] = [
  ["Aronson 1948", 4, 123, 11, 139],
  ["Ferguson 1949", 6, 306, 29, 303],
  ["Rosenthal 1960", 3, 231, 11, 220],
  ["Hart 1977", 62, 13598, 248, 12867],
  ["Frimodt-Moller 1973", 33, 5069, 47, 5808],
];

/** escalc(measure="RR") for a 2×2 table without zero cells: log RR and its variance. */
function logRR(a: number, n1: number, c: number, n2: number): { yi: number; vi: number } {
  return { yi: Math.log(a / n1 / (c / n2)), vi: 1 / a - 1 / n1 + 1 / c - 1 / n2 };
}

export const extracted: ExtractedStudyData[] = trials.map(([title, e1, n1, e2, n2], i) => ({
  studyId: String(i + 1),
  title,
  outcome: "tuberculosis",
  measure: "RR",
  data: { kind: "counts", events1: e1, n1, events2: e2, n2 },
  quotes: [
    {
      quote: `Tuberculosis occurred in ${e1} of ${n1} vaccinated and ${e2} of ${n2} control participants.`,
      start: 0,
      end: 80,
      source: "abstract",
    },
  ],
  extractedBy: "offline-rules",
  design: "RCT",
  totalN: n1 + n2,
}));

const effects = trials.map(([label, e1, n1, e2, n2], i) => ({
  studyId: String(i + 1),
  label,
  ...logRR(e1, n1, e2, n2),
}));

export const analysis: OutcomeAnalysis = {
  outcome: "tuberculosis",
  studyIds: effects.map((e) => e.studyId),
  effects,
  measure: "RR",
  family: "IV",
  method: "REML",
  test: "knha",
  k: 5,
  estimate: -0.83,
  se: 0.21,
  statistic: -3.95,
  pval: 0.0168,
  ci_lb: -1.41,
  ci_ub: -0.25,
  pi_lb: -1.9,
  pi_ub: 0.24,
  tau2: 0.12,
  tau2_se: 0.15,
  tau2_ci: [0, 1.9],
  I2: 61.2,
  H2: 2.58,
  QE: 10.3,
  QEp: 0.0356,
  weights: [10.5, 17.9, 9.2, 33.1, 29.3],
  ratio: {
    estimate: Math.exp(-0.83),
    ci_lb: Math.exp(-1.41),
    ci_ub: Math.exp(-0.25),
    pi_lb: Math.exp(-1.9),
    pi_ub: Math.exp(0.24),
  },
  egger: { statistic: -1.9, df: 3, pval: 0.153, intercept: -0.45, slope: -2.1 },
  begg: { tau: -0.4, pval: 0.483 },
  trimfill: {
    estimator: "L0",
    k0: 1,
    side: "right",
    filled: [{ yi: 0.1, vi: 0.2 }],
    adjusted: {
      measure: "RR",
      family: "IV",
      method: "REML",
      test: "knha",
      k: 6,
      estimate: -0.7,
      se: 0.25,
      statistic: -2.8,
      pval: 0.04,
      ci_lb: -1.34,
      ci_ub: -0.06,
      pi_lb: -2.0,
      pi_ub: 0.6,
      tau2: 0.2,
      tau2_se: null,
      tau2_ci: null,
      I2: 70,
      H2: 3.3,
      QE: 15,
      QEp: 0.01,
      weights: [],
      ratio: null,
    },
  },
  leaveOneOut: effects.map((e, i) => ({
    omitted: e.label,
    estimate: -0.8 + i * 0.02,
    ci_lb: -1.5,
    ci_ub: -0.1,
    tau2: 0.1,
    I2: 55,
  })),
  grade: {
    certainty: "low",
    judgements: [
      { domain: "risk of bias", downgrade: 0, reason: "All 5 studies are randomised trials." },
      { domain: "inconsistency", downgrade: -1, reason: "I² = 61% and the prediction interval crosses no effect." },
      { domain: "indirectness", downgrade: 0, reason: "Not assessed from the data; no downgrade." },
      { domain: "imprecision", downgrade: -1, reason: "The CI is wide relative to the effect." },
      { domain: "publication bias", downgrade: 0, reason: "Egger's test p = 0.153." },
    ],
  },
};

export const jobResult: MetaAnalysisJobResult = {
  extracted,
  excluded: [
    { studyId: "9", title: "A narrative review", reason: "No effect estimate with a confidence interval found" },
  ],
  analyses: [analysis],
  prisma: {
    identified: { pubmed: 120, europepmc: 80 },
    duplicatesRemoved: 15,
    screened: 185,
    excluded: 179,
    reportsAssessed: 6,
    reportsExcluded: [{ reason: "No usable effect data", count: 1 }],
    included: 5,
  },
  narrative: {
    executiveSummary: "Across 5 trials, vaccination lowered the risk of tuberculosis (RR 0.44, 95% CI 0.24 to 0.78).",
    quantitativeFindings: { pooledEffectSize: "RR 0.44 [0.24, 0.78]", statisticalHeterogeneity: "I² = 61.2%" },
    strengthOfEvidence: "low",
  },
  model: "offline-rules",
};
