import { isFiniteNumber, isRatioMeasure } from "./display";
import type {
  EffectData,
  ExcludedStudy,
  ExtractedStudyData,
  GenqWeights,
  Measure,
  MetaAnalysisJobResult,
  Method,
  SupportingQuote,
  TestType,
} from "./types";

/**
 * Client-side logic of the /meta-analysis page (pure, testable): the editable data table's rows
 * and their validation, the PRISMA counts taken from the stored search, the Save Report form's
 * validation (SPEC §5) and the reproducible JSON export.
 */

/** A data-table row: the extracted (or user-edited) data and whether it goes into pooling. */
export interface DataRow extends ExtractedStudyData {
  included: boolean;
}

/** The model options sent with Run Analysis. */
export interface AnalysisOptions {
  method: Method;
  test: TestType;
  /** GENQ/GENQM only: the rule of the generalised Q weights (default inverse-variance; see GenqWeights). */
  genqWeights?: GenqWeights;
}

/** Cochrane's current guidance (Handbook v6.5 §10.10.4): REML for τ² with the Hartung–Knapp adjustment. */
export const DEFAULT_OPTIONS: AnalysisOptions = { method: "REML", test: "knha" };

/**
 * Estimators offered on the page, in the order shown. GENQ and GENQM come with a choice of weights
 * (GENQ_WEIGHT_CHOICES in display.ts); every re-analysis refits them with the same weights, as
 * metafor does (docs/methods/tau2-estimators.md).
 */
export const METHOD_CHOICES: readonly Method[] = [
  "REML",
  "DL",
  "PM",
  "ML",
  "HS",
  "SJ",
  "HE",
  "EB",
  "HSk",
  "PMM",
  "DL2",
  "CA2",
  "SJ2",
  "GENQ",
  "GENQM",
  "EE",
];

export const MIN_STUDIES = 2;
export const MIN_STUDIES_MESSAGE = "Please select at least 2 studies for meta-analysis";

/** The hint under the selected-studies list for 0, 1 and 2+ studies (SPEC §2). */
export function selectionHintText(count: number): string {
  if (count <= 0) return "No studies selected yet. Add studies from Search Studies with their meta-analysis button.";
  if (count === 1) return "Add at least one more study to run a meta-analysis.";
  return `Ready for meta-analysis (${count} studies). Extract the data to review it, or run the analysis directly.`;
}

/** Measures that each data form can produce (metafor escalc). */
export function measuresFor(kind: EffectData["kind"]): Measure[] {
  switch (kind) {
    case "counts":
      return ["RR", "OR", "RD"];
    case "means":
      return ["MD", "SMD", "ROM"];
    case "estimate-ci":
      return ["RR", "OR", "ROM", "RD", "MD", "SMD", "GEN"];
    case "yi-vi":
      return ["GEN", "RR", "OR", "ROM", "RD", "MD", "SMD"];
    case "estimate-se":
      return ["RR", "OR", "ROM", "RD", "MD", "SMD", "GEN"];
    // Rate ratios and Peto hazard ratios are log ratios, pooled as RR and named by reportedMeasure.
    case "rates":
    case "oe-var":
      return ["RR"];
  }
}

/** RevMan's names of the data types, as the data table offers them. */
export const DATA_KIND_LABELS: Record<EffectData["kind"], string> = {
  counts: "Dichotomous (events / N)",
  means: "Continuous (mean, SD, N)",
  "estimate-ci": "Generic inverse variance (estimate, 95% CI)",
  "estimate-se": "Generic inverse variance (estimate, SE)",
  rates: "Rates (events, person-time)",
  "oe-var": "O − E and variance",
  "yi-vi": "Effect size and variance (yi, vi)",
};

/**
 * A row switched to another data type: empty values of that type for the reviewer to enter (NaN
 * until entered), the first measure the type gives (kept when the type gives it), and the ratio
 * named: rates → IRR, O − E → HR (both pooled as log ratios under RR).
 */
