import { inArray } from "drizzle-orm";
import { shownStudy } from "../studies/ensure";
import { z } from "zod";
import { studies } from "../../../db/schema";
import type { Database } from "../db/client";
import { AppError } from "../http/errors";
import { DEFAULT_UPSTREAM_MAX_BYTES, readBodyCapped } from "../http/upstream-body";

/**
 * Open-access lookups (SPEC §3 Open-access stats): Unpaywall by DOI first; Europe PMC (which also
 * covers PMC) when a study has no DOI or Unpaywall fails; the study's stored flag last. Answers
 * are cached in KV for a week per DOI / PMID.
 */

/** Studies one stats request may cover. */
export const MAX_OA_STUDIES = 100;
/** Outbound lookups in flight at once. */
const CONCURRENCY = 6;
const CACHE_TTL_SECONDS = 7 * 24 * 60 * 60;

export interface OpenAccessDeps {
  db: Database;
  fetch: typeof fetch;
  kv: KVNamespace;
  env: {
    UNPAYWALL_BASE_URL: string;
    UNPAYWALL_EMAIL?: string;
    CONTACT_EMAIL: string;
    EUROPEPMC_BASE_URL: string;
    SEARCH_TIMEOUT_MS: number;
    /** Largest lookup answer read, in bytes (default 16 MiB); larger → the lookup fails. */
    UPSTREAM_MAX_BYTES?: number;
  };
}

/** What is known about one study's open-access status. */
export interface OpenAccessResult {
  studyId: number;
  isOpenAccess: boolean;
  /** A copy in a repository (Unpaywall host_type 'repository', or in PMC / Europe PMC). */
  hasRepositoryCopy: boolean;
  /** The best free copy, when one is known. */
  url: string | null;
  /** unpaywall | europepmc | stored (the study row's own flag when no lookup answered). */
  source: "unpaywall" | "europepmc" | "stored";
}

/** SPEC §3 Open-access stats plus the per-study results they were computed from. */
export interface OpenAccessStats {
  openAccessCount: number;
  totalStudies: number;
  /** openAccessCount / totalStudies × 100, rounded to a whole percent (0 when there are none). */
  openAccessPercentage: number;
  /** Studies with a repository copy. */
  repositoryCount: number;
  studies: OpenAccessResult[];
}

/** `studyIds=a,b,c` → unique positive integers. @throws AppError 400 INVALID_STUDY_IDS. */
export function parseStudyIdsParam(raw: string | null): number[] {
  const parts = (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const parsed = z
    .array(z.string().regex(/^[1-9]\d{0,14}$/))
    .min(1)
    .max(MAX_OA_STUDIES)
    .safeParse(parts);
  if (!parsed.success) {
    throw new AppError(
      "INVALID_STUDY_IDS",
      `studyIds must be 1 to ${MAX_OA_STUDIES} comma-separated positive whole numbers`,
      400,
    );
  }
  return [...new Set(parsed.data.map(Number))];
}

const UnpaywallSchema = z.object({
  is_oa: z.boolean(),
  has_repository_copy: z.boolean().nullish(),
  best_oa_location: z
    .object({
      url: z.string().nullish(),
      url_for_pdf: z.string().nullish(),
      url_for_landing_page: z.string().nullish(),
    })
    .nullish(),
  oa_locations: z.array(z.object({ host_type: z.string().nullish() })).nullish(),
});

type Lookup = Omit<OpenAccessResult, "studyId">;

/**
 * GETs a JSON answer, its body read as a stream of at most UPSTREAM_MAX_BYTES.
 * @throws Error on a non-OK status, a timeout (SEARCH_TIMEOUT_MS) or invalid JSON;
 *   AnswerTooLargeError ('answer too large') past the cap.
 */
async function fetchJson(deps: OpenAccessDeps, url: string): Promise<unknown> {
  const signal = AbortSignal.timeout(deps.env.SEARCH_TIMEOUT_MS);
  const res = await deps.fetch(url, { headers: { Accept: "application/json" }, signal });
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new Error(`${res.status} from ${new URL(url).host}`);
  }
  const text = await readBodyCapped(res, deps.env.UPSTREAM_MAX_BYTES ?? DEFAULT_UPSTREAM_MAX_BYTES, { signal });
  return JSON.parse(text) as unknown;
}

/** Unpaywall /v2/{doi}: is_oa, the best location's URL, and a repository copy if any. */
export async function lookupUnpaywall(deps: OpenAccessDeps, doi: string): Promise<Lookup> {
  const email = deps.env.UNPAYWALL_EMAIL ?? deps.env.CONTACT_EMAIL;
  const url = `${deps.env.UNPAYWALL_BASE_URL.replace(/\/+$/, "")}/${encodeURI(doi)}?email=${encodeURIComponent(email)}`;
  const body = UnpaywallSchema.parse(await fetchJson(deps, url));
  const best = body.best_oa_location;
  const repository =
    body.has_repository_copy === true || (body.oa_locations ?? []).some((l) => l.host_type === "repository");
  return {
    isOpenAccess: body.is_oa,
    hasRepositoryCopy: repository,
    url: body.is_oa ? (best?.url_for_pdf ?? best?.url ?? best?.url_for_landing_page ?? null) : null,
    source: "unpaywall",
  };
}

