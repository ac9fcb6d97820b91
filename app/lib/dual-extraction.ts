/**
 * Dual data extraction (issue 30 item 5), the pure part shared by the server and the page: two
 * reviewers submit a study's arm-level values for an outcome independently; the cells where their
 * values differ need a consensus value, recorded by the owner or a named resolver; a study's
 * consensus values (agreed cells from the two submissions, differing cells from the consensus) are
 * what the review's analysis and exports use. Cochrane Handbook ch. 5.5 (two extractors, agreement
 * by discussion or a third person). No I/O.
 */
import type { ArmField, ArmKey, ArmValues } from "./arms/types.ts";
import type { ReviewExtractionStudy } from "./review-extraction.ts";

export type ExtractionMode = "single" | "dual";

/** The eight cells of a study for one outcome: both arms' events, group size, mean and SD (null: not reported). */
export type ArmValuesPair = Record<ArmKey, ArmValues>;

export const EXTRACTION_ARMS: readonly ArmKey[] = ["intervention", "comparator"];
export const EXTRACTION_FIELDS: readonly ArmField[] = ["events", "groupSize", "mean", "sd"];

/** A cell of the extraction table. */
export interface ExtractionCell {
  arm: ArmKey;
  field: ArmField;
}

/** One reviewer's submission. `values` is null while blind mode hides it from the reader. */
export interface DualSubmission {
  userId: string;
  email: string;
  submittedAt: string;
  values: ArmValuesPair | null;
}

/** The consensus value of one cell (the latest recorded), with who and when. */
export interface ConsensusCell extends ExtractionCell {
  value: number | null;
  userId: string;
  email: string;
  at: string;
}

/**
 * A study's dual-extraction state as the reader may see it. `revealed`: the reader sees both
 * submissions (they submitted their own, or both are in). `differing` and `values` only once
 * revealed; `values` are the consensus values once every differing cell has one (else null).
 */
export interface DualExtractionStudy {
  submissions: DualSubmission[];
  mine: boolean;
  revealed: boolean;
  differing: ExtractionCell[];
  consensus: ConsensusCell[];
  values: ArmValuesPair | null;
}

/** Two extractors per study, as for screening votes. */
export const EXTRACTORS_PER_STUDY = 2;

/** The cells where two submissions differ (exact equality of numbers; null = not reported). */
export function differingCells(a: ArmValuesPair, b: ArmValuesPair): ExtractionCell[] {
  const out: ExtractionCell[] = [];
  for (const arm of EXTRACTION_ARMS)
    for (const field of EXTRACTION_FIELDS) if (a[arm][field] !== b[arm][field]) out.push({ arm, field });
  return out;
}

/**
 * A study's consensus values: the agreed cells of the two submissions, each differing cell's latest
 * consensus value; a consensus recorded for an agreed cell overrides it. Null while fewer than two
 * submissions are in or a differing cell has no consensus yet.
 */
export function consensusValues(
  submissions: readonly ArmValuesPair[],
  consensus: readonly Pick<ConsensusCell, "arm" | "field" | "value">[],
): ArmValuesPair | null {
  if (submissions.length < EXTRACTORS_PER_STUDY) return null;
  const [a, b] = submissions as [ArmValuesPair, ArmValuesPair];
  const out: ArmValuesPair = { intervention: { ...a.intervention }, comparator: { ...a.comparator } };
  const decided = new Map(consensus.map((c) => [`${c.arm}.${c.field}`, c.value]));
  for (const cell of differingCells(a, b)) if (!decided.has(`${cell.arm}.${cell.field}`)) return null;
  for (const [key, value] of decided) {
    const [arm, field] = key.split(".") as [ArmKey, ArmField];
    out[arm][field] = value;
  }
  return out;
}

/** Whether a value fits its field: counts are whole numbers ≥ 0, an SD is ≥ 0, a mean any finite number. */
export function valueProblem(field: ArmField, value: number | null): string | null {
  if (value === null) return null;
  if (!Number.isFinite(value)) return "Enter a number.";
  if ((field === "events" || field === "groupSize") && (!Number.isInteger(value) || value < 0))
    return "Counts are whole numbers ≥ 0.";
  if (field === "sd" && value < 0) return "An SD cannot be negative.";
  return null;
}

/**
 * The studies the analysis of a dual-extraction review pools: those with consensus values, each
 * with its arm values replaced by them (the rest of the extraction — type, quotes — kept); studies
 * still awaiting a submission or a consensus are left out.
 */
export function consensusStudies<S extends Pick<ReviewExtractionStudy, "result"> & { dual?: DualExtractionStudy }>(
  studies: readonly S[],
): S[] {
  return studies.flatMap((s) =>
    s.dual?.values
      ? [
          {
            ...s,
            result: {
              ...s.result,
              intervention: { ...s.dual.values.intervention },
              comparator: { ...s.dual.values.comparator },
              derived: [],
            },
          },
        ]
      : [],
  );
}
