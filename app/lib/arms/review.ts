/**
 * The data-extraction table of /meta-analysis (pure): one row per study for one outcome, holding the
 * arm-level extraction, the user's corrections with their audit trail, and the conversion to the
 * rows the analysis pools (escalc counts for OR/RR/RD, means for MD/SMD; a reported estimate with
 * CI only where a study has no complete arm data).
 */
import type { DataRow } from "../meta-analysis/page-logic.ts";
import type { EffectData, Measure } from "../meta-analysis/types.ts";
import type { ArmExtraction, ArmField, ArmKey } from "./types.ts";

/** One correction: the cell, its old and new value, who made it and when (ISO time). */
export interface AuditEntry {
  arm: ArmKey;
  field: ArmField;
  oldValue: number | null;
  newValue: number | null;
  who: string;
  when: string;
}

export interface ArmStudyRow {
  studyId: string;
  title: string;
  /** The report as sent to the extractor, so a quote can be shown in place. */
  source: { text: string; format: "jats" | "html" | "markdown" | "text" };
  result: ArmExtraction;
  audit: AuditEntry[];
}

export const BINARY_MEASURES: readonly Measure[] = ["OR", "RR", "RD"];
export const CONTINUOUS_MEASURES: readonly Measure[] = ["MD", "SMD"];

/** The fields a complete row of this outcome type needs per arm. */
export function fieldsFor(outcomeType: ArmExtraction["outcomeType"]): ArmField[] {
  return outcomeType === "binary" ? ["events", "groupSize"] : ["mean", "sd", "groupSize"];
}

/**
 * The row with one cell set to `value` (null clears it), the change appended to the audit trail and
 * the extractor marked as corrected by the user. Returns the row unchanged when the value is the same.
 * @throws RangeError for a negative count or SD, or a fractional count.
 */
export function applyEdit(
  row: ArmStudyRow,
  arm: ArmKey,
  field: ArmField,
  value: number | null,
  who: string,
  now: Date,
): ArmStudyRow {
  const old = row.result[arm][field];
  if (old === value) return row;
  if (value !== null) {
    if (!Number.isFinite(value)) throw new RangeError("Enter a number.");
    if ((field === "events" || field === "groupSize") && (!Number.isInteger(value) || value < 0))
      throw new RangeError("Counts are whole numbers ≥ 0.");
    if (field === "sd" && value < 0) throw new RangeError("An SD cannot be negative.");
  }
  const result: ArmExtraction = {
    ...row.result,
    [arm]: { ...row.result[arm], [field]: value },
    derived: row.result.derived.filter((d) => !(d.arm === arm && d.field === field)),
    ...(row.result.confidence && row.result.reason
      ? {
          confidence: {
            ...row.result.confidence,
            [arm]: { ...row.result.confidence[arm], [field]: value === null ? null : 1 },
          },
          reason: {
            ...row.result.reason,
            [arm]: { ...row.result.reason[arm], [field]: value === null ? `cleared by ${who}` : `entered by ${who}` },
          },
        }
      : {}),
    extractor: row.result.extractor.endsWith("+user") ? row.result.extractor : `${row.result.extractor}+user`,
  };
  return {
    ...row,
    result,
    audit: [...row.audit, { arm, field, oldValue: old, newValue: value, who, when: now.toISOString() }],
  };
}

/**
 * escalc input from a row's arm data: counts (treatment = intervention) when both arms have events
 * and group size with 0 ≤ events ≤ n; means when both arms have mean, SD > 0 and n ≥ 2; else null.
 */
export function armEffectData(result: ArmExtraction): EffectData | null {
  const i = result.intervention;
  const c = result.comparator;
  if (result.outcomeType === "binary") {
    if (i.events === null || i.groupSize === null || c.events === null || c.groupSize === null) return null;
    if (i.events > i.groupSize || c.events > c.groupSize || i.groupSize <= 0 || c.groupSize <= 0) return null;
    return { kind: "counts", events1: i.events, n1: i.groupSize, events2: c.events, n2: c.groupSize };
  }
  if (result.outcomeType === "continuous") {
    if (
      i.mean === null ||
      i.sd === null ||
      i.groupSize === null ||
      c.mean === null ||
      c.sd === null ||
      c.groupSize === null
    )
      return null;
    if (!(i.sd > 0 && c.sd > 0) || i.groupSize < 2 || c.groupSize < 2) return null;
    return { kind: "means", mean1: i.mean, sd1: i.sd, n1: i.groupSize, mean2: c.mean, sd2: c.sd, n2: c.groupSize };
  }
  return null;
}

/** Label of how a pooled row was obtained, shown in the data table and the report. */
export const ARM_DATA_LABEL = "arm-level data";
export const REPORTED_ESTIMATE_LABEL = "reported estimate with CI (no arm-level data)";

/**
 * The rows to pool for `outcome`: each study with complete arm data contributes a row computed from
 * them (measure `binaryMeasure` or `continuousMeasure`); a study without contributes its reported
 * estimate with CI from `existing` when it has one of a compatible measure, marked as such. Rows of
 * `existing` for other studies are kept as they are; a study's other estimate rows are left out of
 * this outcome (included: false) so a study is never pooled twice.
 */
export function rowsForAnalysis(
  armRows: readonly ArmStudyRow[],
  existing: readonly DataRow[],
  outcome: string,
  measures: { binary: Measure; continuous: Measure },
): { rows: DataRow[]; fromArms: string[]; fromEstimates: string[]; missing: string[] } {
  outcome = outcome.trim().slice(0, 200);
  const byStudy = new Map(armRows.map((row) => [row.studyId, row]));
  const fromArms: string[] = [];
  const fromEstimates: string[] = [];
  const missing: string[] = [];
  const rows: DataRow[] = existing.filter((row) => !byStudy.has(row.studyId));
  for (const armRow of armRows) {
    const data = armEffectData(armRow.result);
    if (data) {
      const i = armRow.result.intervention;
      const c = armRow.result.comparator;
      rows.push({
        studyId: armRow.studyId,
        title: armRow.title,
        outcome,
        measure: data.kind === "counts" ? measures.binary : measures.continuous,
        data,
        quotes: armRow.result.quotes
          .filter((q) => "start" in q && q.start >= 0)
          .map((q) => ({
            quote: q.text,
            start: "start" in q ? q.start : 0,
            end: "end" in q ? q.end : 0,
            source: "fullText" as const,
          })),
        extractedBy: `${ARM_DATA_LABEL} (${armRow.result.extractor})`,
        design: "RCT",
        totalN: (i.groupSize ?? 0) + (c.groupSize ?? 0) || null,
        included: true,
      });
      fromArms.push(armRow.studyId);
      continue;
    }
    const compatible = armRow.result.outcomeType === "continuous" ? CONTINUOUS_MEASURES : BINARY_MEASURES;
    const estimate = existing.find(
      (row) => row.studyId === armRow.studyId && row.data.kind === "estimate-ci" && compatible.includes(row.measure),
    );
    if (estimate) {
      rows.push({
        ...estimate,
        outcome,
        extractedBy: `${REPORTED_ESTIMATE_LABEL}: ${estimate.extractedBy}`,
        included: true,
      });
      fromEstimates.push(armRow.studyId);
    } else missing.push(armRow.studyId);
  }
  return { rows, fromArms, fromEstimates, missing };
}
