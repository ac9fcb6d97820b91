/**
 * Grouping of extracted rows into analyses. Rows pool together only when they measure the same
 * outcome: the outcome phrases match (normalised wording and synonyms, app/lib/extraction
 * outcomesMatch), the measure is the same (hazard and rate ratios never mix with risk ratios) and
 * the timepoints are compatible (timepointsCompatible: unstated, or durations within a factor of
 * 1.5). A study contributes one row per group, so one study's different outcomes never pool
 * together. Rows the user labelled with a `poolGroup` pool with the rows of the same label only
 * (merge / split in the data table). Rows a meta-analysis reports as its own pooled result
 * (`isPooledEstimate`), rows without a named outcome and rows whose outcome phrase is uncertain
 * (`outcomeUncertain`, until the reviewer names it) are never pooled automatically: they are
 * listed in `single` with the reason.
 *
 * Arm-level rows can be expressed in more than one measure (2×2 counts as RR, OR or RD; means as
 * MD, SMD or ROM), so a requested measure converts them; a reported estimate with its CI stays in
 * the measure it was reported in. Hazard and rate ratios are pooled as log ratios through their
 * estimate and 95% CI (escalc's estimate-ci recovery, yi = log(HR),
 * vi = ((log(upper) − log(lower)) / (2 · 1.959964))²).
 */
import type { ExtractedStudyData, Measure, UnpooledOutcome } from "~/lib/meta-analysis/types";
import { normaliseOutcomePhrase, outcomesMatch, timepointsCompatible } from "~/lib/extraction";
import { UNNAMED_OUTCOME } from "../extraction/extract-rules";
import { withArticle } from "~/lib/wording";

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
  /** The timepoint the group's rows share (the first stated), or null. */
  timepoint?: string | null;
  rows: ExtractedStudyData[];
  /** Rows left out while grouping (a second row of a study for the same outcome and measure). */
  notes: string[];
}

/** Why a row is never pooled automatically, or null. */
function notPoolable(row: ExtractedStudyData): string | null {
  if (row.isPooledEstimate) {
    return "it is the pooled result of a meta-analysis, so it is not pooled again with primary studies (label it with a pool group to combine such results on purpose)";
  }
  if (!row.poolGroup && (!row.outcome.trim() || row.outcome.trim() === UNNAMED_OUTCOME)) {
    return "its outcome is not named in the text; name the outcome or give it a pool group to pool it";
  }
  if (!row.poolGroup && row.outcomeUncertain) {
    return `its outcome phrase "${row.outcome}" is uncertain (${row.outcomeUncertain}); name the outcome or give it a pool group to pool it`;
  }
  return null;
}

/**
 * An outcome phrase for display: spaces collapsed, trailing punctuation dropped, a sentence-case
 * first word lower-cased ("Stroke" → "stroke"; "HbA1c", "COVID-19" kept), the words otherwise as
 * written (no stemming); the normalised phrase when nothing else is left.
 */
export function readableOutcome(phrase: string): string {
  const s = phrase
    .replace(/\s+/g, " ")
    .replace(/[\s.,;:]+$/, "")
    .trim()
    .replace(/^\p{Lu}(?=\p{Ll}*(?:[\s,;:-]|$))/u, (c) => c.toLowerCase());
  return s || normaliseOutcomePhrase(phrase) || phrase;
}

/**
 * Groups rows into analyses (see the module comment), in the order outcomes first appear. A
 * study's second row for a group is noted and not used. Groups with fewer than 2 studies and rows
 * that are never pooled automatically are returned in `single` with the reason.
 */
export function groupRows(
  rows: readonly ExtractedStudyData[],
  options: { measure?: Measure } = {},
): { groups: AnalysisGroup[]; single: UnpooledOutcome[] } {
  const groups: AnalysisGroup[] = [];
  const keyOf = new Map<AnalysisGroup, string>();
  const single: UnpooledOutcome[] = [];
  for (const row of rows) {
    const measure = effectiveMeasure(row, options.measure);
    const reason = notPoolable(row);
    if (reason && !(row.isPooledEstimate && row.poolGroup)) {
      single.push({
        outcome: row.outcome,
        measure,
        ...(row.reportedMeasure ? { reportedMeasure: row.reportedMeasure } : {}),
        studyIds: [row.studyId],
        reason: `"${row.title}" is not pooled: ${reason}.`,
      });
      continue;
    }
    const userGroup = row.poolGroup?.trim() ? `user:${row.poolGroup.trim().toLowerCase()}` : null;
    let group = groups.find((g) => {
      if (g.measure !== measure || (g.reportedMeasure ?? "") !== (row.reportedMeasure ?? "")) return false;
      const key = keyOf.get(g)!;
      if (userGroup || key.startsWith("user:")) return key === userGroup;
      return outcomesMatch(g.outcome, row.outcome) && timepointsCompatible(g.timepoint ?? null, row.timepoint ?? null);
    });
    if (!group) {
      group = {
        // The outcome as the study words it (no word surgery: "precerebral arteries" stays whole);
        // the normalised phrase only decides which rows pool together.
        outcome: userGroup ? row.poolGroup!.trim() : readableOutcome(row.outcome),
        measure,
        ...(row.reportedMeasure ? { reportedMeasure: row.reportedMeasure } : {}),
        timepoint: row.timepoint ?? null,
        rows: [],
        notes: [],
      };
      groups.push(group);
      keyOf.set(group, userGroup ?? "auto");
    }
    if (!group.timepoint && row.timepoint) group.timepoint = row.timepoint;
    if (group.rows.some((r) => r.studyId === row.studyId)) {
      group.notes.push(
        `"${row.title}" reports more than one ${measureName(group)} for ${group.outcome}; the first is used.`,
      );
      continue;
    }
    group.rows.push({ ...row, measure });
  }
  const pooled: AnalysisGroup[] = [];
  for (const group of groups) {
    if (group.rows.length >= 2) pooled.push(group);
    else
      single.push({
        outcome: group.outcome,
        measure: group.measure,
        ...(group.reportedMeasure ? { reportedMeasure: group.reportedMeasure } : {}),
        studyIds: group.rows.map((r) => r.studyId),
        reason: `Only one study reports ${group.outcome}${group.timepoint ? ` (${group.timepoint})` : ""} as ${withArticle(measureName(group))}; at least 2 are needed to pool.`,
      });
  }
  return { groups: pooled, single };
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