const EuropePmcSchema = z.object({
  resultList: z.object({
    result: z.array(
      z.object({
        pmcid: z.string().nullish(),
        isOpenAccess: z.string().nullish(),
        inEPMC: z.string().nullish(),
        inPMC: z.string().nullish(),
      }),
    ),
  }),
});

/** Europe PMC search by DOI or PMID (lite result): isOpenAccess, and PMC / Europe PMC copies. */
export async function lookupEuropePmc(
  deps: OpenAccessDeps,
  ids: { doi?: string | null; pmid?: string | null },
): Promise<Lookup | null> {
  const query = ids.doi ? `DOI:"${ids.doi}"` : ids.pmid ? `EXT_ID:${ids.pmid} AND SRC:MED` : null;
  if (!query) return null;
  const url = `${deps.env.EUROPEPMC_BASE_URL.replace(/\/+$/, "")}/search?${new URLSearchParams({ query, format: "json", resultType: "lite", pageSize: "1" })}`;
  const body = EuropePmcSchema.parse(await fetchJson(deps, url));
  const hit = body.resultList.result[0];
  if (!hit) return null;
  const isOpenAccess = hit.isOpenAccess === "Y";
  const inRepository = hit.inPMC === "Y" || hit.inEPMC === "Y";
  return {
    isOpenAccess,
    hasRepositoryCopy: inRepository,
    url: hit.pmcid && (isOpenAccess || inRepository) ? `https://europepmc.org/articles/${hit.pmcid}` : null,
    source: "europepmc",
  };
}

async function cached(deps: OpenAccessDeps, key: string, run: () => Promise<Lookup | null>): Promise<Lookup | null> {
  try {
    const hit = await deps.kv.get<Lookup>(key, "json");
    if (hit) return hit;
  } catch (error) {
    console.warn("open-access cache read failed", error);
  }
  const value = await run();
  if (value) {
    try {
      await deps.kv.put(key, JSON.stringify(value), { expirationTtl: CACHE_TTL_SECONDS });
    } catch (error) {
      console.warn("open-access cache write failed", error);
    }
  }
  return value;
}

type StudyIds = {
  id: number;
  doi: string | null;
  pmid: string | null;
  isOpenAccess: boolean;
  openAccessUrl: string | null;
};

/** One study: Unpaywall (DOI), then Europe PMC (DOI or PMID), then the stored flag. Never throws. */
export async function lookupStudy(deps: OpenAccessDeps, study: StudyIds): Promise<OpenAccessResult> {
  let found: Lookup | null = null;
  if (study.doi) {
    found = await cached(deps, `oa:unpaywall:${study.doi.toLowerCase()}`, () =>
      lookupUnpaywall(deps, study.doi!),
    ).catch((error: unknown) => {
      console.warn("Unpaywall lookup failed; trying Europe PMC", error);
      return null;
    });
  }
  if (!found && (study.doi || study.pmid)) {
    const key = study.doi ? `oa:epmc:doi:${study.doi.toLowerCase()}` : `oa:epmc:pmid:${study.pmid}`;
    found = await cached(deps, key, () => lookupEuropePmc(deps, study)).catch((error: unknown) => {
      console.warn("Europe PMC open-access lookup failed", error);
      return null;
    });
  }
  if (found) {
    // A stored open-access URL (from the search provider) still counts when the lookup has none.
    const isOpenAccess = found.isOpenAccess || study.isOpenAccess;
    return { studyId: study.id, ...found, isOpenAccess, url: found.url ?? (isOpenAccess ? study.openAccessUrl : null) };
  }
  return {
    studyId: study.id,
    isOpenAccess: study.isOpenAccess,
    hasRepositoryCopy: false,
    url: study.openAccessUrl,
    source: "stored",
  };
}

/**
 * GET /api/studies/open-access-stats: looks up each study, stored or just shown by a search (unknown ids are left out of the
 * totals) and counts open-access studies and repository copies.
 */
export async function openAccessStats(
  deps: OpenAccessDeps,
  { studyIds }: { studyIds: number[] },
): Promise<OpenAccessStats> {
  const rows = await deps.db
    .select({
      id: studies.id,
      doi: studies.doi,
      pmid: studies.pmid,
      isOpenAccess: studies.isOpenAccess,
      openAccessUrl: studies.openAccessUrl,
    })
    .from(studies)
    .where(inArray(studies.id, studyIds));
  // Studies a search showed but nobody has acted on yet have no row (issue 17).
  const found = new Set(rows.map((r) => r.id));
  for (const id of studyIds) {
    const shown = found.has(id) ? null : shownStudy(id);
    if (shown)
      rows.push({
        id,
        doi: shown.doi,
        pmid: shown.pmid,
        isOpenAccess: shown.isOpenAccess,
        openAccessUrl: shown.openAccessUrl,
      });
  }
  const order = new Map(studyIds.map((id, i) => [id, i]));
  rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const results: OpenAccessResult[] = new Array(rows.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, rows.length) }, async () => {
      while (next < rows.length) {
        const i = next++;
        results[i] = await lookupStudy(deps, rows[i]);
      }
    }),
  );
  const openAccessCount = results.filter((r) => r.isOpenAccess).length;
  const totalStudies = results.length;
  return {
    openAccessCount,
    totalStudies,
    openAccessPercentage: totalStudies ? Math.round((openAccessCount / totalStudies) * 100) : 0,
    repositoryCount: results.filter((r) => r.hasRepositoryCopy).length,
    studies: results,
  };
}
