import { and, desc, eq, notInArray, sql } from "drizzle-orm";
import { z } from "zod";
import { savedSearches, searchHistory } from "../../../db/schema";
import type { Database } from "../db/client";
import { AppError, parseInput } from "../http/errors";
import { getUserSettings } from "../settings/queries";
import { DATE_RANGES, JOURNAL_IMPACTS, STUDY_TYPE_FILTERS, type SearchFilters } from "./filters";
import { PROVIDER_IDS } from "./types";

/**
 * Per-user search history (SPEC §3 Search history entry) and saved searches (SPEC §3 Saved
 * search). Filters are kept in the search request's own vocabulary (dateRange, studyType,
 * journalImpact, fullTextOnly=all|free_only, hasAbstract=all|required, customDateFrom/To …) so a
 * client can reload an entry straight into the search form.
 */

/** Newest history entries kept per user; older ones are deleted when a search is recorded. */
export const MAX_HISTORY_ENTRIES = 200;
/** Saved searches a user may keep. */
export const MAX_SAVED_SEARCHES = 100;
const MAX_NAME_LENGTH = 100;
/** The same cap as a search query (service.ts MAX_QUERY_LENGTH). */
const MAX_QUERY_LENGTH = 500;

type Deps = { db: Database };

/** One database's outcome in a search, as stored in history (PRISMA "identified" = totalCount). */
export interface ProviderCount {
  status: string;
  count: number;
  totalCount: number;
}

/** History filters: the four SPEC fields are always present; anything else stored is kept. */
export interface HistoryFilters {
  dateRange: string;
  studyType: string;
  journalImpact: string;
  fullTextOnly: string;
  [key: string]: unknown;
}

/** SPEC §3 Search history entry plus the databases searched and their counts. */
export interface SearchHistoryEntry {
  id: number;
  query: string;
  filters: HistoryFilters;
  providers: string[];
  /** Records the user retrieved (all pages they opened, after de-duplication). */
  resultCount: number;
  /** Records the databases report for the query (sum of each database's totalCount). */
  databaseTotal: number;
  providerCounts: Record<string, ProviderCount>;
  duplicatesRemoved: number;
  createdAt: string;
}

/** JSON with sorted keys, so two filter objects compare by value. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Sum of the databases' reported totals (PRISMA "identified"), or `fallback` when none is known. */
function databaseTotalOf(counts: Record<string, ProviderCount>, fallback: number): number {
  const values = Object.values(counts);
  return values.length
    ? values.reduce((sum, c) => sum + (Number.isFinite(c.totalCount) ? c.totalCount : 0), 0)
    : fallback;
}

/**
 * Brings filters to the request vocabulary: fills the SPEC defaults, turns boolean
 * fullTextOnly/hasAbstract into all|free_only and all|required, and replaces the resolved window
 * of a parsed filter object (dateFrom/dateTo) by customDateFrom/customDateTo for custom ranges
 * (relative ranges are re-resolved from dateRange when reloaded). Idempotent.
 */
export function toHistoryFilters(raw: Record<string, unknown>): HistoryFilters {
  const { dateFrom, dateTo, ...rest } = raw;
  const out: HistoryFilters = {
    dateRange: "any",
    studyType: "all",
    journalImpact: "any",
    fullTextOnly: "all",
    ...rest,
  };
  if (typeof out.fullTextOnly === "boolean") out.fullTextOnly = out.fullTextOnly ? "free_only" : "all";
  if (typeof out.hasAbstract === "boolean") out.hasAbstract = out.hasAbstract ? "required" : "all";
  if (out.dateRange === "custom") {
    if (typeof dateFrom === "string" && out.customDateFrom === undefined) out.customDateFrom = dateFrom;
    if (typeof dateTo === "string" && out.customDateTo === undefined) out.customDateTo = dateTo;
  }
  return out;
}

