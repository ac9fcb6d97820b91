/**
 * Characteristics of included studies (issue 29, item 0; Cochrane Handbook 5.3 / RevMan's
 * "Characteristics of included studies"): the built-in columns, the shapes the API returns, the
 * checks on an edited value, the CSV export, and the study columns the review's Analysis tab offers
 * as subgroups (categorical) and moderators (numeric or categorical). Pure; shared by client and server.
 */

/** How a column's values are read: categorical values split studies into subgroups, numeric ones are moderators. */
export type CharacteristicType = "categorical" | "numeric" | "text";

export const CHARACTERISTIC_TYPES: readonly CharacteristicType[] = ["categorical", "numeric", "text"];

/** A column of the table: built-in (key = its name in {@link BUILT_IN_COLUMNS}) or added by a reviewer (key "c{id}"). */
export interface CharacteristicColumn {
  key: string;
  name: string;
  type: CharacteristicType;
  builtIn: boolean;
}

/** The Cochrane table's columns, in its order. */
export const BUILT_IN_COLUMNS: readonly CharacteristicColumn[] = [
  { key: "design", name: "Design", type: "categorical", builtIn: true },
  { key: "country", name: "Country", type: "categorical", builtIn: true },
  { key: "setting", name: "Setting", type: "categorical", builtIn: true },
  { key: "randomised", name: "N randomised", type: "numeric", builtIn: true },
  { key: "population", name: "Population", type: "text", builtIn: true },
  { key: "intervention", name: "Intervention", type: "text", builtIn: true },
  { key: "comparator", name: "Comparator", type: "text", builtIn: true },
  { key: "followUp", name: "Follow-up", type: "text", builtIn: true },
  { key: "funding", name: "Funding", type: "text", builtIn: true },
  { key: "conflicts", name: "Conflicts of interest", type: "text", builtIn: true },
];

/** A value pre-filled by the rules: the value and the verbatim passage of the study's text it was read from. */
export interface PrefilledValue {
  value: string;
  quote: string;
}

/** One cell: its current value, the quote when the value is the rules' one, and whether a reviewer set it. */
export interface CharacteristicCell {
  value: string | null;
  quote: string | null;
  edited: boolean;
}

/** One included study's row. */
export interface CharacteristicsStudy {
  recordId: number;
  title: string;
  year: number | null;
  /** Where the pre-filled values were read ("europepmc", "upload", "fulltext", "abstract"). */
  source: { kind: string; note: string | null };
  values: Record<string, CharacteristicCell>;
}

/** One edit of the audit trail. */
export interface CharacteristicEdit {
  recordId: number;
  column: string;
  oldValue: string | null;
  newValue: string | null;
  who: string;
  when: string;
}

/** GET /api/reviews/{id}/characteristics. */
export interface CharacteristicsTable {
  columns: CharacteristicColumn[];
  studies: CharacteristicsStudy[];
  audit: CharacteristicEdit[];
  /** Studies included at full text (the table holds at most the first 100). */
  included: number;
}

/** Longest value a cell may hold. */
export const MAX_CHARACTERISTIC_VALUE = 1000;

/**
 * The stored form of a value for a column of `type`: trimmed, null when empty; a numeric value must
 * be a finite number ("1,200" is read as 1200). Returns {error} for a value the column cannot hold.
 */
export function normaliseCharacteristicValue(
  type: CharacteristicType,
  raw: string | null,
): { value: string | null } | { error: string } {
  const trimmed = raw?.trim() ?? "";
  if (trimmed === "") return { value: null };
  if (trimmed.length > MAX_CHARACTERISTIC_VALUE)
    return { error: `A value may have at most ${MAX_CHARACTERISTIC_VALUE} characters.` };
  if (type !== "numeric") return { value: trimmed };
  const n = Number(trimmed.replace(/(\d),(?=\d{3}\b)/g, "$1"));
  if (!Number.isFinite(n)) return { error: "This column holds numbers: enter a number." };
  return { value: String(n) };
}

function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * The table as CSV (RFC 4180, CRLF): Study, Year, one column per characteristic, then one
 * "<column> quote" column per column with quoted values. Cells starting with = + - @ are prefixed
 * with ' so a spreadsheet does not run them as formulas.
 */
export function characteristicsCsv(table: Pick<CharacteristicsTable, "columns" | "studies">): string {
  const header = ["Study", "Year", ...table.columns.map((c) => c.name), ...table.columns.map((c) => `${c.name} quote`)];
  const rows = table.studies.map((s) => [
    s.title,
    s.year === null ? "" : String(s.year),
    ...table.columns.map((c) => s.values[c.key]?.value ?? ""),
    ...table.columns.map((c) => s.values[c.key]?.quote ?? ""),
  ]);
  return [header, ...rows].map((r) => r.map(csvField).join(",")).join("\r\n") + "\r\n";
}

/** Label of a study whose categorical value is blank. */
export const NOT_REPORTED = "Not reported";

/** A characteristic as the Analysis tab offers it: one value per study of the analysis. */
export interface AnalysisColumn {
  key: string;
  label: string;
  kind: "categorical" | "numeric";
  /** categorical: the level per study; numeric: the number per study (null when blank). */
  values: string[] | (number | null)[];
}

/**
 * The characteristics usable in an analysis of the studies `recordIds` (in the analysis's order):
 * categorical columns splitting them into ≥ 2 subgroups (blank = "Not reported"), and numeric
 * columns every study reports that vary. Text columns are left out.
 */
export function analysisColumns(
  table: Pick<CharacteristicsTable, "columns" | "studies">,
  recordIds: readonly number[],
): AnalysisColumn[] {
  const byId = new Map(table.studies.map((s) => [s.recordId, s]));
  const out: AnalysisColumn[] = [];
  for (const c of table.columns) {
    const raw = recordIds.map((id) => byId.get(id)?.values[c.key]?.value ?? null);
    if (c.type === "categorical") {
      const values = raw.map((v) => (v && v.trim() ? v.trim() : NOT_REPORTED));
      if (new Set(values).size >= 2) out.push({ key: c.key, label: c.name, kind: "categorical", values });
    } else if (c.type === "numeric") {
      const values = raw.map((v) => (v === null || v.trim() === "" || !Number.isFinite(Number(v)) ? null : Number(v)));
      if (values.every((v) => v !== null) && new Set(values).size >= 2)
        out.push({ key: c.key, label: c.name, kind: "numeric", values });
    }
  }
  return out;
}
