import { z } from "zod";
import type { StudyRow, UserRow } from "../../../db/schema";
import type { AppServices } from "../context";
import type { AppEnv, Bindings } from "../env";
import { AppError } from "../http/errors";
import { rememberShownStudies } from "../studies/ensure";
import { sealStudies } from "../studies/seal";
import { enrichRow, lookupStoredStudies, readSession, rowFromRecord } from "../studies/lookup";
import { toApiStudy, type ApiStudy, type StoredSummary } from "../studies/queries";
import {
  cachedAnswer,
  readSearchCache,
  searchCacheKey,
  writeSearchCache,
  type CachedSearch,
  type CachedSearchParams,
} from "./cache";
import { dedupeWithMembers } from "./dedupe";
import { fanOutSearch, type ProviderOutcome, type ProviderReport } from "./fan-out";
import { applyPostFilters, parseFilters, type SearchFilters } from "./filters";
import { recordSearch } from "./history";
import { SEARCH_PAGE_HEADER, SEARCH_PAGE_HEADER_VALUE } from "../../lib/search-params";
import { PROVIDERS } from "./providers";
import { PROVIDER_IDS, type ProviderDeps, type ProviderId, type ProviderResult } from "./types";
import type { ProviderEvent, SearchResponse } from "../../lib/search/types";

/** Deepest record each API lets a client page to (documented API limits). */
const PAGING_CAP: Record<ProviderId, number> = {
  pubmed: 10_000,
  crossref: 10_000,
  europepmc: 10_000,
  core: 10_000,
  semanticscholar: 1_000,
  doaj: 1_000,
};

export const MAX_QUERY_LENGTH = 500;

