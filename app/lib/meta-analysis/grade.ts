/**
 * GRADE certainty of evidence for one pooled outcome, from the computed numbers and, when the
 * reviewer gives them, RoB 2 judgements, an indirectness call and a decision threshold (GRADE
 * Handbook, Schünemann et al. 2013; Cochrane Handbook v6.4 ch. 14). Each domain carries its reason.
 *
 * - Start: high when at least half of the pooled studies are randomised trials, else low
 *   (observational evidence starts low).
 * - Risk of bias, from RoB 2 overall judgements when studies carrying at least half of the weight
 *   are assessed: the weight-averaged score (low 0, some concerns 1, high 2, over the assessed
 *   studies' meta-analysis weights, as CINeMA does: Nikolakopoulou et al., PLoS Med
 *   2020;17:e1003082) below 0.5 → 0, below 1.5 → −1, else −2. Otherwise from designs only
 *   (abstracts do not report allocation concealment or blinding): −1 when a high start mixes in
 *   observational studies, when over half of the designs are unknown, or when inputs are
 *   themselves pooled estimates from reviews.
 * - Inconsistency: I² ≥ 75% → −2 ("considerable", Cochrane Handbook 10.10.2); I² ≥ 50%, a
 *   prediction interval that crosses the null while the CI does not, or two studies whose 95% CIs
 *   do not overlap with estimates on opposite sides of the null → −1. τ² is given in the reason.
 * - Imprecision: the 95% CI crosses the null or the reviewer's decision threshold, or the total
 *   sample is below the optimal information size rule of thumb (Guyatt et al., J Clin Epidemiol
 *   2011;64:1283: 400 participants for continuous outcomes; 300 events for dichotomous ones,
 *   approximated by 400 participants when event counts are not known) → −1; both → −2.
 * - Publication bias: Egger's test p < 0.10 → −1, judged only with k ≥ 10 studies (fewer gives
 *   the test too little power, Cochrane Handbook 13.3.5.4).
 * - Indirectness: the reviewer's call (0, −1 or −2 with a reason); without one, not downgraded
 *   (the reason says it cannot be judged from numbers).
 * Certainty = start + downgrades, floored at very low.
 */
import type {
  EggerTest,
  ExtractedStudyData,
  GradeAssessment,
  GradeJudgement,
  GradeLevel,
  GradeRateUpReason,
  Measure,
} from "~/lib/meta-analysis/types";
import type { RobJudgement } from "~/lib/risk-of-bias/rob2";
import { agree } from "~/lib/wording";

/** The numbers GRADE looks at for one analysis (analysis scale: log for ratios). */
export interface GradeInput {
  measure: Measure;
  k: number;
  ci_lb: number;
  ci_ub: number;
  pi_lb: number;
  pi_ub: number;
  I2: number;
  egger: EggerTest | null;
  rows: Pick<ExtractedStudyData, "design" | "totalN" | "data">[];
  /** τ² of the random-effects model (analysis scale), for the inconsistency reason. */
  tau2?: number;
  /** Per-study effect sizes aligned with `rows` (analysis scale), for non-overlapping CIs. */
  effects?: readonly { yi: number; vi: number }[];
  /** Per-study weights in percent aligned with `rows` (the pooled model's). */
  weights?: readonly number[];
  /** Per-study RoB 2 overall judgements aligned with `rows` (null = not assessed). */
  riskOfBias?: readonly (RobJudgement | null)[];
  /** The reviewer's indirectness call. */
  indirectness?: { levels: 0 | 1 | 2; reason: string };
  /** A decision threshold on the analysis scale (log for ratios): a CI containing it is imprecise. */
  decisionThreshold?: number;
}

const LEVELS: GradeLevel[] = ["very low", "low", "moderate", "high"];
const OBSERVATIONAL = new Set(["cohort", "case-control", "cross-sectional"]);
const REVIEWS = new Set(["meta-analysis", "systematic review"]);
/** Optimal information size rule of thumb (participants). */
export const OIS_PARTICIPANTS = 400;
/** Optimal information size rule of thumb for dichotomous outcomes (events). */
export const OIS_EVENTS = 300;

const fmt = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "not estimable");