export function withDataKind(row: DataRow, kind: EffectData["kind"]): DataRow {
  if (kind === row.data.kind) return row;
  const data = Object.fromEntries([
    ["kind", kind],
    ...DATA_FIELDS[kind].map((f) => [f.key, Number.NaN]),
  ]) as unknown as EffectData;
  const measures = measuresFor(kind);
  const next: DataRow = {
    ...row,
    data,
    measure: measures.includes(row.measure) ? row.measure : measures[0]!,
    extractedBy: "user",
  };
  delete next.reportedMeasure;
  if (kind === "rates") next.reportedMeasure = "IRR";
  if (kind === "oe-var") next.reportedMeasure = "HR";
  if ((kind === "estimate-ci" || kind === "estimate-se") && row.reportedMeasure && next.measure === "RR")
    next.reportedMeasure = row.reportedMeasure;
  return next;
}

/** The editable numeric fields of each data form with their labels (T = treatment, C = control). */
export const DATA_FIELDS: { [K in EffectData["kind"]]: { key: string; label: string; integer?: boolean }[] } = {
  counts: [
    { key: "events1", label: "Events (T)", integer: true },
    { key: "n1", label: "N (T)", integer: true },
    { key: "events2", label: "Events (C)", integer: true },
    { key: "n2", label: "N (C)", integer: true },
  ],
  means: [
    { key: "mean1", label: "Mean (T)" },
    { key: "sd1", label: "SD (T)" },
    { key: "n1", label: "N (T)", integer: true },
    { key: "mean2", label: "Mean (C)" },
    { key: "sd2", label: "SD (C)" },
    { key: "n2", label: "N (C)", integer: true },
  ],
  "estimate-ci": [
    { key: "estimate", label: "Estimate" },
    { key: "lower", label: "95% CI lower" },
    { key: "upper", label: "95% CI upper" },
  ],
  "yi-vi": [
    { key: "yi", label: "yi" },
    { key: "vi", label: "vi" },
  ],
  "estimate-se": [
    { key: "estimate", label: "Estimate" },
    { key: "se", label: "SE (log scale for ratios)" },
  ],
  rates: [
    { key: "events1", label: "Events (T)", integer: true },
    { key: "time1", label: "Person-time (T)" },
    { key: "events2", label: "Events (C)", integer: true },
    { key: "time2", label: "Person-time (C)" },
  ],
  "oe-var": [
    { key: "oe", label: "O − E" },
    { key: "v", label: "Variance V" },
  ],
};

/** Reads one numeric field of a row's data (NaN when missing). */
export function fieldValue(data: EffectData, key: string): number {
  const v = (data as unknown as Record<string, unknown>)[key];
  return typeof v === "number" ? v : Number.NaN;
}

/** The rows of a fresh extraction: every extracted study included. */
export function rowsFromExtraction(extracted: readonly ExtractedStudyData[]): DataRow[] {
  return extracted.map((e) => ({ ...e, included: true }));
}

/** A row with one numeric field changed; the row is then marked as edited by the user. */
export function withValue(row: DataRow, key: string, value: number): DataRow {
  return { ...row, data: { ...row.data, [key]: value } as EffectData, extractedBy: "user" };
}

/** A row with another measure (kept only when the data form supports it). */
export function withMeasure(row: DataRow, measure: Measure): DataRow {
  if (!measuresFor(row.data.kind).includes(measure)) return row;
  const next: DataRow = { ...row, measure, extractedBy: "user" };
  // A hazard or rate ratio is pooled as RR; under another measure it is no longer one.
  if (measure !== "RR") delete next.reportedMeasure;
  return next;
}

/**
 * A row in another pooling group: rows with the same label pool together whatever their outcome
 * wording (merge), rows with different labels never do (split); "" returns the row to automatic
 * grouping by outcome, measure and timepoint.
 */
export function withPoolGroup(row: DataRow, poolGroup: string): DataRow {
  const next: DataRow = { ...row, poolGroup };
  if (!poolGroup.trim()) delete next.poolGroup;
  return next;
}

/** A row with another outcome name (trimmed when sent); the reviewer has named it, so it is no longer uncertain. */
export function withOutcome(row: DataRow, outcome: string): DataRow {
  const next: DataRow = { ...row, outcome, extractedBy: "user" };
  delete next.outcomeUncertain;
  return next;
}

