/**
 * Summary of Findings rows (GRADEpro's layout) from a pooled analysis: relative effect, the
 * anticipated absolute effects per 1,000 and the GRADE certainty with its reasons. Pure; values
 * unrounded (the table rounds, see {@link formatSofRow}).
 *
 * Absolute effects (Cochrane Handbook v6.4 ch. 14.1.5, Schünemann et al.), for an assumed control
 * risk ACR (a proportion):
 * - risk ratio: corresponding risk ACR × RR; risk difference ACR × (RR − 1);
 * - odds ratio: corresponding risk ACR·OR / (1 − ACR + ACR·OR); difference = that − ACR;
 * - hazard ratio: corresponding risk 1 − (1 − ACR)^HR (ch. 14.1.5.1);
 * - risk difference: ACR + RD;
 * each CI limit from the same formula at the relative effect's CI limit (the transform is monotone).
 * Continuous outcomes (MD, SMD, ROM) and incidence rate ratios have no per-1,000 figures: the
 * relative effect carries the (mean) difference. The default ACR is the pooled control-group risk
 * of the analysis' studies (total control events / total control participants), GRADEpro's
 * "study population" risk.
 */
import type { ExtractedStudyData, GradeAssessment, Measure, SofCertainty, SummaryOfFindings } from "./types";

const RATIO = new Set<Measure>(["RR", "OR", "ROM"]);

/** The pooled numbers a Summary of Findings row needs (analysis scale: log for ratios). */
export interface SofInput {
  measure: Measure;
  reportedMeasure?: "HR" | "IRR";
  estimate: number;
  ci_lb: number;
  ci_ub: number;
  grade: GradeAssessment;
  rows: readonly Pick<ExtractedStudyData, "data" | "totalN">[];
}

/** Pooled control-group risk: Σ events2 / Σ n2 over rows with arm counts; null without any. */
export function pooledControlRisk(rows: readonly Pick<ExtractedStudyData, "data">[]): number | null {
  let events = 0;
  let n = 0;
  for (const r of rows) {
    if (r.data.kind !== "counts") continue;
    events += r.data.events2;
    n += r.data.n2;
  }
  return n > 0 ? events / n : null;
}

/** Corresponding intervention risk (proportion) for a relative effect on its natural scale. */
export function correspondingRisk(measure: Measure | "HR", acr: number, effect: number): number | null {
  switch (measure) {
    case "RR":
      return acr * effect;
    case "OR":
      return (acr * effect) / (1 - acr + acr * effect);
    case "HR":
      return 1 - Math.pow(1 - acr, effect);
    case "RD":
      return acr + effect;
    default:
      return null;
  }
}

const CERTAINTY: Record<GradeAssessment["certainty"], SofCertainty> = {
  high: "high",
  moderate: "moderate",
  low: "low",
  "very low": "very_low",
};

/**
 * The Summary of Findings row of one analysis. `assumedControlRisk` (a proportion, 0–1) overrides
 * the pooled control-group risk.
 */
export function summaryOfFindings(input: SofInput, options: { assumedControlRisk?: number } = {}): SummaryOfFindings {
  const ratio = RATIO.has(input.measure);
  const back = (x: number) => (ratio ? Math.exp(x) : x);
  const measure = input.reportedMeasure ?? input.measure;
  const relativeEffect = {
    measure,
    estimate: back(input.estimate),
    ci_lb: back(input.ci_lb),
    ci_ub: back(input.ci_ub),
  };
  const absoluteMeasure: Measure | "HR" | null =
    input.reportedMeasure === "HR"
      ? "HR"
      : input.reportedMeasure === "IRR"
        ? null
        : input.measure === "RR" || input.measure === "OR" || input.measure === "RD"
          ? input.measure
          : null;
  const pooled = pooledControlRisk(input.rows);
  const acr = absoluteMeasure ? (options.assumedControlRisk ?? pooled) : null;
  let assumedRiskPer1000: number | null = null;
  let correspondingRiskPer1000: number | null = null;
  let riskDifferencePer1000: SummaryOfFindings["riskDifferencePer1000"] = null;
  if (absoluteMeasure && acr !== null) {
    const risk = (x: number) => correspondingRisk(absoluteMeasure, acr, x)!;
    const corr = risk(relativeEffect.estimate);
    const lo = risk(relativeEffect.ci_lb);
    const hi = risk(relativeEffect.ci_ub);
    assumedRiskPer1000 = acr * 1000;
    correspondingRiskPer1000 = corr * 1000;
    riskDifferencePer1000 = {
      estimate: (corr - acr) * 1000,
      ci_lb: (Math.min(lo, hi) - acr) * 1000,
      ci_ub: (Math.max(lo, hi) - acr) * 1000,
    };
  }
  const known = input.rows.filter((r) => r.totalN !== null);
  return {
    relativeEffect,
    assumedRiskPer1000,
    correspondingRiskPer1000,
    riskDifferencePer1000,
    certainty: CERTAINTY[input.grade.certainty],
    downgrades: input.grade.judgements
      .filter((j) => j.downgrade < 0)
      .map((j) => ({ domain: j.domain, levels: (j.downgrade === -2 ? 2 : 1) as 1 | 2, reason: j.reason })),
    participants: known.length === input.rows.length ? known.reduce((s, r) => s + (r.totalN ?? 0), 0) : null,
    studies: input.rows.length,
    assumedRiskSource:
      acr === null ? null : options.assumedControlRisk !== undefined ? "reviewer" : "pooled control groups",
    ...(input.grade.ratedUp?.length
      ? {
          ratedUp: input.grade.ratedUp.map((r) => ({
            reason: r.reason,
            levels: r.levels,
            justification: r.justification,
          })),
        }
      : {}),
  };
}