function toProviderCounts(raw: Partial<Record<string, ProviderCount>>): Record<string, ProviderCount> {
  const out: Record<string, ProviderCount> = {};
  for (const [provider, value] of Object.entries(raw)) {
    if (value) out[provider] = { status: value.status, count: value.count, totalCount: value.totalCount };
  }
  return out;
}

/**
 * Records a search in the user's history when their saveSearchHistory setting is on (the
 * default), and in the same batch deletes all but the newest {@link MAX_HISTORY_ENTRIES} entries.
 * One entry per search: when the user's newest entry has the same query, databases and filters
 * (the user paging through it, or re-running it), that entry is updated instead — its
 * resultCount becomes the larger of the two (records retrieved so far) and its counts the latest.
 * Provider reports may carry extra fields (timings, errors); only status and counts are stored.
 * Meant to run after the response, inside `waitUntil`.
 *
 * @returns whether an entry was stored or updated.
 * @throws the database error, for the caller to log.
 */
export async function recordSearch(
  { db }: Deps,
  input: {
    userId: string;
    query: string;
    /** Raw request filters or the parsed {@link SearchFilters}; stored via toHistoryFilters. */
    filters: Record<string, unknown> | SearchFilters;
    providers: readonly string[];
    resultCount: number;
    providerCounts: Partial<Record<string, ProviderCount>>;
    duplicatesRemoved: number;
  },
): Promise<boolean> {
  const settings = await getUserSettings({ db }, { userId: input.userId });
  if (!settings.saveSearchHistory) return false;
  const filters = toHistoryFilters({ ...input.filters });
  const providerCounts = toProviderCounts(input.providerCounts);
  const [latest] = await db
    .select({
      id: searchHistory.id,
      query: searchHistory.query,
      filters: searchHistory.filters,
      providers: searchHistory.providers,
      resultCount: searchHistory.resultCount,
    })
    .from(searchHistory)
    .where(eq(searchHistory.userId, input.userId))
    .orderBy(desc(searchHistory.createdAt), desc(searchHistory.id))
    .limit(1);
  if (
    latest &&
    latest.query === input.query &&
    canonical(latest.providers) === canonical([...input.providers]) &&
    canonical(toHistoryFilters(latest.filters)) === canonical(filters)
  ) {
    await db
      .update(searchHistory)
      .set({
        resultCount: sql`max(${searchHistory.resultCount}, ${input.resultCount})`,
        providerCounts,
        duplicatesRemoved: input.duplicatesRemoved,
      })
      .where(and(eq(searchHistory.id, latest.id), eq(searchHistory.userId, input.userId)));
    return true;
  }
  const newest = db
    .select({ id: searchHistory.id })
    .from(searchHistory)
    .where(eq(searchHistory.userId, input.userId))
    .orderBy(desc(searchHistory.createdAt), desc(searchHistory.id))
    .limit(MAX_HISTORY_ENTRIES);
  await db.batch([
    db.insert(searchHistory).values({
      userId: input.userId,
      query: input.query,
      filters,
      providers: [...input.providers],
      resultCount: input.resultCount,
      providerCounts,
      duplicatesRemoved: input.duplicatesRemoved,
    }),
    db.delete(searchHistory).where(and(eq(searchHistory.userId, input.userId), notInArray(searchHistory.id, newest))),
  ]);
  return true;
}

/** The user's history, newest first, at most `limit` entries (1–200, default 50). */
export async function listSearchHistory(
  { db }: Deps,
  { userId, limit = 50 }: { userId: string; limit?: number },
): Promise<SearchHistoryEntry[]> {
  const rows = await db
    .select()
    .from(searchHistory)
    .where(eq(searchHistory.userId, userId))
    .orderBy(desc(searchHistory.createdAt), desc(searchHistory.id))
    .limit(Math.min(Math.max(Math.trunc(limit), 1), MAX_HISTORY_ENTRIES));
  return rows.map((row) => ({
    id: row.id,
    query: row.query,
    filters: toHistoryFilters(row.filters),
    providers: row.providers,
    resultCount: row.resultCount,
    databaseTotal: databaseTotalOf(row.providerCounts, row.resultCount),
    providerCounts: row.providerCounts,
    duplicatesRemoved: row.duplicatesRemoved,
    createdAt: new Date(row.createdAt).toISOString(),
  }));
}