/**
 * Why the row cannot be pooled, or null when it can: every value finite; counts whole numbers
 * with 0 ≤ events ≤ N and N > 0; SDs positive; the estimate inside its CI with lower < upper;
 * ratios (and their CIs) positive; variances positive; an outcome name.
 */
export function validateRow(row: DataRow): string | null {
  if (!row.outcome.trim()) return "Enter the outcome.";
  const fields = DATA_FIELDS[row.data.kind];
  for (const f of fields) {
    const v = fieldValue(row.data, f.key);
    if (!isFiniteNumber(v)) return `${f.label}: enter a number.`;
    if (f.integer && (!Number.isInteger(v) || v < 0)) return `${f.label}: enter a whole number of 0 or more.`;
  }
  const d = row.data;
  switch (d.kind) {
    case "counts":
      if (d.n1 <= 0 || d.n2 <= 0) return "Group sizes must be greater than 0.";
      if (d.events1 > d.n1 || d.events2 > d.n2) return "Events cannot exceed the group size.";
      if (d.events1 === 0 && d.events2 === 0 && row.measure !== "RD") {
        return "No events in either arm: the ratio is not estimable (use RD or exclude the study).";
      }
      if (d.events1 === d.n1 && d.events2 === d.n2 && row.measure !== "RD") {
        return "All participants had the event in both arms: the ratio is not estimable.";
      }
      return null;
    case "means":
      if (d.sd1 <= 0 || d.sd2 <= 0) return "Standard deviations must be greater than 0.";
      if (d.n1 < 2 || d.n2 < 2) return "Each group needs at least 2 participants.";
      if (row.measure === "ROM" && (d.mean1 <= 0 || d.mean2 <= 0)) return "The ratio of means needs positive means.";
      return null;
    case "estimate-ci":
      if (isRatioMeasure(row.measure) && (d.estimate <= 0 || d.lower <= 0 || d.upper <= 0)) {
        return "Ratios and their confidence limits must be greater than 0.";
      }
      if (!(d.lower < d.upper)) return "The lower confidence limit must be below the upper one.";
      if (d.estimate < d.lower || d.estimate > d.upper) return "The estimate must lie inside its confidence interval.";
      return null;
    case "yi-vi":
      if (d.vi <= 0) return "The sampling variance must be greater than 0.";
      return null;
    case "estimate-se":
      if (d.se <= 0) return "The standard error must be greater than 0.";
      if (isRatioMeasure(row.measure) && d.scale !== "log" && d.estimate <= 0) return "Ratios must be greater than 0.";
      return null;
    case "rates":
      if (d.time1 <= 0 || d.time2 <= 0) return "Person-time must be greater than 0.";
      if (d.events1 === 0 && d.events2 === 0) return "No events in either arm: the rate ratio is not estimable.";
      return null;
    case "oe-var":
      if (d.v <= 0) return "The variance V must be greater than 0.";
      return null;
  }
}

/** The included rows that can be pooled, and the reasons the others cannot. */
export function readiness(rows: readonly DataRow[]): {
  ready: DataRow[];
  problems: { studyId: string; title: string; message: string }[];
} {
  const ready: DataRow[] = [];
  const problems: { studyId: string; title: string; message: string }[] = [];
  for (const row of rows) {
    if (!row.included) continue;
    const message = validateRow(row);
    if (message) problems.push({ studyId: row.studyId, title: row.title, message });
    else ready.push(row);
  }
  return { ready, problems };
}

/** The data sent to the server: the included rows without the page's own flag, outcomes trimmed. */
export function toExtractedData(rows: readonly DataRow[]): ExtractedStudyData[] {
  return rows
    .filter((r) => r.included)
    .map(({ included: _included, ...rest }) => {
      const row: ExtractedStudyData = { ...rest, outcome: rest.outcome.trim() };
      if (row.poolGroup !== undefined && !row.poolGroup.trim()) delete row.poolGroup;
      return row;
    });
}

/**
 * The quotes that support one value: those containing the number as written (e.g. "0.75", "120");
 * when none does, every quote of the row (the value came from them as a whole).
 */
