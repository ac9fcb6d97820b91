import { z } from "zod";
import { AppError } from "../http/errors";
import type { NormalisedStudy, StudyType } from "./types";
import {
  DATE_RANGES,
  JOURNAL_IMPACTS,
  STUDY_TYPE_FILTERS,
  type JournalImpact,
  type SearchFilters,
  type StudyTypeFilter,
} from "../../lib/search/types";

export {
  DATE_RANGES,
  JOURNAL_IMPACTS,
  STUDY_TYPE_FILTERS,
  type DateRange,
  type JournalImpact,
  type SearchFilters,
  type StudyTypeFilter,
} from "../../lib/search/types";

export const NO_FILTERS: SearchFilters = {
  dateRange: "any",
  dateFrom: null,
  dateTo: null,
  studyType: "all",
  journalImpact: "any",
  fullTextOnly: false,
  hasAbstract: false,
};

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date as YYYY-MM-DD")
  .refine(
    (v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v),
    "is not a real calendar date",
  );

const FilterParamsSchema = z.object({
  dateRange: z.enum(DATE_RANGES, { error: `dateRange must be one of ${DATE_RANGES.join(", ")}` }).default("any"),
  customDateFrom: isoDate.optional(),
  customDateTo: isoDate.optional(),
  studyType: z
    .enum(STUDY_TYPE_FILTERS, { error: `studyType must be one of ${STUDY_TYPE_FILTERS.join(", ")}` })
    .default("all"),
  journalImpact: z
    .enum(JOURNAL_IMPACTS, { error: `journalImpact must be one of ${JOURNAL_IMPACTS.join(", ")}` })
    .default("any"),
  fullTextOnly: z
    .enum(["all", "free_only", "true", "false"], { error: "fullTextOnly must be all or free_only" })
    .default("all"),
  hasAbstract: z
    .enum(["all", "required", "true", "false"], { error: "hasAbstract must be all or required" })
    .default("all"),
});

const FILTER_KEYS = [
  "dateRange",
  "customDateFrom",
  "customDateTo",
  "studyType",
  "journalImpact",
  "fullTextOnly",
  "hasAbstract",
] as const;

function shiftYears(today: Date, years: number): string {
  const d = new Date(Date.UTC(today.getUTCFullYear() - years, today.getUTCMonth(), today.getUTCDate()));
  return d.toISOString().slice(0, 10);
}

/**
 * Reads and validates the filter parameters of SPEC §3 from a query string. Empty values count
 * as absent. `fullTextOnly`/`hasAbstract` also accept true/false.
 *
 * @param today the reference date for relative ranges (last_year = the 12 months up to today).
 * @throws AppError 400 INVALID_FILTER with a readable message (unknown value, bad date,
 *   custom range without dates, customDateFrom after customDateTo).
 */
export function parseFilters(params: URLSearchParams, today: Date): SearchFilters {
  const raw = Object.fromEntries(
    FILTER_KEYS.filter((k) => (params.get(k) ?? "").trim() !== "").map((k) => [k, params.get(k)!.trim()]),
  );
  const parsed = FilterParamsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = String(issue.path[0] ?? "");
    const message = issue.message.startsWith(field) ? issue.message : `${field} ${issue.message}`;
    throw new AppError("INVALID_FILTER", message, 400);
  }
  const p = parsed.data;
  const todayIso = today.toISOString().slice(0, 10);
  let dateFrom: string | null = null;
  let dateTo: string | null = null;
  switch (p.dateRange) {
    case "last_year":
      dateFrom = shiftYears(today, 1);
      dateTo = todayIso;
      break;
    case "last_5_years":
      dateFrom = shiftYears(today, 5);
      dateTo = todayIso;
      break;
    case "last_10_years":
      dateFrom = shiftYears(today, 10);
      dateTo = todayIso;
      break;
    case "custom":
      if (!p.customDateFrom && !p.customDateTo) {
        throw new AppError("INVALID_FILTER", "A custom date range needs customDateFrom or customDateTo", 400);
      }
      dateFrom = p.customDateFrom ?? null;
      dateTo = p.customDateTo ?? null;
      if (dateFrom && dateTo && dateFrom > dateTo) {
        throw new AppError("INVALID_FILTER", "customDateFrom must not be after customDateTo", 400);
      }
      break;
    case "any":
      break;
  }
  return {
    dateRange: p.dateRange,
    dateFrom,
    dateTo,
    studyType: p.studyType,
    journalImpact: p.journalImpact,
    fullTextOnly: p.fullTextOnly === "free_only" || p.fullTextOnly === "true",
    hasAbstract: p.hasAbstract === "required" || p.hasAbstract === "true",
  };
}

