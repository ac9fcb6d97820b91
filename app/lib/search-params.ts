import type { DateRange, JournalImpact, ProviderId, StudyTypeFilter } from "./search/types";

/**
 * The search form as the browser holds it (SPEC §3 Search parameters, §9 constants), and its
 * translations: to /api/search parameters, to and from the /search page URL, and to the filter
 * badges shown in history.
 */

export type { DateRange, JournalImpact, ProviderId, StudyTypeFilter };

/**
 * Header the search page's own fetch of GET /api/search sends; only such searches go to the
 * user's search history. A cross-site link, image or form cannot send a custom header, and a
 * cross-site fetch that tries needs a CORS preflight the Worker never approves.
 */
export const SEARCH_PAGE_HEADER = "X-MetaMind-Search";
export const SEARCH_PAGE_HEADER_VALUE = "search-page";

export const PROVIDER_IDS = [
  "pubmed",
  "crossref",
  "europepmc",
  "core",
  "semanticscholar",
  "doaj",
] as const satisfies readonly ProviderId[];

/**
 * Display names of the six databases (also re-exported by ~/lib/format); kept here, beside the
 * ids, so the search page's first paint does not load the formatting helpers (issue 17).
 */
export const PROVIDER_LABELS: Record<string, string> = {
  pubmed: "PubMed",
  crossref: "Crossref",
  europepmc: "Europe PMC",
  core: "CORE",
  semanticscholar: "Semantic Scholar",
  doaj: "DOAJ",
};

export const RESULT_LIMITS = [25, 50, 100, 500] as const;
export type ResultLimit = (typeof RESULT_LIMITS)[number];
export type FullTextOption = "all" | "free_only";
export type AbstractOption = "all" | "required";

export interface SearchFormState {
  query: string;
  /** Databases to search; an empty list falls back to PubMed when sent (SPEC §5). */
  providers: ProviderId[];
  limit: ResultLimit;
  dateRange: DateRange;
  /** YYYY-MM-DD, or "" when unset; only used when dateRange is "custom". */
  customDateFrom: string;
  customDateTo: string;
  studyType: StudyTypeFilter;
  journalImpact: JournalImpact;
  fullTextOnly: FullTextOption;
  hasAbstract: AbstractOption;
  smartSearch: boolean;
}

export const DEFAULT_SEARCH_FORM: SearchFormState = {
  query: "",
  providers: ["pubmed"],
  limit: 25,
  dateRange: "any",
  customDateFrom: "",
  customDateTo: "",
  studyType: "all",
  journalImpact: "any",
  fullTextOnly: "all",
  hasAbstract: "all",
  smartSearch: false,
};

export interface Option<T extends string | number> {
  value: T;
  label: string;
}

export const DATE_RANGE_OPTIONS: Option<DateRange>[] = [
  { value: "any", label: "Any time" },
  { value: "last_year", label: "Last year" },
  { value: "last_5_years", label: "Last 5 years" },
  { value: "last_10_years", label: "Last 10 years" },
  { value: "custom", label: "Custom range" },
];

export const STUDY_TYPE_OPTIONS: Option<StudyTypeFilter>[] = [
  { value: "all", label: "All study types" },
  { value: "clinical_trial", label: "Clinical trial" },
  { value: "meta_analysis", label: "Meta-analysis" },
  { value: "systematic_review", label: "Systematic review" },
  { value: "observational", label: "Observational study" },
];

export const JOURNAL_IMPACT_OPTIONS: Option<JournalImpact>[] = [
  { value: "any", label: "Any" },
  { value: "high", label: "High (> 10)" },
  { value: "medium", label: "Medium (5–10)" },
  { value: "low", label: "Low (< 5)" },
];

export const FULL_TEXT_OPTIONS: Option<FullTextOption>[] = [
  { value: "all", label: "All" },
  { value: "free_only", label: "Free full text only" },
];

export const ABSTRACT_OPTIONS: Option<AbstractOption>[] = [
  { value: "all", label: "All" },
  { value: "required", label: "Has abstract" },
];

export const LIMIT_OPTIONS: Option<ResultLimit>[] = [
  { value: 25, label: "25" },
  { value: 50, label: "50" },
  { value: 100, label: "100" },
  { value: 500, label: "All available" },
];

const IMPACT_BADGES: Record<Exclude<JournalImpact, "any">, string> = {
  high: "Impact > 10",
  medium: "Impact 5–10",
  low: "Impact < 5",
};

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function oneOf<T extends string | number>(options: readonly Option<T>[], raw: unknown): T | undefined {
  return options.find((o) => String(o.value) === String(raw))?.value;
}

function isProviderId(value: string): value is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(value);
}

/** Known database ids from a list or comma list, de-duplicated, in canonical order. */
export function parseProviders(raw: unknown): ProviderId[] {
  const items = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(",") : [];
  const wanted = new Set(items.map((v) => String(v).trim().toLowerCase()).filter(isProviderId));
  return PROVIDER_IDS.filter((id) => wanted.has(id));
}

