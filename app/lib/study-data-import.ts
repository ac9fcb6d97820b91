/**
 * Study-level data imported into a review outcome from CSV (issue 31, item 3): the pure part shared
 * by the Data extraction tab's import dialog and the server. Reads the files reviewers move between
 * tools — Covidence's extraction export, RevMan's data-extraction templates and Cochrane's data
 * package (MetaMind's own per-analysis CSV export: Study, Study year, Experimental cases/N, Control
 * cases/N, Experimental/Control mean and SD, Mean, CI start, CI end) — with papaparse; suggests a
 * column for every field from the header names (editable); and turns each line into one study's
 * events/N, mean/SD/N per arm, or its estimate with 95% CI (generic inverse variance), with
 * row-level errors (line, column, message). No I/O.
 */
import Papa from "papaparse";
import { GENERIC_POOL_MEASURES, type PoolMeasure } from "./review-extraction";

/** The fields a study-data line can give. */
export const IMPORT_FIELDS = [
  "study",
  "studyId",
  "year",
  "doi",
  "pmid",
  "outcome",
  "interventionEvents",
  "interventionN",
  "interventionMean",
  "interventionSd",
  "comparatorEvents",
  "comparatorN",
  "comparatorMean",
  "comparatorSd",
  "measure",
  "estimate",
  "lower",
  "upper",
] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

/** Column of the file (its header text) for each field; absent = not in the file. */
export type ColumnMapping = Partial<Record<ImportField, string>>;

/** What each field is called in the dialog. */
export const IMPORT_FIELD_LABEL: Record<ImportField, string> = {
  study: "Study (author year or title)",
  studyId: "Study ID",
  year: "Year",
  doi: "DOI",
  pmid: "PMID",
  outcome: "Outcome / analysis name",
  interventionEvents: "Intervention events",
  interventionN: "Intervention N",
  interventionMean: "Intervention mean",
  interventionSd: "Intervention SD",
  comparatorEvents: "Comparator events",
  comparatorN: "Comparator N",
  comparatorMean: "Comparator mean",
  comparatorSd: "Comparator SD",
  measure: "Effect measure",
  estimate: "Estimate",
  lower: "CI lower",
  upper: "CI upper",
};

/** Largest file accepted (bytes of CSV text). */
export const MAX_IMPORT_CSV_BYTES = 512 * 1024;
/** Most data lines in one file. */
export const MAX_IMPORT_ROWS = 2000;
/** Most columns in one file. */
export const MAX_IMPORT_COLUMNS = 200;

const norm = (h: string) =>
  h
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9#]+/g, " ")
    .trim();

const ARM_I = ["experimental", "intervention", "treatment", "exp", "int", "group 1", "arm 1", "e"];
const ARM_C = ["control", "comparator", "comparison", "ctrl", "cont", "group 2", "arm 2", "c"];
const armNames = (arms: readonly string[], suffixes: readonly string[]) =>
  arms.flatMap((a) => suffixes.flatMap((s) => [`${a} ${s}`, `${s} ${a}`]));
const EVENTS = ["cases", "events", "event", "n events", "number of events"];
const TOTAL = ["n", "total", "no", "number", "participants", "sample size", "total n"];
const MEAN = ["mean"];
const SD = ["sd", "sd s", "standard deviation", "std dev"];

/**
 * Header names each field is suggested from, best first (compared lower-case, accents and
 * punctuation dropped): Cochrane's data package and RevMan's templates ("Experimental cases",
 * "Control N", "Experimental SD", "CI start"), Covidence's extraction export ("Study ID",
 * "Intervention events", "Comparator total", "Outcome") and common variants ("Author year",
 * "Lower 95% CI").
 */