/** The spec classification (SPEC §3 Study.studyType) each studyType filter value keeps. */
export const STUDY_TYPE_FILTER_LABELS: Record<Exclude<StudyTypeFilter, "all">, StudyType> = {
  clinical_trial: "Clinical Trial",
  meta_analysis: "Meta-Analysis",
  systematic_review: "Systematic Review",
  observational: "Observational Study",
};

/**
 * The calendar span an ISO date prefix covers, as inclusive YYYY-MM-DD bounds: "2021" →
 * 2021-01-01…2021-12-31, "2021-06" → 2021-06-01…2021-06-30, "2021-06-15" → that day.
 * Null for anything else.
 */
function dateSpan(date: string | null): { start: string; end: string } | null {
  const m = date === null ? null : /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(date);
  if (!m) return null;
  const [, year, month, day] = m;
  if (day) return { start: date!, end: date! };
  if (month) {
    const last = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate();
    return { start: `${year}-${month}-01`, end: `${year}-${month}-${String(last).padStart(2, "0")}` };
  }
  return { start: `${year}-01-01`, end: `${year}-12-31` };
}

function inDateWindow(study: NormalisedStudy, from: string | null, to: string | null): boolean {
  const span = dateSpan(study.publicationDate);
  if (!span) return false;
  return (from === null || span.end >= from) && (to === null || span.start <= to);
}

function matchesImpact(impactFactor: number | null, impact: JournalImpact): boolean {
  if (impact === "any") return true;
  if (impactFactor === null || !Number.isFinite(impactFactor)) return false;
  if (impact === "high") return impactFactor > 10;
  if (impact === "medium") return impactFactor >= 5 && impactFactor <= 10;
  return impactFactor < 5;
}

/**
 * Applies every filter to normalised studies so that a filter means the same whatever the
 * source, including what a provider's query language could not express. Returns a new array in
 * the input order.
 *
 * - date window (dateFrom/dateTo, inclusive, either may be open): a study is kept when the span
 *   of its publicationDate overlaps the window, so "2021" or "2021-06" count as the whole year or
 *   month; a missing or unreadable date is dropped whenever a bound is set.
 * - studyType: `study.studyType` must equal {@link STUDY_TYPE_FILTER_LABELS}[filter].
 * - journalImpact (SPEC §9): high > 10, medium 5–10 inclusive, low < 5; an unknown impactFactor
 *   (null) is dropped for anything but "any".
 * - fullTextOnly: isOpenAccess and a non-empty openAccessUrl.
 * - hasAbstract (SPEC §5): the abstract with whitespace collapsed is longer than 10 characters.
 * Absent filters (as in ProviderSearchParams) mean {@link NO_FILTERS}.
 */
export function applyPostFilters(studies: NormalisedStudy[], filters: SearchFilters = NO_FILTERS): NormalisedStudy[] {
  const wantedType = filters.studyType === "all" ? null : STUDY_TYPE_FILTER_LABELS[filters.studyType];
  const windowed = filters.dateFrom !== null || filters.dateTo !== null;
  return studies.filter(
    (study) =>
      (!windowed || inDateWindow(study, filters.dateFrom, filters.dateTo)) &&
      (wantedType === null || study.studyType === wantedType) &&
      matchesImpact(study.impactFactor, filters.journalImpact) &&
      (!filters.fullTextOnly || (study.isOpenAccess && (study.openAccessUrl ?? "").trim() !== "")) &&
      (!filters.hasAbstract || (study.abstract ?? "").replace(/\s+/g, " ").trim().length > 10),
  );
}
