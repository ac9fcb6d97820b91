/**
 * Grouping of extracted rows into analyses: one analysis per (normalised outcome, compatible
 * measure). Arm-level rows can be expressed in more than one measure (2×2 counts as RR, OR or RD;
 * means as MD, SMD or ROM), so a requested measure converts them; a reported estimate with its CI
 * stays in the measure it was reported in. Hazard ratios and rate ratios (rows with
 * `reportedMeasure`) are pooled as log ratios through their estimate and 95% CI (escalc's
 * estimate-ci recovery, yi = log(HR), vi = ((log(upper) − log(lower)) / (2 · 1.959964))²) but are
 * never mixed with risk ratios: they form their own groups.
 */
import type { ExtractedStudyData, Measure, UnpooledOutcome } from "~/lib/meta-analysis/types";
import { normaliseOutcome } from "./extract-rules";

const COUNT_MEASURES: readonly Measure[] = ["RR", "OR", "RD"];
const MEAN_MEASURES: readonly Measure[] = ["MD", "SMD", "ROM"];

/** The measure a row is analysed in, given the measure the user asked for (if any). */
export function effectiveMeasure(row: ExtractedStudyData, requested?: Measure): Measure {
  if (requested && row.data.kind === "counts" && COUNT_MEASURES.includes(requested)) return requested;
  if (requested && row.data.kind === "means" && MEAN_MEASURES.includes(requested)) return requested;
  return row.measure;
}

/** Rows of one analysis, at most one per study. */
export interface AnalysisGroup {
  outcome: string;
  measure: Measure;
  reportedMeasure?: "HR" | "IRR";
  rows: ExtractedStudyData[];
  /** Rows left out while grouping (a second row of a study for the same outcome and measure). */
  notes: string[];
}

/**
 * Groups rows by normalised outcome and effective measure (see {@link effectiveMeasure}), in the
 * order outcomes first appear. A study contributes one row per group (its first); further rows
 * are noted. Groups with fewer than 2 studies are returned in `single` with the reason, not
 * pooled.
 */
export function groupRows(
  rows: readonly ExtractedStudyData[],
  options: { measure?: Measure } = {},
): { groups: AnalysisGroup[]; single: UnpooledOutcome[] } {
  const byKey = new Map<string, AnalysisGroup>();
  for (const row of rows) {
    const outcome = normaliseOutcome(row.outcome) || "unnamed outcome";
    const measure = effectiveMeasure(row, options.measure);
    const key = `${outcome}\u0000${measure}\u0000${row.reportedMeasure ?? ""}`;
    let group = byKey.get(key);
    if (!group) {
      group = {
        outcome,
        measure,
        ...(row.reportedMeasure ? { reportedMeasure: row.reportedMeasure } : {}),
        rows: [],
        notes: [],
      };
      byKey.set(key, group);
    }
    if (group.rows.some((r) => r.studyId === row.studyId)) {
      group.notes.push(`"${row.title}" reports more than one ${measureName(group)} for ${outcome}; the first is used.`);
      continue;
    }
    group.rows.push({ ...row, outcome, measure });
  }
  const groups: AnalysisGroup[] = [];
  const single: UnpooledOutcome[] = [];
  for (const group of byKey.values()) {
    if (group.rows.length >= 2) groups.push(group);
    else
      single.push({
        outcome: group.outcome,
        measure: group.measure,
        ...(group.reportedMeasure ? { reportedMeasure: group.reportedMeasure } : {}),
        studyIds: group.rows.map((r) => r.studyId),
        reason: `Only one study reports ${group.outcome} as a ${measureName(group)}; at least 2 are needed to pool.`,
      });
  }
  return { groups, single };
}

const MEASURE_NAMES: Record<Measure | "HR" | "IRR", string> = {
  RR: "risk ratio",
  OR: "odds ratio",
  RD: "risk difference",
  MD: "mean difference",
  SMD: "standardised mean difference",
  ROM: "ratio of means",
  GEN: "generic effect size",
  HR: "hazard ratio",
  IRR: "rate ratio",
};

/** Human name of a group's measure ("hazard ratio" for reported HRs). */
export function measureName(group: { measure: Measure; reportedMeasure?: "HR" | "IRR" }): string {
  return MEASURE_NAMES[group.reportedMeasure ?? group.measure];
}

/** Short label of a group's measure: "HR"/"IRR" for reported ratios, else the measure. */
export function measureLabel(group: { measure: Measure; reportedMeasure?: "HR" | "IRR" }): string {
  return group.reportedMeasure ?? group.measure;
}