/** Deletes the user's whole history. */
export async function clearSearchHistory(
  { db }: Deps,
  { userId }: { userId: string },
): Promise<{ deletedCount: number }> {
  const result = await db.delete(searchHistory).where(eq(searchHistory.userId, userId));
  return { deletedCount: result.meta.changes };
}

// ---------------------------------------------------------------------------------------------
// Saved searches

const isoDate = z
  .string({ error: "Must be a date as YYYY-MM-DD" })
  .regex(/^\d{4}-\d{2}-\d{2}$/, "Must be a date as YYYY-MM-DD")
  .refine((v) => new Date(`${v}T00:00:00Z`).toISOString().startsWith(v), "Is not a real calendar date");

/** An empty or null date field (an unset date input) counts as absent. */
const optionalDate = z.preprocess((v) => (v === "" || v === null ? undefined : v), isoDate.optional());

const oneOf = (values: readonly string[]) => ({ error: `Must be one of: ${values.join(", ")}` });

/** The search parameters a saved search re-runs with (SPEC §3 Search parameters, §9 values). */
export const SavedSearchFiltersSchema = z
  .strictObject(
    {
      dateRange: z.enum(DATE_RANGES, oneOf(DATE_RANGES)).optional(),
      studyType: z.enum(STUDY_TYPE_FILTERS, oneOf(STUDY_TYPE_FILTERS)).optional(),
      journalImpact: z.enum(JOURNAL_IMPACTS, oneOf(JOURNAL_IMPACTS)).optional(),
      fullTextOnly: z
        .union([z.enum(["all", "free_only"]), z.boolean()], oneOf(["all", "free_only"]))
        .transform((v) => (typeof v === "boolean" ? (v ? "free_only" : "all") : v))
        .optional(),
      hasAbstract: z
        .union([z.enum(["all", "required"]), z.boolean()], oneOf(["all", "required"]))
        .transform((v) => (typeof v === "boolean" ? (v ? "required" : "all") : v))
        .optional(),
      customDateFrom: optionalDate,
      customDateTo: optionalDate,
      searchProviders: z
        .array(z.enum(PROVIDER_IDS, oneOf(PROVIDER_IDS)), { error: "Must be a list of database ids" })
        .min(1, "No search providers selected")
        .max(PROVIDER_IDS.length, `At most ${PROVIDER_IDS.length} databases`)
        .transform((ids) => [...new Set(ids)])
        .optional(),
      limit: z
        .number({ error: "Must be a whole number from 1 to 500" })
        .int("Must be a whole number from 1 to 500")
        .min(1, "Must be a whole number from 1 to 500")
        .max(500, "Must be a whole number from 1 to 500")
        .optional(),
      smartSearch: z.boolean({ error: "Must be true or false" }).optional(),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `Unknown filter ${issue.keys.map((k) => `'${k}'`).join(", ")}`
          : issue.code === "invalid_type"
            ? "Filters must be an object"
            : undefined,
    },
  )
  .superRefine((f, ctx) => {
    if (f.dateRange === "custom" && !f.customDateFrom && !f.customDateTo) {
      ctx.addIssue({
        code: "custom",
        path: ["dateRange"],
        message: "A custom date range needs customDateFrom or customDateTo",
      });
    }
    if (f.customDateFrom && f.customDateTo && f.customDateFrom > f.customDateTo) {
      ctx.addIssue({
        code: "custom",
        path: ["customDateFrom"],
        message: "customDateFrom must not be after customDateTo",
      });
    }
  });