/** GRADE certainty as GRADEpro prints it: filled and empty circles and the word. */
export function certaintySymbols(certainty: SofCertainty): string {
  const filled = { high: 4, moderate: 3, low: 2, very_low: 1 }[certainty];
  const word = { high: "High", moderate: "Moderate", low: "Low", very_low: "Very low" }[certainty];
  return `${"⊕".repeat(filled)}${"◯".repeat(4 - filled)} ${word}`;
}

const round = (x: number, digits: number) => (Number.isFinite(x) ? x.toFixed(digits) : "not estimable");
const per1000 = (x: number) => String(Math.round(x));
const signed = (x: number) => {
  const r = Math.round(Math.abs(x));
  return r === 0 ? "0" : `${r} ${x < 0 ? "fewer" : "more"}`;
};

/** One table row, rounded for display (GRADEpro: risks per 1,000 whole, ratios 2 decimals). */
export interface SofTableRow {
  outcome: string;
  participants: string;
  certainty: string;
  footnotes: string[];
  relativeEffect: string;
  riskWithComparator: string;
  riskDifference: string;
}

/** Formats a Summary of Findings row for the table and its exports. */
export function formatSofRow(outcome: string, sof: SummaryOfFindings): SofTableRow {
  const r = sof.relativeEffect;
  const ratio = ["RR", "OR", "ROM", "HR", "IRR"].includes(r.measure);
  const digits = 2;
  const rd = sof.riskDifferencePer1000;
  return {
    outcome,
    participants: `${sof.participants === null ? "not known" : sof.participants} (${sof.studies} ${sof.studies === 1 ? "study" : "studies"})`,
    certainty: certaintySymbols(sof.certainty),
    footnotes: [
      ...sof.downgrades.map(
        (d) => `Rated down ${d.levels === 2 ? "two levels" : "one level"} for ${d.domain}: ${d.reason}`,
      ),
      ...(sof.ratedUp ?? []).map(
        (r) =>
          `Rated up ${r.levels === 2 ? "two levels" : "one level"} by the reviewer for ${r.reason}: ${r.justification}`,
      ),
    ],
    relativeEffect: ratio
      ? `${r.measure} ${round(r.estimate, digits)} (${round(r.ci_lb, digits)} to ${round(r.ci_ub, digits)})`
      : "—",
    riskWithComparator: sof.assumedRiskPer1000 === null ? "—" : `${per1000(sof.assumedRiskPer1000)} per 1,000`,
    riskDifference: rd
      ? `${signed(rd.estimate)} per 1,000 (from ${signed(rd.ci_lb)} to ${signed(rd.ci_ub)})`
      : ratio
        ? "—"
        : `${r.measure} ${round(r.estimate, digits)} (${round(r.ci_lb, digits)} to ${round(r.ci_ub, digits)})`,
  };
}

/** CSV quoting (RFC 4180): fields with commas, quotes or line breaks in double quotes. */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * The Summary of Findings table as CSV (GRADEpro's columns): Outcome, Participants (studies),
 * Certainty, Relative effect (95% CI), Risk with comparator, Risk difference with intervention,
 * Footnotes (joined by " | ").
 */
export function sofTableCsv(rows: readonly SofTableRow[]): string {
  const header = [
    "Outcome",
    "No of participants (studies)",
    "Certainty of the evidence (GRADE)",
    "Relative effect (95% CI)",
    "Risk with comparator",
    "Risk difference with intervention (95% CI)",
    "Footnotes",
  ];
  const lines = rows.map((r) => [
    r.outcome,
    r.participants,
    r.certainty,
    r.relativeEffect,
    r.riskWithComparator,
    r.riskDifference,
    r.footnotes.join(" | "),
  ]);
  return [header, ...lines].map((l) => l.map(csvField).join(",")).join("\r\n") + "\r\n";
}