const SYNONYMS: Record<ImportField, readonly string[]> = {
  study: ["study", "study name", "study label", "author year", "author and year", "trial", "study id"],
  studyId: ["study id", "covidence #", "covidence", "study identifier", "record id"],
  year: ["study year", "year", "publication year"],
  doi: ["doi"],
  pmid: ["pmid", "pubmed id", "pubmed"],
  outcome: ["analysis name", "outcome", "outcome name", "outcome measure"],
  interventionEvents: armNames(ARM_I, EVENTS),
  interventionN: armNames(ARM_I, TOTAL),
  interventionMean: armNames(ARM_I, MEAN),
  interventionSd: armNames(ARM_I, SD),
  comparatorEvents: armNames(ARM_C, EVENTS),
  comparatorN: armNames(ARM_C, TOTAL),
  comparatorMean: armNames(ARM_C, MEAN),
  comparatorSd: armNames(ARM_C, SD),
  measure: ["effect measure", "measure", "effect size type", "outcome type measure", "statistic"],
  estimate: ["mean", "estimate", "effect estimate", "effect", "effect size", "point estimate", "or", "rr", "hr"],
  lower: ["ci start", "lower ci", "lower", "ci lower", "lower 95 ci", "95 ci lower", "lcl", "lower limit"],
  upper: ["ci end", "upper ci", "upper", "ci upper", "upper 95 ci", "95 ci upper", "ucl", "upper limit"],
};

/**
 * A column for every field the header names suggest, each column used at most once (fields taken
 * in {@link IMPORT_FIELDS} order, so "Study" goes to study and "Study ID" to studyId when a file
 * has both, and a file with only "Study ID" uses it as the study label).
 */
export function suggestMapping(headers: readonly string[]): ColumnMapping {
  const byNorm = new Map<string, string>();
  for (const h of headers) if (!byNorm.has(norm(h))) byNorm.set(norm(h), h);
  const used = new Set<string>();
  const out: ColumnMapping = {};
  for (const field of IMPORT_FIELDS) {
    for (const name of SYNONYMS[field]) {
      const header = byNorm.get(name);
      if (header !== undefined && !used.has(header)) {
        out[field] = header;
        used.add(header);
        break;
      }
    }
  }
  return out;
}

const MEASURE_WORDS: [RegExp, PoolMeasure][] = [
  [/^(hr|hazard ratio)$/, "HR"],
  [/^(irr|rate ratio|incidence rate ratio)$/, "IRR"],
  [/^(or|odds ratio|peto odds ratio)$/, "OR"],
  [/^(rr|risk ratio|relative risk)$/, "RR"],
  [/^(rd|risk difference)$/, "RD"],
  [/^(md|mean difference|weighted mean difference|wmd)$/, "MD"],
  [/^(smd|std mean difference|standardised mean difference|standardized mean difference)$/, "SMD"],
];