function flag(raw: unknown, on: string): boolean | undefined {
  if (raw === true || raw === on || raw === "true") return true;
  if (raw === false || raw === "all" || raw === "false") return false;
  return undefined;
}

/**
 * Reads the form fields from loosely typed input (a URL, a stored object, a history entry's
 * filters). Unknown or invalid values are left out, so the result can be spread over defaults.
 */
export function sanitizeFormFields(raw: Record<string, unknown>): Partial<SearchFormState> {
  const out: Partial<SearchFormState> = {};
  if (typeof raw.query === "string") out.query = raw.query;
  const providers = parseProviders(raw.providers);
  if (providers.length > 0) out.providers = providers;
  const limit = oneOf(LIMIT_OPTIONS, raw.limit);
  if (limit !== undefined) out.limit = limit;
  const dateRange = oneOf(DATE_RANGE_OPTIONS, raw.dateRange);
  if (dateRange !== undefined) out.dateRange = dateRange;
  for (const key of ["customDateFrom", "customDateTo"] as const) {
    const value = raw[key];
    if (typeof value === "string" && (value === "" || ISO_DATE.test(value))) out[key] = value;
  }
  const studyType = oneOf(STUDY_TYPE_OPTIONS, raw.studyType);
  if (studyType !== undefined) out.studyType = studyType;
  const journalImpact = oneOf(JOURNAL_IMPACT_OPTIONS, raw.journalImpact);
  if (journalImpact !== undefined) out.journalImpact = journalImpact;
  const freeOnly = flag(raw.fullTextOnly, "free_only");
  if (freeOnly !== undefined) out.fullTextOnly = freeOnly ? "free_only" : "all";
  const abstractRequired = flag(raw.hasAbstract, "required");
  if (abstractRequired !== undefined) out.hasAbstract = abstractRequired ? "required" : "all";
  if (typeof raw.smartSearch === "boolean") out.smartSearch = raw.smartSearch;
  return out;
}

/** A full form state from loosely typed input, defaults filling the gaps. */
export function toFormState(raw: Record<string, unknown>): SearchFormState {
  return { ...DEFAULT_SEARCH_FORM, ...sanitizeFormFields(raw) };
}

/** The databases a search will use: the selection, or PubMed when nothing is selected. */
export function effectiveProviders(state: Pick<SearchFormState, "providers">): ProviderId[] {
  const providers = parseProviders(state.providers);
  return providers.length > 0 ? providers : ["pubmed"];
}

/** 'Start date must be before end date' when a custom range is inverted, else null. */
export function customRangeError(
  state: Pick<SearchFormState, "dateRange" | "customDateFrom" | "customDateTo">,
): string | null {
  const { dateRange, customDateFrom: from, customDateTo: to } = state;
  if (dateRange === "custom" && from && to && from > to) return "Start date must be before end date";
  return null;
}

/** The filter parameters shared by the API and page URLs, defaults and empties omitted. */
function filterEntries(state: SearchFormState): [string, string][] {
  const entries: [string, string][] = [];
  if (state.dateRange === "custom") {
    if (state.customDateFrom || state.customDateTo) {
      entries.push(["dateRange", "custom"]);
      if (state.customDateFrom) entries.push(["customDateFrom", state.customDateFrom]);
      if (state.customDateTo) entries.push(["customDateTo", state.customDateTo]);
    }
  } else if (state.dateRange !== "any") {
    entries.push(["dateRange", state.dateRange]);
  }
  if (state.studyType !== "all") entries.push(["studyType", state.studyType]);
  if (state.journalImpact !== "any") entries.push(["journalImpact", state.journalImpact]);
  if (state.fullTextOnly !== "all") entries.push(["fullTextOnly", state.fullTextOnly]);
  if (state.hasAbstract !== "all") entries.push(["hasAbstract", state.hasAbstract]);
  return entries;
}

/**
 * GET /api/search parameters: q, page, limit and searchProviders always; filters only when they
 * narrow the search (a custom range with no dates counts as none).
 */
export function toApiParams(state: SearchFormState, page: number): URLSearchParams {
  const params = new URLSearchParams({
    q: state.query.trim(),
    page: String(Math.max(1, Math.trunc(page) || 1)),
    limit: String(state.limit),
    searchProviders: effectiveProviders(state).join(","),
  });
  for (const [key, value] of filterEntries(state)) params.set(key, value);
  return params;
}

/** "/search?q=…&db=…" for the address bar: page and limit only when not the defaults. */
export function toPageUrl(state: SearchFormState, page: number): string {
  const params = new URLSearchParams({ q: state.query.trim(), db: effectiveProviders(state).join(",") });
  if (page > 1) params.set("page", String(Math.trunc(page)));
  if (state.limit !== DEFAULT_SEARCH_FORM.limit) params.set("limit", String(state.limit));
  for (const [key, value] of filterEntries(state)) params.set(key, value);
  return `/search?${params}`;
}