/** POST /api/saved-searches body. Absent or null filters mean "no filters". */
export const SavedSearchInputSchema = z.object({
  name: z
    .string({ error: "Name required" })
    .trim()
    .min(1, "Name required")
    .max(MAX_NAME_LENGTH, `Name must be at most ${MAX_NAME_LENGTH} characters`),
  query: z
    .string({ error: "Query is required" })
    .trim()
    .min(1, "Query is required")
    .max(MAX_QUERY_LENGTH, `Query must be at most ${MAX_QUERY_LENGTH} characters`),
  filters: z.preprocess((v) => v ?? {}, SavedSearchFiltersSchema),
});

export type SavedSearchInput = z.input<typeof SavedSearchInputSchema>;

/** SPEC §3 Saved search plus the filters it runs with. */
export interface SavedSearch {
  id: number;
  name: string;
  query: string;
  filters: Record<string, unknown>;
  createdAt: string;
}

/** Parses a saved-search id path segment: a positive integer, else 400 INVALID_SAVED_SEARCH_ID. */
export function parseSavedSearchId(raw: string | undefined): number {
  const parsed = z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number)
    .pipe(z.number().int().min(1))
    .safeParse(raw);
  if (!parsed.success) {
    throw new AppError("INVALID_SAVED_SEARCH_ID", "Saved search id must be a positive whole number", 400);
  }
  return parsed.data;
}

/** The user's saved searches, newest first. */
export async function listSavedSearches({ db }: Deps, { userId }: { userId: string }): Promise<SavedSearch[]> {
  const rows = await db
    .select()
    .from(savedSearches)
    .where(eq(savedSearches.userId, userId))
    .orderBy(desc(savedSearches.createdAt), desc(savedSearches.id));
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    query: row.query,
    filters: row.filters,
    createdAt: new Date(row.createdAt).toISOString(),
  }));
}

/**
 * Saves a named search. Input is validated with {@link SavedSearchInputSchema} here, so every
 * caller gets the same rules. The cap is checked in the INSERT itself, so concurrent requests
 * cannot push a user past it.
 *
 * @throws AppError 400 INVALID_INPUT; 409 LIMIT_REACHED at {@link MAX_SAVED_SEARCHES}.
 */
export async function createSavedSearch(
  { db }: Deps,
  { userId, ...input }: { userId: string } & SavedSearchInput,
): Promise<SavedSearch> {
  const { name, query, filters } = parseInput(SavedSearchInputSchema, input);
  const row = await db.get<{ id: number; createdAt: number } | undefined>(sql`
    INSERT INTO saved_searches (user_id, name, query, filters)
    SELECT ${userId}, ${name}, ${query}, ${JSON.stringify(filters)}
    WHERE (SELECT count(*) FROM saved_searches WHERE user_id = ${userId}) < ${MAX_SAVED_SEARCHES}
    RETURNING id, created_at AS createdAt`);
  if (!row) {
    throw new AppError(
      "LIMIT_REACHED",
      `You can keep at most ${MAX_SAVED_SEARCHES} saved searches. Delete one to save another.`,
      409,
      { limit: MAX_SAVED_SEARCHES },
    );
  }
  return { id: row.id, name, query, filters, createdAt: new Date(row.createdAt).toISOString() };
}

/**
 * Deletes one of the user's saved searches.
 * @throws AppError 404 SAVED_SEARCH_NOT_FOUND when the id is unknown or belongs to someone else
 *   (the same answer either way, so ids of other users' searches are not revealed).
 */
export async function deleteSavedSearch({ db }: Deps, { userId, id }: { userId: string; id: number }): Promise<void> {
  const deleted = await db
    .delete(savedSearches)
    .where(and(eq(savedSearches.id, id), eq(savedSearches.userId, userId)))
    .returning({ id: savedSearches.id });
  if (deleted.length === 0) {
    throw new AppError("SAVED_SEARCH_NOT_FOUND", "Saved search not found", 404);
  }
}