/** The pooled measure a cell names ("Hazard Ratio", "Std. Mean Difference", "OR"), or null. */
export function parseMeasure(cell: string): PoolMeasure | null {
  const t = norm(cell.replace(/^'/, ""))
    .replace(/\b(m h|iv|fixed|random|95 ci)\b/g, "")
    .replace(/\s+/g, " ")
    .trim();
  for (const [re, m] of MEASURE_WORDS) if (re.test(t)) return m;
  const upper = cell.trim().toUpperCase();
  return (GENERIC_POOL_MEASURES as readonly string[]).includes(upper) ? (upper as PoolMeasure) : null;
}

/** One study's data from one line. */
export type ImportedData =
  | { kind: "counts"; events1: number; n1: number; events2: number; n2: number }
  | { kind: "means"; mean1: number; sd1: number; n1: number; mean2: number; sd2: number; n2: number }
  | { kind: "estimate-ci"; measure: PoolMeasure; estimate: number; lower: number; upper: number };

/** One data line of the file, read. */
export interface ImportLine {
  /** 1-based line of the file (the header is line 1). */
  line: number;
  /** Labels the line names the study by (study, study ID), trimmed, non-empty. */
  labels: string[];
  year: number | null;
  doi: string | null;
  pmid: string | null;
  outcome: string | null;
  data: ImportedData;
}

/** A problem with one line (or, line 1, with the header or mapping). */
export interface ImportError {
  line: number;
  column?: string;
  message: string;
}

export interface ParsedStudyData {
  headers: string[];
  mapping: ColumnMapping;
  /** Distinct non-empty values of the outcome column (when mapped), in file order. */
  outcomeValues: string[];
  lines: ImportLine[];
  errors: ImportError[];
  /** Data lines read (outside the selected outcome value they are skipped, not counted). */
  rowCount: number;
}

/** Strips papaparse's formula guard (a leading apostrophe before = + - @) and whitespace. */
function cellText(raw: string | undefined): string {
  const t = (raw ?? "").trim();
  return /^'[=+\-@]/.test(t) ? t.slice(1) : t;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * Reads a study-data CSV. `mapping` (field → header) defaults to {@link suggestMapping}; a mapped
 * header the file does not have is an error. When an outcome column is mapped and the file holds
 * several outcomes, only lines whose outcome is `outcomeValue` are read (without one, line 1 gets
 * an error naming the outcomes). Per line: complete events and N in both arms → counts (events ≤ N,
 * whole numbers ≥ 0, N ≥ 1); else complete mean, SD and N in both arms → means (SD ≥ 0, N ≥ 1); else
 * estimate with CI (lower ≤ estimate ≤ upper; ratios > 0), its measure from the measure column or
 * `defaultMeasure`. A partly filled arm block, a non-numeric cell, a line naming no study or giving
 * no data is an error. Lines with every cell empty are skipped.
 */
export function parseStudyDataCsv(
  csv: string,
  options: { mapping?: ColumnMapping; outcomeValue?: string | null; defaultMeasure?: PoolMeasure | null } = {},
): ParsedStudyData {
  const errors: ImportError[] = [];
  const parsed = Papa.parse<string[]>(csv.replace(/^\ufeff/, ""), { skipEmptyLines: false });
  const table = parsed.data;
  const headers = (table[0] ?? []).map((h) => h.trim());
  const empty: ParsedStudyData = { headers, mapping: {}, outcomeValues: [], lines: [], errors, rowCount: 0 };
  if (headers.length === 0 || headers.every((h) => !h)) {
    errors.push({ line: 1, message: "The file has no header line." });
    return empty;
  }
  if (headers.length > MAX_IMPORT_COLUMNS) {
    errors.push({ line: 1, message: `The file has ${headers.length} columns (at most ${MAX_IMPORT_COLUMNS}).` });
    return empty;
  }
  const mapping = options.mapping ?? suggestMapping(headers);
  const index: Partial<Record<ImportField, number>> = {};
  for (const field of IMPORT_FIELDS) {
    const header = mapping[field];
    if (!header) continue;
    const at = headers.indexOf(header.trim());
    if (at < 0)
      errors.push({
        line: 1,
        column: header,
        message: `The file has no column "${header}" (mapped to ${IMPORT_FIELD_LABEL[field]}).`,
      });
    else index[field] = at;
  }
  const result: ParsedStudyData = { ...empty, mapping };
  if (index.study === undefined && index.studyId === undefined && index.doi === undefined && index.pmid === undefined) {
    errors.push({ line: 1, message: "Map a column that names the study (study, study ID, DOI or PMID)." });
  }
  const hasCounts =
    index.interventionEvents !== undefined &&
    index.interventionN !== undefined &&
    index.comparatorEvents !== undefined &&
    index.comparatorN !== undefined;
  const hasMeans =
    index.interventionMean !== undefined &&
    index.interventionSd !== undefined &&
    index.interventionN !== undefined &&
    index.comparatorMean !== undefined &&
    index.comparatorSd !== undefined &&
    index.comparatorN !== undefined;
  const hasEstimate = index.estimate !== undefined && index.lower !== undefined && index.upper !== undefined;
  if (!hasCounts && !hasMeans && !hasEstimate) {
    errors.push({
      line: 1,
      message:
        "Map the data columns: events and N for both arms, or mean, SD and N for both arms, or the estimate with its CI lower and upper limits.",
    });
  }
  if (errors.length) return result;

  const rows: { line: number; cells: string[] }[] = [];
  for (let i = 1; i < table.length; i += 1) {
    const cells = table[i]!;
    if (cells.every((c) => !c.trim())) continue;
    rows.push({ line: i + 1, cells });
  }
  if (rows.length > MAX_IMPORT_ROWS) {
    errors.push({ line: 1, message: `The file has ${rows.length} data lines (at most ${MAX_IMPORT_ROWS}).` });
    return result;
  }
  const get = (cells: string[], field: ImportField) =>
    index[field] === undefined ? "" : cellText(cells[index[field]!]);
  if (index.outcome !== undefined) {
    result.outcomeValues = [...new Set(rows.map((r) => get(r.cells, "outcome")).filter(Boolean))];
  }
  const wanted = options.outcomeValue?.trim() || null;
  if (index.outcome !== undefined && result.outcomeValues.length > 1 && !wanted) {
    errors.push({
      line: 1,
      column: mapping.outcome,
      message: `The file holds ${result.outcomeValues.length} outcomes (${result.outcomeValues.join("; ")}): choose the one to import.`,
    });
    return result;
  }
  if (wanted && index.outcome !== undefined && !result.outcomeValues.includes(wanted)) {
    errors.push({ line: 1, column: mapping.outcome, message: `No line has the outcome "${wanted}".` });
    return result;
  }

  for (const { line, cells } of rows) {
    if (wanted && index.outcome !== undefined && get(cells, "outcome") !== wanted) continue;
    result.rowCount += 1;
    const lineErrors: ImportError[] = [];
    const number = (field: ImportField): number | null => {
      const t = get(cells, field);
      if (!t) return null;
      if (!NUMBER.test(t)) {
        lineErrors.push({
          line,
          column: mapping[field],
          message: `${IMPORT_FIELD_LABEL[field]}: "${t.slice(0, 40)}" is not a number.`,
        });
        return null;
      }
      return Number(t);
    };
    const labels = [...new Set([get(cells, "study"), get(cells, "studyId")].filter(Boolean))];
    const doi =
      get(cells, "doi")
        .replace(/^https?:\/\/(dx\.)?doi\.org\//i, "")
        .toLowerCase() || null;
    const pmid = get(cells, "pmid").replace(/^pmid:?\s*/i, "") || null;
    const yearCell = number("year");
    const year = yearCell !== null && Number.isInteger(yearCell) ? yearCell : null;
    const v = Object.fromEntries(
      (
        [
          "interventionEvents",
          "interventionN",
          "interventionMean",
          "interventionSd",
          "comparatorEvents",
          "comparatorN",
          "comparatorMean",
          "comparatorSd",
          "estimate",
          "lower",
          "upper",
        ] as const
      ).map((f) => [f, number(f)]),
    ) as Record<
      | "interventionEvents"
      | "interventionN"
      | "interventionMean"
      | "interventionSd"
      | "comparatorEvents"
      | "comparatorN"
      | "comparatorMean"
      | "comparatorSd"
      | "estimate"
      | "lower"
      | "upper",
      number | null
    >;
    if (labels.length === 0 && !doi && !pmid) lineErrors.push({ line, message: "The line does not name the study." });
    if (lineErrors.length) {
      errors.push(...lineErrors);
      continue;
    }
    const missing = (fields: ImportField[]) => fields.filter((f) => v[f as keyof typeof v] === null);
    const countFields: ImportField[] = ["interventionEvents", "interventionN", "comparatorEvents", "comparatorN"];
    const meanFields: ImportField[] = [
      "interventionMean",
      "interventionSd",
      "interventionN",
      "comparatorMean",
      "comparatorSd",
      "comparatorN",
    ];
    const estimateFields: ImportField[] = ["estimate", "lower", "upper"];
    const some = (fields: ImportField[]) => fields.some((f) => v[f as keyof typeof v] !== null);
    const countsGiven = hasCounts && (v.interventionEvents !== null || v.comparatorEvents !== null);
    const meansGiven =
      hasMeans &&
      (v.interventionMean !== null ||
        v.comparatorMean !== null ||
        v.interventionSd !== null ||
        v.comparatorSd !== null);
    const fail = (message: string, field?: ImportField) =>
      errors.push({ line, ...(field && mapping[field] ? { column: mapping[field] } : {}), message });
    if (countsGiven && missing(countFields).length === 0) {
      const [e1, n1, e2, n2] = [v.interventionEvents!, v.interventionN!, v.comparatorEvents!, v.comparatorN!];
      const bad = (countFields as ("interventionEvents" | "interventionN" | "comparatorEvents" | "comparatorN")[]).find(
        (f) => !Number.isInteger(v[f]) || v[f]! < 0,
      );
      if (bad) fail(`${IMPORT_FIELD_LABEL[bad]}: a count is a whole number ≥ 0 (got ${v[bad]}).`, bad);
      else if (n1 < 1 || n2 < 1)
        fail(`A group size must be at least 1 (got ${n1 < 1 ? n1 : n2}).`, n1 < 1 ? "interventionN" : "comparatorN");
      else if (e1 > n1) fail(`Intervention events (${e1}) exceed the intervention N (${n1}).`, "interventionEvents");
      else if (e2 > n2) fail(`Comparator events (${e2}) exceed the comparator N (${n2}).`, "comparatorEvents");
      else
        result.lines.push({
          line,
          labels,
          year,
          doi,
          pmid,
          outcome: get(cells, "outcome") || null,
          data: { kind: "counts", events1: e1, n1, events2: e2, n2 },
        });
      continue;
    }
    if (countsGiven) {
      fail(
        `Incomplete events/N: missing ${missing(countFields)
          .map((f) => IMPORT_FIELD_LABEL[f])
          .join(", ")}.`,
        missing(countFields)[0],
      );
      continue;
    }
    if (meansGiven && missing(meanFields).length === 0) {
      const [m1, s1, n1, m2, s2, n2] = [
        v.interventionMean!,
        v.interventionSd!,
        v.interventionN!,
        v.comparatorMean!,
        v.comparatorSd!,
        v.comparatorN!,
      ];
      if (s1 < 0 || s2 < 0)
        fail(`An SD cannot be negative (got ${s1 < 0 ? s1 : s2}).`, s1 < 0 ? "interventionSd" : "comparatorSd");
      else if (!Number.isInteger(n1) || !Number.isInteger(n2) || n1 < 1 || n2 < 1)
        fail(`A group size is a whole number ≥ 1 (got ${!Number.isInteger(n1) || n1 < 1 ? n1 : n2}).`, "interventionN");
      else
        result.lines.push({
          line,
          labels,
          year,
          doi,
          pmid,
          outcome: get(cells, "outcome") || null,
          data: { kind: "means", mean1: m1, sd1: s1, n1, mean2: m2, sd2: s2, n2 },
        });
      continue;
    }
    if (meansGiven) {
      fail(
        `Incomplete mean/SD/N: missing ${missing(meanFields)
          .map((f) => IMPORT_FIELD_LABEL[f])
          .join(", ")}.`,
        missing(meanFields)[0],
      );
      continue;
    }
    if (hasEstimate && some(estimateFields)) {
      if (missing(estimateFields).length) {
        fail(
          `Incomplete estimate: missing ${missing(estimateFields)
            .map((f) => IMPORT_FIELD_LABEL[f])
            .join(", ")}.`,
          missing(estimateFields)[0],
        );
        continue;
      }
      const measureCell = get(cells, "measure");
      const measure = measureCell ? parseMeasure(measureCell) : (options.defaultMeasure ?? null);
      const [est, lo, hi] = [v.estimate!, v.lower!, v.upper!];
      const ratio = measure === "HR" || measure === "IRR" || measure === "OR" || measure === "RR";
      if (!measure)
        fail(
          measureCell
            ? `Effect measure: "${measureCell.slice(0, 40)}" is not one MetaMind pools (${GENERIC_POOL_MEASURES.join(", ")}).`
            : "Name the effect measure (a measure column, or choose one for the file).",
          "measure",
        );
      else if (!(lo <= est && est <= hi) || lo === hi)
        fail(`The CI ${lo} to ${hi} must contain the estimate ${est} and have width.`, "lower");
      else if (ratio && lo <= 0) fail(`A ${measure} and its CI are positive (got lower limit ${lo}).`, "lower");
      else
        result.lines.push({
          line,
          labels,
          year,
          doi,
          pmid,
          outcome: get(cells, "outcome") || null,
          data: { kind: "estimate-ci", measure, estimate: est, lower: lo, upper: hi },
        });
      continue;
    }
    fail("The line gives no data (events/N, mean/SD/N, or estimate with CI).");
  }
  if (result.rowCount === 0 && errors.length === 0) errors.push({ line: 1, message: "The file has no data lines." });
  return result;
}

/** A line's study as matched to one of the review's included records. */
export interface StudyCandidate {
  recordId: number;
  title: string;
  authors: readonly string[];
  year: number | null;
  doi: string | null;
  pmid: string | null;
}

const simple = (s: string) =>
  s
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();

/** The surname of an author as records store it ("Smith, J" / "J Smith" / "Smith J"). */
function surname(author: string): string {
  const a = author.trim();
  if (a.includes(",")) return simple(a.split(",")[0]!);
  const parts = simple(a).split(" ").filter(Boolean);
  if (parts.length <= 1) return parts[0] ?? "";
  // "Smith J" / "Smith JA" (surname first, initials last) vs "John Smith".
  return parts[parts.length - 1]!.length <= 2 ? parts[0]! : parts[parts.length - 1]!;
}

/** "Smith 2019", "Smith et al. 2019a", "Smith et al (2019)" → {surname, year}; null otherwise. */
export function parseAuthorYear(label: string): { surname: string; year: number } | null {
  const m = /^\s*(.+?)\s*(?:et\s+al\.?)?\s*,?\s*\(?((?:19|20)\d\d)[a-z]?\)?\s*$/i.exec(label);
  if (!m) return null;
  const name = simple(m[1]!.replace(/\bet\s+al\.?$/i, "")).split(" ");
  if (name.length === 0 || name.length > 3 || !name[0]) return null;
  return { surname: name.join(" "), year: Number(m[2]) };
}

/**
 * The records a line names, best evidence first: its DOI, else its PMID, else a label that is a
 * record's title (or, ending in "…", a title's start: the label MetaMind's exports shorten titles
 * to), else an author-year label ("Smith 2019") against the first author's surname and the year.
 * Returns every record matched at the first level that matches any (one = matched; several =
 * ambiguous; none = unknown).
 */
export function matchStudy(
  line: Pick<ImportLine, "labels" | "year" | "doi" | "pmid">,
  records: readonly StudyCandidate[],
): StudyCandidate[] {
  if (line.doi) {
    const hit = records.filter(
      (r) => r.doi && r.doi.toLowerCase().replace(/^https?:\/\/(dx\.)?doi\.org\//, "") === line.doi,
    );
    if (hit.length) return hit;
  }
  if (line.pmid) {
    const hit = records.filter((r) => r.pmid && r.pmid.trim() === line.pmid);
    if (hit.length) return hit;
  }
  for (const label of line.labels) {
    const shortened = /…$|\.\.\.$/.test(label);
    const wanted = simple(label.replace(/(…|\.\.\.)$/, ""));
    if (wanted.length < 3) continue;
    const hit = records.filter((r) => (shortened ? simple(r.title).startsWith(wanted) : simple(r.title) === wanted));
    if (hit.length) return hit;
  }
  for (const label of line.labels) {
    const ay =
      parseAuthorYear(label) ??
      (line.year && /^[\p{L}' -]{2,40}$/u.test(label)
        ? { surname: simple(label.replace(/\bet\s+al\.?$/i, "")), year: line.year }
        : null);
    if (!ay) continue;
    const hit = records.filter(
      (r) => r.year === ay.year && r.authors.length > 0 && surname(r.authors[0]!) === ay.surname,
    );
    if (hit.length) return hit;
  }
  return [];
}

/** The label a record is listed under in the import's preview ("Smith 2019" or its title). */
export function candidateLabel(r: Pick<StudyCandidate, "authors" | "year" | "title">): string {
  const first = r.authors[0] ? surname(r.authors[0]) : "";
  if (first) {
    const cased = r.authors[0]!.includes(",") ? r.authors[0]!.split(",")[0]!.trim() : first;
    return `${cased}${r.year ? ` ${r.year}` : ""}`;
  }
  return r.title.length > 60 ? `${r.title.slice(0, 57)}…` : r.title;
}