/** Assesses GRADE certainty for one analysis; see the module comment for the rules. */
export function gradeAnalysis(input: GradeInput): GradeAssessment {
  const k = input.rows.length;
  const designs = input.rows.map((r) => r.design);
  const rct = designs.filter((d) => d === "RCT").length;
  const obs = designs.filter((d) => d !== null && OBSERVATIONAL.has(d)).length;
  const reviews = designs.filter((d) => d !== null && REVIEWS.has(d)).length;
  const unknown = designs.filter((d) => d === null).length;
  const startHigh = rct * 2 >= k && rct > 0;
  const judgements: GradeJudgement[] = [];

  // Risk of bias
  const rob = robFromAssessments(input);
  if (rob) {
    judgements.push(rob);
  } else if (startHigh && obs > 0) {
    judgements.push({
      domain: "risk of bias",
      downgrade: -1,
      reason: `${obs} of ${k} studies ${agree(obs, "is", "are")} observational (${designList(designs)}); starting from randomised evidence, this is serious risk of bias.`,
    });
  } else if (unknown * 2 > k) {
    judgements.push({
      domain: "risk of bias",
      downgrade: -1,
      reason: `The design of ${unknown} of ${k} studies is not stated in the text, so risk of bias cannot be assessed.`,
    });
  } else if (reviews > 0) {
    judgements.push({
      domain: "risk of bias",
      downgrade: -1,
      reason: `${reviews} of ${k} inputs are pooled estimates from reviews whose included designs are not known here.`,
    });
  } else {
    judgements.push({
      domain: "risk of bias",
      downgrade: 0,
      reason: startHigh
        ? `${rct} of ${k} studies ${rct === 1 ? "is a randomised trial" : "are randomised trials"}; allocation, blinding and attrition cannot be checked from abstracts, so no downgrade.`
        : `${rct > 0 ? `Only ${rct} of ${k} studies ${rct === 1 ? "is" : "are"} randomised` : "The studies are observational"} (${designList(designs)}), so certainty starts at low; no further downgrade for design.`,
    });
  }

  // Inconsistency
  const ciCrosses = input.ci_lb <= 0 && input.ci_ub >= 0;
  const piCrosses = input.pi_lb <= 0 && input.pi_ub >= 0;
  const i2Text = `I² = ${fmt(input.I2)}%${input.tau2 !== undefined ? `, τ² = ${fmt(input.tau2, 3)}` : ""}`;
  const apart = input.effects ? nonOverlappingOpposite(input.effects) : false;
  const apartText =
    "two studies' 95% confidence intervals do not overlap, with estimates on opposite sides of no effect";
  if (input.I2 >= 75) {
    judgements.push({
      domain: "inconsistency",
      downgrade: -2,
      reason: `${i2Text}: considerable heterogeneity (75% or more)${apart ? `; ${apartText}` : ""}.`,
    });
  } else if (input.I2 >= 50) {
    judgements.push({
      domain: "inconsistency",
      downgrade: -1,
      reason: `${i2Text}: substantial heterogeneity (50% or more)${apart ? `; ${apartText}` : ""}.`,
    });
  } else if (piCrosses && !ciCrosses) {
    judgements.push({
      domain: "inconsistency",
      downgrade: -1,
      reason: `${i2Text}, but the prediction interval includes no effect while the confidence interval does not: a new study could find the opposite.`,
    });
  } else if (apart) {
    judgements.push({ domain: "inconsistency", downgrade: -1, reason: `${i2Text}, but ${apartText}.` });
  } else {
    judgements.push({
      domain: "inconsistency",
      downgrade: 0,
      reason: `${i2Text}${piCrosses ? "; the prediction interval, like the confidence interval, includes no effect" : "; the prediction interval excludes no effect"}.`,
    });
  }

  // Indirectness
  if (input.indirectness) {
    const { levels, reason } = input.indirectness;
    judgements.push({
      domain: "indirectness",
      downgrade: levels === 0 ? 0 : levels === 1 ? -1 : -2,
      reason: `${levels === 0 ? "Not downgraded" : levels === 1 ? "Serious indirectness" : "Very serious indirectness"} (reviewer's judgement): ${reason.trim()}`,
    });
  } else {
    judgements.push({
      domain: "indirectness",
      downgrade: 0,
      reason:
        "Not downgraded: whether populations, interventions and outcomes match the review question cannot be judged from the numbers; check each study's PICO.",
    });
  }

  // Imprecision
  const totalN = input.rows.reduce((sum, r) => sum + (r.totalN ?? 0), 0);
  const knownN = input.rows.filter((r) => r.totalN !== null).length;
  const countRows = input.rows.filter((r) => r.data.kind === "counts");
  const events =
    countRows.length === k
      ? countRows.reduce((sum, r) => sum + (r.data.kind === "counts" ? r.data.events1 + r.data.events2 : 0), 0)
      : null;
  const belowOis = events !== null ? events < OIS_EVENTS : knownN === k ? totalN < OIS_PARTICIPANTS : false;
  const sizeText =
    events !== null
      ? `${events} events in ${totalN} participants (optimal information size: ${OIS_EVENTS} events)`
      : knownN === k
        ? `${totalN} participants (optimal information size: ${OIS_PARTICIPANTS})`
        : `sample size known for ${knownN} of ${k} studies${knownN ? ` (${totalN} participants)` : ""}`;
  const t = input.decisionThreshold;
  const crossesThreshold = t !== undefined && input.ci_lb <= t && input.ci_ub >= t;
  const nullText =
    (ciCrosses ? "the 95% confidence interval includes no effect" : "the 95% confidence interval excludes no effect") +
    (t === undefined
      ? ""
      : crossesThreshold
        ? ` and includes the decision threshold (${fmtThreshold(input.measure, t)})`
        : ` and lies on one side of the decision threshold (${fmtThreshold(input.measure, t)})`);
  const impreciseCount = (ciCrosses || crossesThreshold ? 1 : 0) + (belowOis ? 1 : 0);
  judgements.push({
    domain: "imprecision",
    downgrade: impreciseCount === 2 ? -2 : impreciseCount === 1 ? -1 : 0,
    reason: `${capitalise(nullText)}; ${sizeText}${belowOis ? ", below the optimal information size" : ""}.`,
  });

  // Publication bias
  if (input.egger && k >= 10) {
    const p = input.egger.pval;
    judgements.push({
      domain: "publication bias",
      downgrade: p < 0.1 ? -1 : 0,
      reason: `Egger's test p = ${formatP(p)} with ${k} studies${p < 0.1 ? ": funnel-plot asymmetry suggests small-study effects" : ": no sign of funnel-plot asymmetry"}.`,
    });
  } else {
    judgements.push({
      domain: "publication bias",
      downgrade: 0,
      reason: `Not assessed: with ${k} studies (fewer than 10) tests for funnel-plot asymmetry have too little power${input.egger ? ` (Egger's p = ${formatP(input.egger.pval)} shown for information)` : ""}.`,
    });
  }

  const start = startHigh ? 3 : 1;
  const total = judgements.reduce((sum, j) => sum + j.downgrade, 0);
  const certainty = LEVELS[Math.max(0, Math.min(3, start + total))]!;
  return { certainty, judgements, start: startHigh ? "high" : "low" };
}

/**
 * The reviewer's GRADE changes for one outcome (issue 28): any domain's rating replaced, with a
 * justification, and levels rated up (GRADE Handbook 5.2: large effect, dose response, plausible
 * confounding; only ever by the reviewer, never computed).
 */
export interface GradeReviewerRating {
  overrides?: Partial<Record<GradeJudgement["domain"], { downgrade: 0 | -1 | -2; justification: string }>>;
  rateUp?: { reason: GradeRateUpReason; levels: 1 | 2; justification: string }[];
}

/**
 * Applies the reviewer's rating to a computed assessment: an overridden domain takes the
 * reviewer's downgrade with the justification as its reason and keeps the computed one in
 * `computed`; rated-up levels are added; certainty = start + downgrades + rated-up levels, clamped
 * to very low … high. Without `start` (older results) high is assumed.
 */
export function applyReviewerRating(grade: GradeAssessment, rating: GradeReviewerRating): GradeAssessment {
  const judgements = grade.judgements.map((j) => {
    const o = rating.overrides?.[j.domain];
    if (!o) return j;
    return {
      domain: j.domain,
      downgrade: o.downgrade,
      reason: `Reviewer's judgement: ${o.justification}`,
      computed: { downgrade: j.downgrade, reason: j.reason },
    };
  });
  const ratedUp = rating.rateUp ?? [];
  const start = LEVELS.indexOf(grade.start ?? "high");
  const total = judgements.reduce((sum, j) => sum + j.downgrade, 0) + ratedUp.reduce((sum, r) => sum + r.levels, 0);
  return {
    ...grade,
    judgements,
    ...(ratedUp.length ? { ratedUp } : {}),
    certainty: LEVELS[Math.max(0, Math.min(3, start + total))]!,
  };
}

const SCORE: Record<RobJudgement, number> = { low: 0, some_concerns: 1, high: 2 };
const ROB_WORDS: Record<RobJudgement, string> = { low: "low risk", some_concerns: "some concerns", high: "high risk" };

/**
 * The risk-of-bias judgement from RoB 2 overall judgements weighted by the studies' weights, or
 * null when studies carrying less than half of the weight are assessed (then designs decide).
 */
function robFromAssessments(input: GradeInput): GradeJudgement | null {
  const judged = input.riskOfBias;
  if (!judged || judged.length !== input.rows.length || !judged.some((j) => j !== null)) return null;
  const weights =
    input.weights && input.weights.length === judged.length ? input.weights : judged.map(() => 100 / judged.length);
  const total = weights.reduce((s, w) => s + w, 0);
  let assessedWeight = 0;
  const share: Record<RobJudgement, number> = { low: 0, some_concerns: 0, high: 0 };
  judged.forEach((j, i) => {
    if (j === null) return;
    assessedWeight += weights[i]!;
    share[j] += weights[i]!;
  });
  if (total <= 0 || assessedWeight * 2 < total) return null;
  const score =
    (share.low * SCORE.low + share.some_concerns * SCORE.some_concerns + share.high * SCORE.high) / assessedWeight;
  const downgrade = score < 0.5 ? 0 : score < 1.5 ? -1 : -2;
  const pct = (w: number) => `${fmt((100 * w) / assessedWeight, 0)}%`;
  const parts = (["low", "some_concerns", "high"] as const)
    .filter((j) => share[j] > 0)
    .map((j) => `${pct(share[j])} ${ROB_WORDS[j]}`);
  const unassessed = judged.filter((j) => j === null).length;
  return {
    domain: "risk of bias",
    downgrade,
    reason:
      `RoB 2, by meta-analysis weight: ${parts.join(", ")}` +
      `${unassessed ? ` (${unassessed} of ${judged.length} studies not assessed, ${fmt((100 * (total - assessedWeight)) / total, 0)}% of the weight)` : ""}` +
      `; ${downgrade === 0 ? "most information comes from studies at low risk of bias" : downgrade === -1 ? "serious risk of bias" : "very serious risk of bias: most information comes from studies at high risk"}.`,
  };
}

/** True when two studies' 95% CIs do not overlap and their estimates lie on opposite sides of 0. */
function nonOverlappingOpposite(effects: readonly { yi: number; vi: number }[]): boolean {
  const cis = effects.map((e) => ({
    yi: e.yi,
    lb: e.yi - 1.959964 * Math.sqrt(e.vi),
    ub: e.yi + 1.959964 * Math.sqrt(e.vi),
  }));
  return cis.some((a) => cis.some((b) => a.yi < 0 && b.yi > 0 && a.ub < b.lb));
}

const RATIO_MEASURES = new Set<Measure>(["RR", "OR", "ROM"]);

function fmtThreshold(measure: Measure, t: number): string {
  return RATIO_MEASURES.has(measure) ? `${measure} ${fmt(Math.exp(t), 2)}` : `${measure} ${fmt(t, 2)}`;
}

function designList(designs: readonly (string | null)[]): string {
  const counts = new Map<string, number>();
  for (const d of designs) counts.set(d ?? "not stated", (counts.get(d ?? "not stated") ?? 0) + 1);
  return [...counts].map(([d, n]) => `${n} ${d}`).join(", ");
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A p-value as printed in reasons and narratives: "< 0.001" or three decimals. */
export function formatP(p: number): string {
  if (!Number.isFinite(p)) return "not estimable";
  return p < 0.001 ? "< 0.001" : p.toFixed(3);
}