const URL_FILTER_NAMES = [
  "limit",
  "dateRange",
  "customDateFrom",
  "customDateTo",
  "studyType",
  "journalImpact",
  "fullTextOnly",
  "hasAbstract",
] as const;

/** The form fields present and valid in a /search page URL (q, db, limit and the filters). */
export function fromUrl(params: URLSearchParams): Partial<SearchFormState> {
  const raw: Record<string, unknown> = {};
  for (const name of URL_FILTER_NAMES) {
    const value = params.get(name);
    if (value !== null && value.trim() !== "") raw[name] = value.trim();
  }
  const q = params.get("q");
  if (q !== null) raw.query = q;
  const db = params.get("db") ?? params.get("searchProviders");
  if (db !== null) raw.providers = db;
  return sanitizeFormFields(raw);
}

/** The 1-based page in a /search page URL (1 when absent or invalid). */
export function pageFromUrl(params: URLSearchParams): number {
  const page = Number(params.get("page") ?? "1");
  return Number.isInteger(page) && page > 0 ? page : 1;
}

/** Filters as the history and saved-search APIs return them; values are read leniently. */
export interface StoredSearchFilters {
  dateRange?: string | null;
  studyType?: string | null;
  journalImpact?: string | null;
  fullTextOnly?: string | boolean | null;
  hasAbstract?: string | boolean | null;
  customDateFrom?: string | null;
  customDateTo?: string | null;
  limit?: number | string | null;
  searchProviders?: string[] | null;
}

const FILTER_DEFAULTS = {
  dateRange: DEFAULT_SEARCH_FORM.dateRange,
  customDateFrom: DEFAULT_SEARCH_FORM.customDateFrom,
  customDateTo: DEFAULT_SEARCH_FORM.customDateTo,
  studyType: DEFAULT_SEARCH_FORM.studyType,
  journalImpact: DEFAULT_SEARCH_FORM.journalImpact,
  fullTextOnly: DEFAULT_SEARCH_FORM.fullTextOnly,
  hasAbstract: DEFAULT_SEARCH_FORM.hasAbstract,
} satisfies Partial<SearchFormState>;

/**
 * Form fields to reload a history entry or run a saved search (SPEC §4): the query and every
 * filter are replaced (absent filters reset to their defaults); databases and result count only
 * when the entry records them.
 */
export function formFromStoredSearch(search: {
  query: string;
  filters?: StoredSearchFilters | null;
  providers?: string[] | null;
}): Partial<SearchFormState> {
  const { searchProviders, ...filters } = search.filters ?? {};
  const stored = sanitizeFormFields({ ...filters, providers: search.providers ?? searchProviders });
  delete stored.smartSearch;
  return { ...FILTER_DEFAULTS, ...stored, query: search.query };
}

/** The filters of a form, in the shape POST /api/saved-searches stores. */
export function toStoredFilters(state: SearchFormState): Required<StoredSearchFilters> {
  return {
    dateRange: state.dateRange,
    studyType: state.studyType,
    journalImpact: state.journalImpact,
    fullTextOnly: state.fullTextOnly,
    hasAbstract: state.hasAbstract,
    customDateFrom: state.dateRange === "custom" && state.customDateFrom ? state.customDateFrom : null,
    customDateTo: state.dateRange === "custom" && state.customDateTo ? state.customDateTo : null,
    limit: state.limit,
    searchProviders: effectiveProviders(state),
  };
}

/**
 * Human labels for the filters that narrow a search, e.g. ['Last 5 years', 'Meta-analysis',
 * 'Impact > 10', 'Free full text', 'Has abstract'], plus the result count when not the default.
 */
export function activeFilterBadges(filters: StoredSearchFilters | Partial<SearchFormState>): string[] {
  const f = toFormState(filters as Record<string, unknown>);
  const badges: string[] = [];
  if (f.dateRange === "custom") {
    const from = f.customDateFrom;
    const to = f.customDateTo;
    if (from && to) badges.push(`From ${from} to ${to}`);
    else if (from) badges.push(`From ${from}`);
    else if (to) badges.push(`Until ${to}`);
  } else if (f.dateRange !== "any") {
    badges.push(DATE_RANGE_OPTIONS.find((o) => o.value === f.dateRange)!.label);
  }
  if (f.studyType !== "all") badges.push(STUDY_TYPE_OPTIONS.find((o) => o.value === f.studyType)!.label);
  if (f.journalImpact !== "any") badges.push(IMPACT_BADGES[f.journalImpact]);
  if (f.fullTextOnly === "free_only") badges.push("Free full text");
  if (f.hasAbstract === "required") badges.push("Has abstract");
  if (f.limit === 500) badges.push("All available");
  else if (f.limit !== DEFAULT_SEARCH_FORM.limit) badges.push(`${f.limit} results`);
  return badges;
}

/** Display names of database ids, unknown ids as given. */
export function providerNames(providers: readonly string[]): string[] {
  return providers.map((id) => PROVIDER_LABELS[id] ?? id);
}