const intParam = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === "") return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: "custom", message: `${name} must be a whole number from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    });

/** GET /api/search query parameters (SPEC §3 Search parameters, §5 Search rules). */
export const SearchQuerySchema = z.object({
  q: z
    .string({ error: "Query is required" })
    .transform((v) => v.replace(/\s+/g, " ").trim())
    .pipe(
      z
        .string()
        .min(1, "Query is required")
        .max(MAX_QUERY_LENGTH, `Query must be at most ${MAX_QUERY_LENGTH} characters`),
    ),
  page: intParam("page", 1, 1000, 1),
  limit: intParam("limit", 1, 500, 25),
  searchProviders: z.string().optional(),
  searchProvider: z.string().optional(),
});

const CODE_BY_FIELD: Record<string, string> = {
  q: "INVALID_QUERY",
  page: "INVALID_PAGE",
  limit: "INVALID_LIMIT",
};

/**
 * Validates raw query parameters. `fixedProvider` is set by the per-database routes
 * (/api/search/crossref …). Errors are 400s with codes INVALID_QUERY, INVALID_PAGE,
 * INVALID_LIMIT, UNKNOWN_PROVIDER, NO_PROVIDERS or INVALID_FILTER and a readable message.
 */
export function parseSearchRequest(
  params: URLSearchParams,
  fixedProvider?: ProviderId,
  today: Date = new Date(),
): SearchRequest {
  const raw = Object.fromEntries(
    ["q", "page", "limit", "searchProviders", "searchProvider"]
      .filter((k) => params.has(k))
      .map((k) => [k, params.get(k)!]),
  );
  const parsed = SearchQuerySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = String(issue.path[0] ?? "q");
    throw new AppError(CODE_BY_FIELD[field] ?? "INVALID_INPUT", issue.message, 400);
  }
  const { q, page, limit } = parsed.data;
  let providers: ProviderId[];
  if (fixedProvider) {
    providers = [fixedProvider];
  } else if (parsed.data.searchProviders !== undefined) {
    const names = parsed.data.searchProviders
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
    if (names.length === 0) throw new AppError("NO_PROVIDERS", "No search providers selected", 400);
    providers = names.map((name) => asProvider(name));
  } else {
    providers = [asProvider((parsed.data.searchProvider ?? "pubmed").trim().toLowerCase())];
  }
  return { query: q, page, limit, providers: [...new Set(providers)], filters: parseFilters(params, today) };
}

/** A validated search: query, paging, databases and filters. */
export interface SearchRequest {
  query: string;
  page: number;
  limit: number;
  providers: ProviderId[];
  filters: SearchFilters;
}

function asProvider(name: string): ProviderId {
  if ((PROVIDER_IDS as readonly string[]).includes(name)) return name as ProviderId;
  throw new AppError(
    "UNKNOWN_PROVIDER",
    `Unknown search provider '${name.slice(0, 40)}'. Use one of: ${PROVIDER_IDS.join(", ")}`,
    400,
  );
}

export type { ProviderEvent, SearchResponse } from "../../lib/search/types";

/** Connection settings for one provider, from vars (base URLs, keys, contact e-mail). */
export function providerDeps(env: AppEnv, id: ProviderId, fetchImpl: typeof fetch): Omit<ProviderDeps, "signal"> {
  return { ...providerEndpoint(env, id, fetchImpl), maxBytes: env.UPSTREAM_MAX_BYTES };
}

function providerEndpoint(
  env: AppEnv,
  id: ProviderId,
  fetchImpl: typeof fetch,
): Omit<ProviderDeps, "signal" | "maxBytes"> {
  switch (id) {
    case "pubmed":
      return {
        fetch: fetchImpl,
        baseUrl: env.PUBMED_BASE_URL,
        apiKey: env.NCBI_API_KEY,
        email: env.CONTACT_EMAIL,
        tool: "metamind",
      };
    case "crossref":
      return { fetch: fetchImpl, baseUrl: env.CROSSREF_BASE_URL, email: env.CONTACT_EMAIL };
    case "europepmc":
      return { fetch: fetchImpl, baseUrl: env.EUROPEPMC_BASE_URL, email: env.CONTACT_EMAIL };
    case "core":
      return { fetch: fetchImpl, baseUrl: env.CORE_BASE_URL, apiKey: env.CORE_API_KEY };
    case "semanticscholar":
      return { fetch: fetchImpl, baseUrl: env.SEMANTIC_SCHOLAR_BASE_URL, apiKey: env.SEMANTIC_SCHOLAR_API_KEY };
    case "doaj":
      return { fetch: fetchImpl, baseUrl: env.DOAJ_BASE_URL };
  }
}

function describe(outcomes: ProviderOutcome[], found: number, duplicates: number): string {
  const ok = outcomes.filter((o) => o.status === "ok").length;
  const problems = outcomes.filter((o) => o.status !== "ok").map((o) => `${PROVIDERS[o.provider].label} ${o.status}`);
  const parts = [
    found === 0
      ? "No studies found. Try adjusting your search terms or filters."
      : `Found ${found} ${found === 1 ? "study" : "studies"} from ${ok} ${ok === 1 ? "database" : "databases"}.`,
  ];
  if (duplicates > 0) parts.push(`${duplicates} duplicate${duplicates === 1 ? "" : "s"} removed.`);
  if (problems.length > 0) parts.push(`Skipped: ${problems.join(", ")}.`);
  return parts.join(" ");
}

/**
 * Searches the requested databases in parallel and answers with one merged, de-duplicated list.
 *
 * - Each provider call goes through the KV search cache (5 minutes, keyed by normalised
 *   parameters) and the post-filters, so a filter means the same on every source.
 * - Writes nothing to D1 (issue 17): as soon as a provider answers, its records are resolved
 *   against the stored studies by one read (lookupStoredStudies, on a read replica where the
 *   Sessions API offers one) — a stored row lends its id, data and newest summary; any other
 *   record gets its deterministic id (studyIdFor) and is remembered for the first action on it
 *   (ensureStudy). `onProvider` then receives them, for progressive display.
 * - The merged list is de-duplicated by DOI → PMID → title; with several databases it is paged
 *   here (each database contributes its first `limit` records), with one database the database
 *   pages itself.
 * - Signed-in users' searches go to their history (when their settings allow) when
 *   `options.recordHistory` says the search page made them.
 *
 * Plan rule: PubMed alone for everyone; any other database, or several at once, needs
 * Professional (403 PRO_REQUIRED, feature multi_database).
 *
 * @throws AppError 403 PRO_REQUIRED; 503 ALL_PROVIDERS_FAILED (with the per-provider reports).
 */
export async function searchStudies(
  app: Pick<AppServices, "env" | "db" | "fetch" | "waitUntil"> & { bindings: Pick<Bindings, "KV" | "DB"> },
  user: Pick<UserRow, "id" | "plan"> | null,
  request: SearchRequest,
  options: {
    onProvider?: (event: ProviderEvent) => void;
    /** The cache look-up already started (see prefetchCachedSearches). */
    cached?: Promise<CachedSearch>;
    /**
     * Receives the search's bookkeeping (cache writes, the history entry) to run once the answer
     * has gone out; by default it runs at once under waitUntil.
     */
    defer?: (task: () => Promise<unknown>) => void;
    /**
     * Whether a signed-in user's search goes to their history: only searches the search page
     * itself makes (see {@link isSearchPageRequest}); default false.
     */
    recordHistory?: boolean;
  } = {},
): Promise<SearchResponse> {
  assertSearchAllowed(user, request.providers);
  const multi = request.providers.length > 1;
  const source = multi ? "multi" : request.providers[0]!;
  // With several databases each contributes its first page and the merged list is paged here.
  const params = providerParams(request);
  const deadline = Date.now() + app.env.SEARCH_TIMEOUT_MS;

  const defer = options.defer ?? ((task: () => Promise<unknown>) => app.waitUntil(task()));
  // Each provider's records are resolved against the stored studies (ids, newest summaries) by
  // one read query per batch — no write. Outcomes arriving while a read is in flight share the
  // next one, so a search costs one to a few reads however many databases it asks.
  const reader = readSession(app.bindings.DB);
  const viewerId = user?.id ?? null;
  const idsOf = new Map<ProviderId, number[]>();
  const rows = new Map<number, StudyRow>();
  const unstored = new Set<number>();
  const summaries = new Map<number, StoredSummary>();
  const fullTexts = new Map<number, string>();
  let pending: ProviderOutcome[] = [];
  let resolving: Promise<void> | null = null;
  let unsettled = request.providers.length;
  // Seals already made for this search, by the exact row they signed: a row the merge leaves as
  // it is keeps its seal in the final page.
  const sealOf = new WeakMap<StudyRow, string>();
  const sealRows = async (list: StudyRow[]): Promise<Map<number, string>> => {
    const fresh = list.filter((row) => !sealOf.has(row));
    const made = await sealStudies(app.env.SESSION_SECRET, fresh);
    for (const row of fresh) sealOf.set(row, made.get(row.id)!);
    return new Map(list.map((row) => [row.id, sealOf.get(row)!]));
  };
  const resolveBatch = async (batch: ProviderOutcome[]) => {
    const records = batch.flatMap((o) => o.studies);
    const resolved = await lookupStoredStudies(reader, records, viewerId);
    let at = 0;
    for (const outcome of batch) {
      const ids: number[] = [];
      for (const record of outcome.studies) {
        const { id, stored } = resolved[at++]!;
        ids.push(id);
        const base = rows.get(id) ?? stored?.row;
        rows.set(id, base ? enrichRow(base, record) : rowFromRecord(id, record));
        if (stored) {
          if (stored.summary) summaries.set(id, stored.summary);
          if (stored.fullTextAnalysis) fullTexts.set(id, stored.fullTextAnalysis);
        } else unstored.add(id);
      }
      idsOf.set(outcome.provider, ids);
      if (!options.onProvider) continue;
      const seals = await sealRows([...new Set(ids.filter((id) => unstored.has(id)).map((id) => rows.get(id)!))]);
      options.onProvider({
        type: "provider",
        provider: outcome.provider,
        report: reportOf(outcome),
        studies: ids.map((id) =>
          withSeal(
            toApiStudy(rows.get(id)!, summaries.get(id) ?? null, [outcome.provider], fullTexts.get(id) ?? null),
            seals,
          ),
        ),
      });
    }
  };
  const drain = async () => {
    // One macrotask first, so databases answering together (cache hits) share the first read;
    // the last database to answer has nobody to wait for.
    if (unsettled > 0) await new Promise((resolve) => setTimeout(resolve, 0));
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      await resolveBatch(batch);
    }
    resolving = null;
  };
  // Without a listener nobody sees a database's records before the end, so they are all
  // resolved by one read once every database has settled.
  const resolveOutcome = (outcome: ProviderOutcome) => {
    pending.push(outcome);
    if (options.onProvider) resolving ??= drain();
  };

  // One cache entry holds every database's answer for these parameters: one read, at most one write.
  const cache = options.cached ?? lookupCachedSearch(app, params);
  const answered = new Map<ProviderId, ProviderResult>();
  const outcomes = await fanOutSearch(
    request.providers.map((id) => ({
      provider: id,
      run: (signal) =>
        cachedProviderSearch(
          id,
          { ...providerDeps(app.env, id, app.fetch), signal, deadline },
          params,
          cache,
          answered,
        ),
    })),
    {
      timeoutMs: app.env.SEARCH_TIMEOUT_MS,
      limit: request.limit,
      onSettled: (outcome) => {
        unsettled--;
        if (outcome.status === "ok") resolveOutcome(outcome);
        else
          options.onProvider?.({
            type: "provider",
            provider: outcome.provider,
            report: reportOf(outcome),
            studies: [],
          });
      },
    },
  );
  await resolving;
  if (pending.length > 0) await drain();
  if (answered.size > 0) {
    defer(async () => {
      const { key, entry } = await cache;
      await writeSearchCache(app.bindings.KV, key, entry, answered);
    });
  }

  const reports = Object.fromEntries(outcomes.map((o) => [o.provider, reportOf(o)])) as Partial<
    Record<ProviderId, ProviderReport>
  >;
  const succeeded = outcomes.filter((o) => o.status === "ok");
  if (succeeded.length === 0) {
    throw new AppError("ALL_PROVIDERS_FAILED", "All search providers failed", 503, {
      studies: [],
      totalCount: 0,
      page: request.page,
      limit: request.limit,
      totalPages: 0,
      source,
      serviceUnavailable: true,
      providers: reports,
      duplicatesRemoved: 0,
      filters: request.filters,
    });
  }

  // Interleave the databases' rankings (1st of each, then 2nd of each, …) so every page mixes
  // sources, then merge in memory: each merged record takes the stored row of its first member.
  const interleaved: { provider: ProviderId; index: number }[] = [];
  const longest = Math.max(...succeeded.map((o) => o.studies.length));
  for (let rank = 0; rank < longest; rank++) {
    for (const o of succeeded) if (rank < o.studies.length) interleaved.push({ provider: o.provider, index: rank });
  }
  const byProvider = new Map(succeeded.map((o) => [o.provider, o.studies]));
  const merged = dedupeWithMembers([interleaved.map((r) => byProvider.get(r.provider)![r.index]!)]);
  const seen = new Set<number>();
  const all: ApiStudy[] = [];
  merged.members.forEach((members, g) => {
    // The group's id: a member's stored row when one has it, else its first member's id.
    const ids = members.map((m) => idsOf.get(interleaved[m.index]!.provider)![interleaved[m.index]!.index]!);
    const rowId = ids.find((id) => !unstored.has(id)) ?? ids[0]!;
    if (seen.has(rowId)) return;
    seen.add(rowId);
    if (members.length > 1) rows.set(rowId, enrichRow(rows.get(rowId)!, merged.studies[g]!));
    const sources = [...new Set(members.map((m) => interleaved[m.index]!.provider))];
    all.push(toApiStudy(rows.get(rowId)!, summaries.get(rowId) ?? null, sources, fullTexts.get(rowId) ?? null));
  });
  rememberShownStudies([...unstored].map((id) => rows.get(id)!));
  const duplicatesRemoved = merged.duplicatesRemoved + (merged.studies.length - all.length);

  let studies: ApiStudy[];
  let totalCount: number;
  let totalPages: number;
  if (multi) {
    studies = all.slice((request.page - 1) * request.limit, request.page * request.limit);
    totalCount = all.length;
    totalPages = Math.ceil(all.length / request.limit);
  } else {
    const only = succeeded[0]!;
    studies = all;
    totalCount = only.totalCount;
    totalPages = Math.ceil(Math.min(only.totalCount, PAGING_CAP[only.provider]) / request.limit);
  }
  // Only the page that goes out needs seals (the provider events carry their own).
  const finalSeals = await sealRows([
    ...new Set(studies.filter((s) => unstored.has(s.id)).map((s) => rows.get(s.id)!)),
  ]);
  studies = studies.map((study) => withSeal(study, finalSeals));

  if (user && options.recordHistory) {
    const entry = {
      userId: user.id,
      query: request.query,
      filters: historyFilters(request),
      providers: request.providers,
      // Records retrieved through this page (history shows database totals separately).
      resultCount: multi ? all.length : (request.page - 1) * request.limit + studies.length,
      providerCounts: Object.fromEntries(
        outcomes.map((o) => [o.provider, { status: o.status, count: o.count, totalCount: o.totalCount }]),
      ),
      duplicatesRemoved,
    };
    defer(() => recordSearch(app, entry).catch((error: unknown) => console.error("search history not stored", error)));
  }

  return {
    studies,
    totalCount,
    page: request.page,
    limit: request.limit,
    totalPages,
    source,
    message: describe(outcomes, all.length, duplicatesRemoved),
    serviceUnavailable: false,
    providers: reports,
    duplicatesRemoved,
    filters: request.filters,
  };
}

/**
 * Plan rule for search: PubMed alone for everyone; any other database, or several, needs
 * Professional. @throws AppError 403 {error:'PRO_REQUIRED', feature:'multi_database'}.
 */
export function assertSearchAllowed(user: Pick<UserRow, "plan"> | null, providers: ProviderId[]): void {
  const wantsMulti = providers.length > 1 || providers[0] !== "pubmed";
  if (wantsMulti && user?.plan !== "pro") {
    throw new AppError("PRO_REQUIRED", "Multi-database search requires Professional subscription", 403, {
      feature: "multi_database",
    });
  }
}

function reportOf(o: ProviderOutcome): ProviderReport {
  return { status: o.status, count: o.count, totalCount: o.totalCount, ms: o.ms, cached: o.cached, error: o.error };
}

/**
 * True for a search the search page itself made: it carries {@link SEARCH_PAGE_HEADER} (which a
 * cross-site link, image or form cannot send) and, when the browser says where it came from, is
 * not cross-site. A GET another site can trigger must not write the user's history.
 */
export function isSearchPageRequest(request: Request): boolean {
  if (request.headers.get(SEARCH_PAGE_HEADER) !== SEARCH_PAGE_HEADER_VALUE) return false;
  const site = request.headers.get("Sec-Fetch-Site");
  return site === null || site === "same-origin";
}

/** The filter parameters as the user chose them (SPEC §3 history entry filters). */
function historyFilters(request: SearchRequest): Record<string, unknown> {
  const f = request.filters;
  return {
    dateRange: f.dateRange,
    ...(f.dateRange === "custom" ? { customDateFrom: f.dateFrom, customDateTo: f.dateTo } : {}),
    studyType: f.studyType,
    journalImpact: f.journalImpact,
    fullTextOnly: f.fullTextOnly ? "free_only" : "all",
    hasAbstract: f.hasAbstract ? "required" : "all",
    limit: request.limit,
  };
}

/** The page of one database a search asks for (several databases: each one's first page). */
function providerParams(request: SearchRequest) {
  const page = request.providers.length > 1 ? 1 : request.page;
  return { query: request.query, page, limit: request.limit, filters: request.filters };
}

function lookupCachedSearch(
  app: { bindings: Pick<Bindings, "KV"> },
  params: CachedSearchParams,
): Promise<CachedSearch> {
  return searchCacheKey(params).then(async (key) => ({ key, entry: await readSearchCache(app.bindings.KV, key) }));
}

/**
 * Starts the search-cache look-up of a request (one read, no upstream call), so it overlaps with
 * authentication instead of delaying every provider. Pass the result to searchStudies.
 */
export function prefetchCachedSearches(
  app: { bindings: Pick<Bindings, "KV"> },
  request: SearchRequest,
): Promise<CachedSearch> {
  return lookupCachedSearch(app, providerParams(request));
}

/**
 * A cache look-up that finds nothing, for searches that must ask the databases again (a living
 * review's update): pass it to searchStudies as `cached`; the fresh answers still refresh the cache.
 */
export function uncachedSearch(request: SearchRequest): Promise<CachedSearch> {
  return searchCacheKey(providerParams(request)).then((key) => ({ key, entry: null }));
}

/**
 * One provider call through the search cache and the post-filters. Only successful answers are
 * cached, after filtering (the filters are part of the key): a fresh answer is added to `fresh`,
 * which searchStudies writes back in one entry once every database has settled.
 */
async function cachedProviderSearch(
  id: ProviderId,
  deps: ProviderDeps,
  params: CachedSearchParams,
  cache: Promise<CachedSearch>,
  fresh: Map<ProviderId, ProviderResult>,
): Promise<ProviderResult & { cached: boolean }> {
  const hit = cachedAnswer((await cache).entry, id);
  if (hit) return { ...hit, cached: true };
  const result = await PROVIDERS[id].search(deps, params);
  // A database that sends more than the page asked for is cut here, before the answer is cached.
  const studies = applyPostFilters(result.studies, params.filters).slice(0, params.limit);
  const filtered: ProviderResult = { studies, totalCount: result.totalCount };
  fresh.set(id, filtered);
  return { ...filtered, cached: false };
}

/** The study with its seal when it has one (a record without a row; see sealStudies). */
function withSeal(study: ApiStudy, seals: ReadonlyMap<number, string>): ApiStudy {
  const seal = seals.get(study.id);
  return seal ? { ...study, seal } : study;
}
