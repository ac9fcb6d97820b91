import { z } from "zod";
import { searchHistory, type UserRow } from "../../../db/schema";
import type { AppServices } from "../context";
import type { AppEnv } from "../env";
import { AppError } from "../http/errors";
import { latestSummaries, toApiStudy, type ApiStudy } from "../studies/queries";
import { upsertStudies } from "../studies/persist";
import { dedupeStudies } from "./dedupe";
import { fanOutSearch, type ProviderOutcome, type ProviderReport } from "./fan-out";
import { normalizeTitleKey } from "./normalize";
import { PROVIDERS } from "./providers";
import { PROVIDER_IDS, type NormalizedStudy, type ProviderDeps, type ProviderId } from "./types";

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
 * INVALID_LIMIT, UNKNOWN_PROVIDER or NO_PROVIDERS and a readable message.
 */
export function parseSearchRequest(
  params: URLSearchParams,
  fixedProvider?: ProviderId,
): { query: string; page: number; limit: number; providers: ProviderId[] } {
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
    const names = parsed.data.searchProviders.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
    if (names.length === 0) throw new AppError("NO_PROVIDERS", "No search providers selected", 400);
    providers = names.map((name) => asProvider(name));
  } else {
    providers = [asProvider((parsed.data.searchProvider ?? "pubmed").trim().toLowerCase())];
  }
  return { query: q, page, limit, providers: [...new Set(providers)] };
}

function asProvider(name: string): ProviderId {
  if ((PROVIDER_IDS as readonly string[]).includes(name)) return name as ProviderId;
  throw new AppError(
    "UNKNOWN_PROVIDER",
    `Unknown search provider '${name.slice(0, 40)}'. Use one of: ${PROVIDER_IDS.join(", ")}`,
    400,
  );
}

/** The search results shape of SPEC §3 plus per-provider reports. */
export interface SearchResponse {
  studies: ApiStudy[];
  totalCount: number;
  page: number;
  limit: number;
  totalPages: number;
  source: ProviderId | "multi";
  message: string;
  serviceUnavailable: boolean;
  providers: Partial<Record<ProviderId, ProviderReport>>;
  /** Records merged away as duplicates across (and within) databases on this page. */
  duplicatesRemoved: number;
}

/** Connection settings for one provider, from vars (base URLs, keys, contact e-mail). */
export function providerDeps(env: AppEnv, id: ProviderId, fetchImpl: typeof fetch): Omit<ProviderDeps, "signal"> {
  switch (id) {
    case "pubmed":
      return { fetch: fetchImpl, baseUrl: env.PUBMED_BASE_URL, apiKey: env.NCBI_API_KEY, email: env.CONTACT_EMAIL, tool: "metamind" };
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

/**
 * Which databases found each merged record: every original record is attributed to the merged
 * record sharing its DOI, else PMID, else normalised title (the keys dedupeStudies merges on).
 */
function attributeSources(merged: NormalizedStudy[], outcomes: ProviderOutcome[]): ProviderId[][] {
  const byDoi = new Map<string, number>();
  const byPmid = new Map<string, number>();
  const byTitle = new Map<string, number>();
  merged.forEach((s, i) => {
    if (s.doi && !byDoi.has(s.doi)) byDoi.set(s.doi, i);
    if (s.pmid && !byPmid.has(s.pmid)) byPmid.set(s.pmid, i);
    const key = normalizeTitleKey(s.title);
    if (key && !byTitle.has(key)) byTitle.set(key, i);
  });
  const sources = merged.map((s) => new Set<ProviderId>([s.source]));
  for (const outcome of outcomes) {
    for (const s of outcome.studies) {
      const i =
        (s.doi ? byDoi.get(s.doi) : undefined) ??
        (s.pmid ? byPmid.get(s.pmid) : undefined) ??
        byTitle.get(normalizeTitleKey(s.title));
      if (i !== undefined) sources[i]!.add(outcome.provider);
    }
  }
  return sources.map((set) => [...set]);
}

function describe(outcomes: ProviderOutcome[], found: number, duplicates: number): string {
  const ok = outcomes.filter((o) => o.status === "ok").length;
  const problems = outcomes
    .filter((o) => o.status !== "ok")
    .map((o) => `${PROVIDERS[o.provider].label} ${o.status}`);
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
 * Searches the requested databases in parallel, de-duplicates (DOI → PMID → title), stores the
 * merged records with stable ids, attaches stored AI summaries and records the search in the
 * signed-in user's history.
 *
 * Plan rule for this slice: PubMed alone for everyone; any other database or several at once
 * needs Professional (403 PRO_REQUIRED, feature multi_database).
 *
 * @throws AppError 403 PRO_REQUIRED; 503 ALL_PROVIDERS_FAILED (with the per-provider reports).
 */
export async function searchStudies(
  app: Pick<AppServices, "env" | "db" | "fetch" | "waitUntil">,
  user: UserRow | null,
  request: { query: string; page: number; limit: number; providers: ProviderId[] },
): Promise<SearchResponse> {
  const wantsMulti = request.providers.length > 1 || request.providers[0] !== "pubmed";
  if (wantsMulti && user?.plan !== "pro") {
    throw new AppError(
      "PRO_REQUIRED",
      "Multi-database search requires Professional subscription",
      403,
      { feature: "multi_database" },
    );
  }

  const outcomes = await fanOutSearch(
    request.providers.map((id) => ({ provider: PROVIDERS[id], deps: providerDeps(app.env, id, app.fetch) })),
    { query: request.query, page: request.page, limit: request.limit },
    { timeoutMs: app.env.SEARCH_TIMEOUT_MS },
  );
  const reports = Object.fromEntries(
    outcomes.map(({ provider, status, count, totalCount, ms, error }) => [
      provider,
      { status, count, totalCount, ms, error },
    ]),
  ) as Partial<Record<ProviderId, ProviderReport>>;
  const source = request.providers.length === 1 ? request.providers[0]! : "multi";

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
    });
  }

  const { studies: merged, duplicatesRemoved } = dedupeStudies(succeeded.map((o) => o.studies));
  const sources = attributeSources(merged, succeeded);
  const rows = await upsertStudies(app.db, merged);
  const summaries = await latestSummaries(app, { studyIds: rows.map((r) => r.id) });
  const studies = rows.map((row, i) => toApiStudy(row, summaries.get(row.id) ?? null, sources[i]));

  const totalCount = succeeded.reduce((sum, o) => sum + o.totalCount, 0);
  const deepest = Math.max(...succeeded.map((o) => Math.min(o.totalCount, PAGING_CAP[o.provider])));
  const totalPages = Math.ceil(deepest / request.limit);

  if (user) {
    app.waitUntil(
      app.db
        .insert(searchHistory)
        .values({
          userId: user.id,
          query: request.query,
          filters: {},
          providers: request.providers,
          resultCount: totalCount,
        })
        .then(() => undefined)
        .catch((error: unknown) => console.error("search history not stored", error)),
    );
  }

  return {
    studies,
    totalCount,
    page: request.page,
    limit: request.limit,
    totalPages,
    source,
    message: describe(outcomes, studies.length, duplicatesRemoved),
    serviceUnavailable: false,
    providers: reports,
    duplicatesRemoved,
  };
}
