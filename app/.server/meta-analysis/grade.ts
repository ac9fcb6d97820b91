/**
 * GRADE certainty of evidence for one pooled outcome, from the computed numbers (GRADE Handbook,
 * Schünemann et al. 2013; Cochrane Handbook v6.4 ch. 14). Each domain carries its reason.
 *
 * - Start: high when at least half of the pooled studies are randomised trials, else low
 *   (observational evidence starts low).
 * - Risk of bias (from designs only; abstracts do not report allocation concealment or blinding):
 *   −1 when a high start mixes in observational studies, when over half of the designs are
 *   unknown, or when inputs are themselves pooled estimates from reviews.
 * - Inconsistency: I² ≥ 75% → −2 ("considerable", Cochrane Handbook 10.10.2); I² ≥ 50% or a
 *   prediction interval that crosses the null while the CI does not → −1.
 * - Imprecision: the 95% CI crosses the null, or the total sample is below the optimal information
 *   size rule of thumb (Guyatt et al., J Clin Epidemiol 2011;64:1283: 400 participants for
 *   continuous outcomes; 300 events for dichotomous ones, approximated by 400 participants when
 *   event counts are not known) → −1; both → −2.
 * - Publication bias: Egger's test p < 0.10 → −1, judged only with k ≥ 10 studies (fewer gives
 *   the test too little power, Cochrane Handbook 13.3.5.4).
 * - Indirectness: not downgraded; it cannot be judged from numbers (reason says so).
 * Certainty = start + downgrades, floored at very low.
 */
import type {
  EggerTest,
  ExtractedStudyData,
  GradeAssessment,
  GradeJudgement,
  GradeLevel,
  Measure,
} from "~/lib/meta-analysis/types";
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
  if (startHigh && obs > 0) {
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
  if (input.I2 >= 75) {
    judgements.push({ domain: "inconsistency", downgrade: -2, reason: `I² = ${fmt(input.I2)}%: considerable heterogeneity (75% or more).` });
  } else if (input.I2 >= 50) {
    judgements.push({ domain: "inconsistency", downgrade: -1, reason: `I² = ${fmt(input.I2)}%: substantial heterogeneity (50% or more).` });
  } else if (piCrosses && !ciCrosses) {
    judgements.push({
      domain: "inconsistency",
      downgrade: -1,
      reason: `I² = ${fmt(input.I2)}%, but the prediction interval includes no effect while the confidence interval does not: a new study could find the opposite.`,
    });
  } else {
    judgements.push({
      domain: "inconsistency",
      downgrade: 0,
      reason: `I² = ${fmt(input.I2)}%${piCrosses ? "; the prediction interval, like the confidence interval, includes no effect" : "; the prediction interval excludes no effect"}.`,
    });
  }

  // Indirectness
  judgements.push({
    domain: "indirectness",
    downgrade: 0,
    reason: "Not downgraded: whether populations, interventions and outcomes match the review question cannot be judged from the numbers; check each study's PICO.",
  });

  // Imprecision
  const totalN = input.rows.reduce((sum, r) => sum + (r.totalN ?? 0), 0);
  const knownN = input.rows.filter((r) => r.totalN !== null).length;
  const countRows = input.rows.filter((r) => r.data.kind === "counts");
  const events = countRows.length === k
    ? countRows.reduce((sum, r) => sum + (r.data.kind === "counts" ? r.data.events1 + r.data.events2 : 0), 0)
    : null;
  const belowOis = events !== null ? events < OIS_EVENTS : knownN === k ? totalN < OIS_PARTICIPANTS : false;
  const sizeText =
    events !== null
      ? `${events} events in ${totalN} participants (optimal information size: ${OIS_EVENTS} events)`
      : knownN === k
        ? `${totalN} participants (optimal information size: ${OIS_PARTICIPANTS})`
        : `sample size known for ${knownN} of ${k} studies${knownN ? ` (${totalN} participants)` : ""}`;
  const nullText = ciCrosses ? "the 95% confidence interval includes no effect" : "the 95% confidence interval excludes no effect";
  const impreciseCount = (ciCrosses ? 1 : 0) + (belowOis ? 1 : 0);
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
  return { certainty, judgements };
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
