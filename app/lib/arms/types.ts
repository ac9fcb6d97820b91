/** Shapes of arm-level extraction shared by the core, the API, the bench and the page. */

export type OutcomeType = "binary" | "continuous" | "unknown";
export type ArmKey = "intervention" | "comparator";
export type ArmField = "events" | "groupSize" | "mean" | "sd";

export const ARM_FIELDS: readonly ArmField[] = ["events", "groupSize", "mean", "sd"];

/** One arm's numbers; null where the report does not give them. */
export interface ArmValues {
  events: number | null;
  groupSize: number | null;
  mean: number | null;
  sd: number | null;
}

export interface ArmQuestion {
  intervention: string;
  comparator: string;
  outcome: string;
}

/** A value the report gives only indirectly, and how it was derived ("percent 78.2% of n = 101"). */
export interface Derivation {
  arm: ArmKey;
  field: ArmField;
  from: string;
}

/** Where a value was read: a span of the report's text (offsets into TrialReport.text) … */
export interface TextQuote {
  arm: ArmKey;
  field: ArmField;
  text: string;
  start: number;
  end: number;
}

/** … or a table cell: table label, 0-based body row and column of the table grid, and the cell text. */
export interface TableQuote {
  arm: ArmKey;
  field: ArmField;
  table: string;
  row: number;
  column: number;
  text: string;
}

export type ArmQuote = TextQuote | TableQuote;

/** Per arm and field: a 0–1 confidence, or the reason a value is given or withheld. */
export type PerValue<T> = Record<ArmKey, Record<ArmField, T>>;

export interface ArmExtraction {
  outcomeType: OutcomeType;
  intervention: ArmValues;
  comparator: ArmValues;
  derived: Derivation[];
  quotes: ArmQuote[];
  /**
   * Per value, 0–1 (2 places): the estimated probability that the value is right, from the calibrated model of
   * app/lib/arms/calibration.ts (ADR 0044); a value is given only at or above ABSTAIN_BELOW. Null where no value is
   * given; 1 for a reviewer's entry. Absent on results stored before it existed.
   */
  confidence?: PerValue<number | null>;
  /**
   * Per value, in words: where it was read (table and row/column labels, or the sentence), which
   * timepoint and why, and how it was derived; for a withheld value, why it was withheld ("not
   * found …"). Absent on results stored before it existed.
   */
  reason?: PerValue<string | null>;
  /** When values were withheld as too uncertain: the quotes of the best candidate, for the reviewer to check. */
  candidates?: ArmQuote[];
  /** "rules" for the offline extractor; "rules+MODEL" when a language model filled gaps. */
  extractor: string;
}

export function emptyArm(): ArmValues {
  return { events: null, groupSize: null, mean: null, sd: null };
}

/** A per-value record with every field set to `value`. */
export function perValue<T>(value: T): PerValue<T> {
  const arm = (): Record<ArmField, T> => ({ events: value, groupSize: value, mean: value, sd: value });
  return { intervention: arm(), comparator: arm() };
}

export function isTableQuote(quote: ArmQuote): quote is TableQuote {
  return "table" in quote;
}