export function quotesForValue(quotes: readonly SupportingQuote[], value: number): SupportingQuote[] {
  if (!isFiniteNumber(value)) return [...quotes];
  const forms = new Set([String(value), value.toFixed(1), value.toFixed(2)]);
  const hits = quotes.filter((q) =>
    [...forms].some((f) => new RegExp(`(^|[^0-9.])${f.replace(".", "\\.")}(?![0-9])`).test(q.quote)),
  );
  return hits.length > 0 ? hits : [...quotes];
}

export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 500;

/**
 * Validates the Save Report form (SPEC §5): the trimmed name is required ('Name required' /
 * 'Please enter a name for your report.'), at most 100 characters; the description at most 500.
 * Returns the toast to show, or null when valid.
 */
export function validateReportForm(name: string, description: string): { title: string; description: string } | null {
  const trimmed = name.trim();
  if (!trimmed) return { title: "Name required", description: "Please enter a name for your report." };
  if (trimmed.length > NAME_MAX)
    return { title: "Name too long", description: `Report names can be at most ${NAME_MAX} characters.` };
  if (description.trim().length > DESCRIPTION_MAX) {
    return { title: "Description too long", description: `Descriptions can be at most ${DESCRIPTION_MAX} characters.` };
  }
  return null;
}

/** Download name of the report (SPEC §9): metamind-analysis-report-{timestamp}.html, timestamp in ms. */
export function reportFileName(now: Date = new Date()): string {
  return `metamind-analysis-report-${now.getTime()}.html`;
}

/** Dated export file name, e.g. metamind-meta-analysis-2026-11-22.json. */
export function exportFileName(extension: "json" | "html", now: Date = new Date()): string {
  return `metamind-meta-analysis-${now.toISOString().slice(0, 10)}.${extension}`;
}

/** Format tag of the JSON export. */
export const EXPORT_FORMAT = "metamind.meta-analysis/v1";

/** The JSON export: everything needed to recompute the analyses (data, options, results). */
export interface MetaAnalysisExport {
  format: typeof EXPORT_FORMAT;
  exportedAt: string;
  engine: string;
  options: AnalysisOptions;
  studies: { id: string; title: string }[];
  data: ExtractedStudyData[];
  excluded: ExcludedStudy[];
  prisma: MetaAnalysisJobResult["prisma"];
  analyses: MetaAnalysisJobResult["analyses"];
  narrative: MetaAnalysisJobResult["narrative"];
  model: string;
}

/**
 * Builds the reproducible JSON export: the pooled data exactly as sent (measure and raw values of
 * each study, with quotes), the estimator and test, and the results on the analysis scale.
 * Non-finite numbers become null (JSON has no NaN).
 */
export function buildExport(
  result: MetaAnalysisJobResult,
  options: AnalysisOptions,
  now: Date = new Date(),
): MetaAnalysisExport {
  const studies = new Map<string, string>();
  for (const e of result.extracted) studies.set(e.studyId, e.title);
  for (const e of result.excluded) studies.set(e.studyId, e.title);
  return {
    format: EXPORT_FORMAT,
    exportedAt: now.toISOString(),
    engine: "MetaMind metafor-compatible engine",
    options,
    studies: [...studies].map(([id, title]) => ({ id, title })),
    data: result.extracted,
    excluded: result.excluded,
    prisma: result.prisma,
    analyses: result.analyses,
    narrative: result.narrative,
    model: result.model,
  };
}

/** JSON text of the export (NaN and ±Infinity written as null). */
export function exportJsonText(value: MetaAnalysisExport): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2);
}

/**
 * Where the meta-analysis page's back link leads: to the review it was opened from
 * (`?review={id}`, its Analysis tab), else to the search that selected the studies.
 */
export function backLink(reviewId: string | null, reviewTitle?: string | null): { to: string; label: string } {
  if (reviewId)
    return {
      to: `/reviews/${encodeURIComponent(reviewId)}?tab=analysis`,
      label: reviewTitle ? `Back to the review “${reviewTitle}”` : "Back to the review",
    };
  return { to: "/search", label: "Back to Search" };
}
