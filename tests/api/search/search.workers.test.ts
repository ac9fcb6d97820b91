import { env, SELF } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { signIn } from "../helpers";
import { createReplayFetch } from "../../mocks/index.ts";
import { hasWorkerFixtures, MISSING_WORKER_FIXTURES, workerFixtureReader } from "../../mocks/workers-fixtures.ts";
import { getLoadContext } from "~/.server/context";
import { parseEnv } from "~/.server/env";
import { NO_FILTERS } from "~/.server/search/filters";
import { searchStudies } from "~/.server/search/service";
import { studyIdFor } from "~/.server/studies/identity";
import { storeSealedStudies, type SealedStudy } from "~/.server/studies/seal";
import type { ProviderId } from "~/.server/search/types";
import { SEARCH_PAGE_HEADER, SEARCH_PAGE_HEADER_VALUE } from "~/lib/search-params";

const BASE = "https://metamind.test";
const SIX: ProviderId[] = ["pubmed", "crossref", "europepmc", "core", "semanticscholar", "doaj"];
const appEnv = () => parseEnv(env as unknown as Record<string, unknown>);
const realBaseUrls = () => {
  const e = appEnv();
  return {
    pubmed: e.PUBMED_BASE_URL,
    crossref: e.CROSSREF_BASE_URL,
    europepmc: e.EUROPEPMC_BASE_URL,
    core: e.CORE_BASE_URL,
    semanticscholar: e.SEMANTIC_SCHOLAR_BASE_URL,
    doaj: e.DOAJ_BASE_URL,
  };
};

type FetchFn = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

function replay(): FetchFn {
  return createReplayFetch(workerFixtureReader, { baseUrls: realBaseUrls() });
}

/** Routes provider calls through `impl`; everything else (SELF) is untouched. */
function spyFetch(impl: FetchFn) {
  return vi.spyOn(globalThis, "fetch").mockImplementation(impl as typeof fetch);
}

function app(overrides: Record<string, unknown> = {}, fetchImpl?: FetchFn) {
  const raw = { ...(env as unknown as Record<string, unknown>), ...overrides };
  const ctx = getLoadContext(raw as never, { waitUntil: () => {} });
  return { ...ctx.app, fetch: (fetchImpl ?? replay()) as typeof fetch };
}

const suite = hasWorkerFixtures ? describe : describe.skip;

describe("search input validation (no upstream calls)", () => {
  it.each([
    ["q=", "INVALID_QUERY"],
    ["q=%20%20", "INVALID_QUERY"],
    [`q=${"a".repeat(2000)}`, "INVALID_QUERY"],
    ["q=x&searchProviders=pubmed,foo", "UNKNOWN_PROVIDER"],
    ["q=x&searchProviders=", "NO_PROVIDERS"],
    ["q=x&page=0", "INVALID_PAGE"],
    ["q=x&page=abc", "INVALID_PAGE"],
    ["q=x&limit=10000", "INVALID_LIMIT"],
  ])("GET /api/search?%s → 400 %s", async (query, code) => {
    const spy = vi.spyOn(globalThis, "fetch");
    const res = await SELF.fetch(`${BASE}/api/search?${query}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe(code);
    expect(body.message.length).toBeGreaterThan(5);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });

  it("an unknown per-database path is a 404 with a JSON error", async () => {
    const res = await SELF.fetch(`${BASE}/api/search/scopus?q=x`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "UNKNOWN_PROVIDER" });
  });
});

suite(hasWorkerFixtures ? "search against recorded provider responses" : `search — ${MISSING_WORKER_FIXTURES}`, () => {
  let spy: ReturnType<typeof spyFetch>;
  beforeEach(() => {
    spy = spyFetch(replay());
  });
  afterEach(() => spy.mockRestore());

  it("guests search PubMed (esearch → efetch) and get stored studies with stable ids", async () => {
    const res = await SELF.fetch(`${BASE}/api/search?q=vitamin%20D%20fracture`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      studies: { id: number; title: string; pmid: string; source: string }[];
      source: string;
      providers: Record<string, { status: string; count: number; totalCount: number }>;
      totalCount: number;
      totalPages: number;
      page: number;
      limit: number;
    };
    expect(body.source).toBe("pubmed");
    expect(body.providers.pubmed).toMatchObject({ status: "ok", count: 2, totalCount: 42249 });
    expect(body.studies.map((s) => s.pmid).sort()).toEqual(["11700088", "11748933"]);
    expect(body).toMatchObject({ page: 1, limit: 25, totalCount: 42249, totalPages: 400 });

    const urls = spy.mock.calls.map(([input]) => new URL(String(input instanceof Request ? input.url : input)));
    const esearch = urls.find((u) => u.pathname.endsWith("/esearch.fcgi"))!;
    expect(esearch.searchParams.get("term")).toBe("vitamin D fracture");
    expect(esearch.searchParams.get("tool")).toBe("metamind");
    expect(esearch.searchParams.get("email")).toBe("dev@metamind.local");

    const again = (await (await SELF.fetch(`${BASE}/api/search?q=vitamin%20D%20fracture`)).json()) as typeof body;
    expect(again.studies.map((s) => s.id)).toEqual(body.studies.map((s) => s.id));

    const one = await SELF.fetch(`${BASE}/api/studies/${body.studies[0]!.id}`);
    expect(await one.json()).toMatchObject({ id: body.studies[0]!.id, title: body.studies[0]!.title });
  });

  it("records history only for the search page's own requests: a plain or cross-site GET writes none", async () => {
    const free = (await signIn("free@metamind.local")).cookie;
    const user = await env.DB.prepare("SELECT id FROM users WHERE email = 'free@metamind.local'").first<{
      id: string;
    }>();
    const count = async () =>
      (await env.DB.prepare(
        "SELECT count(*) AS n FROM search_history WHERE user_id = ? AND query = 'vitamin D fracture'",
      )
        .bind(user!.id)
        .first<{ n: number }>())!.n;
    const settle = () => new Promise((r) => setTimeout(r, 300));
    const before = await count();
    const url = `${BASE}/api/search?q=vitamin%20D%20fracture`;
    const plain = await SELF.fetch(url, { headers: { Cookie: free } });
    expect(plain.status).toBe(200);
    await plain.arrayBuffer();
    const streamed = await SELF.fetch(url, { headers: { Cookie: free, Accept: "application/x-ndjson" } });
    await streamed.text();
    const crossSite = await SELF.fetch(url, {
      headers: { Cookie: free, [SEARCH_PAGE_HEADER]: SEARCH_PAGE_HEADER_VALUE, "Sec-Fetch-Site": "cross-site" },
    });
    await crossSite.arrayBuffer();
    await settle();
    expect(await count()).toBe(before);

    const page = await SELF.fetch(url, {
      headers: {
        Cookie: free,
        Accept: "application/x-ndjson",
        [SEARCH_PAGE_HEADER]: SEARCH_PAGE_HEADER_VALUE,
        "Sec-Fetch-Site": "same-origin",
      },
    });
    await page.text();
    for (let i = 0; i < 50 && (await count()) === before; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await count()).toBe(before + 1);
  });

  it("other databases need Professional: 403 PRO_REQUIRED multi_database", async () => {
    for (const path of ["/api/search?q=x&searchProviders=pubmed,crossref", "/api/search/crossref?q=x"]) {
      const res = await SELF.fetch(`${BASE}${path}`);
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: "PRO_REQUIRED", feature: "multi_database" });
    }
    const free = (await signIn("free@metamind.local")).cookie;
    const res = await SELF.fetch(`${BASE}/api/search/doaj?q=x`, { headers: { Cookie: free } });
    expect(res.status).toBe(403);
  });

  it("Professional searches all six in parallel; CORE without a key is reported unavailable", async () => {
    const pro = (await signIn("pro@metamind.local")).cookie;
    const res = await SELF.fetch(`${BASE}/api/search?q=sleep&searchProviders=${SIX.join(",")}`, {
      headers: { Cookie: pro, [SEARCH_PAGE_HEADER]: SEARCH_PAGE_HEADER_VALUE },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      studies: { id: number; sources: string[] }[];
      source: string;
      message: string;
      providers: Record<string, { status: string; error: string | null; count: number }>;
    };
    expect(body.source).toBe("multi");
    for (const id of ["pubmed", "crossref", "europepmc", "semanticscholar", "doaj"]) {
      expect(body.providers[id]?.status, id).toBe("ok");
      expect(body.providers[id]?.count, id).toBeGreaterThan(0);
    }
    expect(body.providers.core).toMatchObject({ status: "unavailable", error: "CORE_API_KEY is not configured" });
    expect(body.message).toMatch(/CORE unavailable/);
    expect(new Set(body.studies.flatMap((s) => s.sources)).size).toBe(5);
    expect(new Set(body.studies.map((s) => s.id)).size).toBe(body.studies.length);

    // History is written after the response (waitUntil): poll briefly.
    let history: Record<string, unknown> | null = null;
    for (let i = 0; i < 50 && !history; i++) {
      history = await env.DB.prepare("SELECT query, provider_counts FROM search_history WHERE query = 'sleep'").first();
      if (!history) await new Promise((r) => setTimeout(r, 20));
    }
    expect(history).toMatchObject({ query: "sleep" });
    expect(JSON.parse(String(history!.provider_counts))).toMatchObject({
      core: { status: "unavailable" },
      doaj: { status: "ok" },
    });
  });

  it("all providers failing → 503 ALL_PROVIDERS_FAILED with every report", async () => {
    const pro = (await signIn("pro@metamind.local")).cookie;
    const res = await SELF.fetch(`${BASE}/api/search?q=zzfail&searchProviders=pubmed,crossref,doaj`, {
      headers: { Cookie: pro },
    });
    expect(res.status).toBe(503);
    const body = (await res.json()) as {
      error: string;
      message: string;
      serviceUnavailable: boolean;
      providers: Record<string, { status: string }>;
    };
    expect(body).toMatchObject({
      error: "ALL_PROVIDERS_FAILED",
      message: "All search providers failed",
      serviceUnavailable: true,
    });
    expect(Object.values(body.providers).map((p) => p.status)).toEqual(["failed", "failed", "failed"]);
  });

  it("a provider that hangs is aborted at the timeout while the others answer", async () => {
    const base = replay();
    const hanging: FetchFn = (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (!url.startsWith(realBaseUrls().crossref)) return base(input, init);
      return new Promise((_, reject) => {
        const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
        signal?.addEventListener("abort", () => reject(signal.reason));
      });
    };
    const proRow = await env.DB.prepare("SELECT * FROM users WHERE email = 'pro@metamind.local'").first();
    const started = Date.now();
    const ok = await searchStudies(app({ SEARCH_TIMEOUT_MS: "300" }, hanging), proRow as never, {
      query: "sleep timeout case",
      page: 1,
      limit: 25,
      providers: ["europepmc", "crossref", "doaj"],
      filters: NO_FILTERS,
    });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(ok.providers.crossref).toMatchObject({ status: "timeout", count: 0 });
    expect(ok.providers.crossref!.ms).toBeGreaterThanOrEqual(290);
    expect(ok.providers.europepmc?.status).toBe("ok");
    expect(ok.providers.doaj?.status).toBe("ok");
    expect(ok.totalCount).toBe(ok.providers.europepmc!.count + ok.providers.doaj!.count - ok.duplicatesRemoved);
    expect(ok.studies).toHaveLength(Math.min(25, ok.totalCount));
  });

  it("garbage and errors from one provider are isolated and reported failed", async () => {
    const base = replay();
    const urls = realBaseUrls();
    const broken: FetchFn = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.startsWith(urls.crossref)) {
        return new Response("<html><body>Service temporarily down</body></html>", {
          status: 200,
          headers: { "content-type": "text/html" },
        });
      }
      if (url.startsWith(urls.europepmc)) return new Response("upstream exploded", { status: 502 });
      return base(input, init);
    };
    const proRow = await env.DB.prepare("SELECT * FROM users WHERE email = 'pro@metamind.local'").first();
    const result = await searchStudies(app({ CORE_API_KEY: "test-key" }, broken), proRow as never, {
      query: "sleep isolation case",
      page: 1,
      limit: 25,
      providers: SIX,
      filters: NO_FILTERS,
    });
    expect(result.providers.crossref?.status).toBe("failed");
    expect(result.providers.europepmc).toMatchObject({ status: "failed" });
    expect(result.providers.europepmc?.error).toMatch(/502/);
    for (const id of ["pubmed", "core", "semanticscholar", "doaj"] as const) {
      expect(result.providers[id]?.status, id).toBe("ok");
    }
  });

  it("merges the same paper found by two databases (real Crossref and Semantic Scholar records)", async () => {
    const urls = realBaseUrls();
    const crossrefWork = JSON.parse(workerFixtureReader("crossref/works_10.1016-j.addr.2015.01.008.json")!) as {
      message: unknown;
    };
    const s2Paper = JSON.parse(workerFixtureReader("semanticscholar/paper_DOI_10.1016-j.addr.2015.01.008.json")!);
    // Each single-record lookup is wrapped in its API's list envelope, the record itself unchanged.
    const lists: FetchFn = async (input) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.startsWith(urls.crossref)) {
        return Response.json({
          status: "ok",
          "message-type": "work-list",
          message: { "total-results": 1, items: [crossrefWork.message] },
        });
      }
      return Response.json({ total: 1, offset: 0, data: [s2Paper] });
    };
    const proRow = await env.DB.prepare("SELECT * FROM users WHERE email = 'pro@metamind.local'").first();
    const result = await searchStudies(app({}, lists), proRow as never, {
      query: "nanoparticles",
      page: 1,
      limit: 25,
      providers: ["crossref", "semanticscholar"],
      filters: NO_FILTERS,
    });
    expect(result.duplicatesRemoved).toBe(1);
    expect(result.studies).toHaveLength(1);
    expect(result.studies[0]).toMatchObject({ doi: "10.1016/j.addr.2015.01.008" });
    expect([...result.studies[0]!.sources].sort()).toEqual(["crossref", "semanticscholar"]);
    // Searches write no rows (issue 17): the merged record carries the DOI's deterministic id.
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM studies WHERE doi = ?")
      .bind("10.1016/j.addr.2015.01.008")
      .first();
    expect(rows).toMatchObject({ n: 0 });
    expect(result.studies[0]!.id).toBe(
      studyIdFor({ doi: "10.1016/j.addr.2015.01.008", pmid: null, title: "", source: "crossref", sourceId: "" }),
    );
  });
});

/** What a search could write: row counts and the newest study update time. */
async function d1WriteProbe() {
  return env.DB.prepare(
    `SELECT (SELECT count(*) FROM studies) AS studies, (SELECT coalesce(max(updated_at), 0) FROM studies) AS updated,
       (SELECT count(*) FROM ai_summaries) AS summaries, (SELECT count(*) FROM search_history) AS history`,
  ).first();
}

suite(
  hasWorkerFixtures ? "search writes nothing on its hot path (issue 17)" : `hot path — ${MISSING_WORKER_FIXTURES}`,
  () => {
    const DOI = "10.1016/j.addr.2015.01.008";
    /** Crossref and Semantic Scholar each answer with their recorded record of the same paper. */
    const samePaper: FetchFn = async (input) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.startsWith(realBaseUrls().crossref)) {
        const work = JSON.parse(workerFixtureReader("crossref/works_10.1016-j.addr.2015.01.008.json")!) as {
          message: unknown;
        };
        return Response.json({
          status: "ok",
          "message-type": "work-list",
          message: { "total-results": 1, items: [work.message] },
        });
      }
      return Response.json({
        total: 1,
        offset: 0,
        data: [JSON.parse(workerFixtureReader("semanticscholar/paper_DOI_10.1016-j.addr.2015.01.008.json")!)],
      });
    };
    let spy: ReturnType<typeof spyFetch>;
    beforeEach(() => {
      spy = spyFetch(samePaper);
    });
    afterEach(() => spy.mockRestore());

    it("a search and its cached repeat make no D1 write; ids are stable and equal for one DOI from two databases", async () => {
      const cookie = (await signIn("pro@metamind.local")).cookie;
      const get = async (path: string) => {
        const res = await SELF.fetch(`${BASE}${path}`, { headers: { Cookie: cookie } });
        expect(res.status).toBe(200);
        return (await res.json()) as {
          studies: { id: number; doi: string | null }[];
          providers: Record<string, { cached: boolean }>;
        };
      };
      const before = await d1WriteProbe();
      const crossref = await get("/api/search/crossref?q=hotpath%20nanoparticles");
      const s2 = await get("/api/search/semanticscholar?q=hotpath%20nanoparticles");
      const again = await get("/api/search/crossref?q=hotpath%20nanoparticles");
      expect(again.providers.crossref!.cached).toBe(true);
      expect(await d1WriteProbe()).toEqual(before);
      expect(crossref.studies[0]!.doi).toBe(DOI);
      expect(s2.studies[0]!.id).toBe(crossref.studies[0]!.id);
      expect(again.studies[0]!.id).toBe(crossref.studies[0]!.id);
    });

    it("the first action writes the row under the id the search showed; later searches keep that id", async () => {
      const cookie = (await signIn("pro@metamind.local")).cookie;
      const search = await SELF.fetch(`${BASE}/api/search/crossref?q=hotpath%20first%20action`, {
        headers: { Cookie: cookie },
      });
      const { studies } = (await search.json()) as { studies: { id: number }[] };
      const id = studies[0]!.id;
      expect(await env.DB.prepare("SELECT count(*) AS n FROM studies WHERE id = ?").bind(id).first()).toMatchObject({
        n: 0,
      });
      const bookmark = await SELF.fetch(`${BASE}/api/bookmarks`, {
        method: "POST",
        headers: { Cookie: cookie, Origin: BASE, "Content-Type": "application/json" },
        body: JSON.stringify({ studyId: id }),
      });
      expect(bookmark.status).toBeLessThan(300);
      expect(await env.DB.prepare("SELECT doi FROM studies WHERE id = ?").bind(id).first()).toMatchObject({ doi: DOI });
      const later = await SELF.fetch(`${BASE}/api/search/semanticscholar?q=hotpath%20first%20action`, {
        headers: { Cookie: cookie },
      });
      expect(((await later.json()) as { studies: { id: number }[] }).studies[0]!.id).toBe(id);
    });

    it("an unstored record comes back sealed; any instance stores it from the seal, and a tampered one stores nothing", async () => {
      // The paper the earlier tests stored is gone again: a record nobody has acted on.
      await env.DB.prepare("DELETE FROM studies WHERE doi = ?").bind(DOI).run();
      const cookie = (await signIn("pro@metamind.local")).cookie;
      const search = await SELF.fetch(`${BASE}/api/search/crossref?q=hotpath%20sealed`, {
        headers: { Cookie: cookie },
      });
      const { studies } = (await search.json()) as { studies: (SealedStudy & { sources: string[] })[] };
      const study = studies[0]!;
      expect(study.seal).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
      const store = (body: unknown) =>
        SELF.fetch(`${BASE}/api/studies/store`, {
          method: "POST",
          headers: { Origin: BASE, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });

      const tampered = await store({ studies: [{ ...study, abstract: "Planted: this drug cures everything." }] });
      expect(tampered.status).toBe(403);
      expect(await tampered.json()).toMatchObject({ error: "INVALID_SEAL", studyId: study.id });
      const otherId = await store({ studies: [{ ...study, id: study.id + 1 }] });
      expect(otherId.status).toBe(403);
      expect(await env.DB.prepare("SELECT count(*) AS n FROM studies WHERE doi = ?").bind(DOI).first()).toMatchObject({
        n: 0,
      });
      expect((await store({ studies: [] })).status).toBe(400);

      // Storing needs nothing this isolate remembers: the seal carries what the search showed.
      const ids = await storeSealedStudies(app(), [study]);
      expect(ids.get(study.id)).toBe(study.id);
      const row = await env.DB.prepare("SELECT title, abstract, doi, source_id AS sourceId FROM studies WHERE id = ?")
        .bind(study.id)
        .first();
      expect(row).toMatchObject({ title: study.title, abstract: study.abstract, doi: study.doi });
      expect(row!.sourceId).toBeTruthy();

      const again = await store({ studies: [study] });
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ ids: { [study.id]: study.id } });
      const later = await SELF.fetch(`${BASE}/api/search/crossref?q=hotpath%20sealed`, { headers: { Cookie: cookie } });
      const stored = ((await later.json()) as { studies: { id: number; seal?: string }[] }).studies[0]!;
      expect(stored.id).toBe(study.id);
      expect(stored.seal).toBeUndefined();
    });
  },
);

suite(
  hasWorkerFixtures ? "filters, cache, paging and progressive results" : `filters — ${MISSING_WORKER_FIXTURES}`,
  () => {
    let spy: ReturnType<typeof spyFetch>;
    beforeEach(() => {
      spy = spyFetch(replay());
    });
    afterEach(() => spy.mockRestore());

    const upstreamUrls = () =>
      spy.mock.calls.map(([input]) => new URL(String(input instanceof Request ? input.url : input)));

    it.each([
      ["dateRange=yesterday", "dateRange must be one of"],
      ["studyType=case_report", "studyType must be one of"],
      ["journalImpact=huge", "journalImpact must be one of"],
      ["fullTextOnly=maybe", "fullTextOnly must be all or free_only"],
      [
        "dateRange=custom&customDateFrom=2024-05-01&customDateTo=2020-01-01",
        "customDateFrom must not be after customDateTo",
      ],
      ["dateRange=custom&customDateFrom=2024-02-30", "customDateFrom"],
      ["dateRange=custom", "custom date range needs"],
    ])("GET /api/search?q=x&%s → 400 INVALID_FILTER", async (query, message) => {
      const res = await SELF.fetch(`${BASE}/api/search?q=x&${query}`);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error).toBe("INVALID_FILTER");
      expect(body.message).toContain(message);
      expect(spy).not.toHaveBeenCalled();
    });

    it("translates filters into the PubMed query and echoes the resolved filters", async () => {
      const res = await SELF.fetch(
        `${BASE}/api/search?q=statins&dateRange=custom&customDateFrom=2015-01-01&customDateTo=2020-12-31&studyType=meta_analysis&fullTextOnly=free_only&hasAbstract=required`,
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as { filters: Record<string, unknown>; studies: unknown[] };
      expect(body.filters).toMatchObject({
        dateFrom: "2015-01-01",
        dateTo: "2020-12-31",
        studyType: "meta_analysis",
        fullTextOnly: true,
        hasAbstract: true,
      });
      const term = upstreamUrls()
        .find((u) => u.pathname.endsWith("/esearch.fcgi"))!
        .searchParams.get("term")!;
      expect(term).toContain('("2015/01/01"[dp] : "2020/12/31"[dp])');
      expect(term).toContain("meta-analysis[pt]");
      expect(term).toContain("free full text[sb]");
      expect(term).toContain("hasabstract");
      // The recorded efetch answer holds no meta-analyses: the post-filter removes both records.
      expect(body.studies).toEqual([]);
    });

    it("answers a repeated search from the cache without calling the database again", async () => {
      const first = (await (await SELF.fetch(`${BASE}/api/search?q=cache%20me`)).json()) as {
        providers: Record<string, { cached: boolean }>;
        studies: { id: number }[];
      };
      expect(first.providers.pubmed?.cached).toBe(false);
      const calls = spy.mock.calls.length;
      const second = (await (await SELF.fetch(`${BASE}/api/search?q=%20Cache%20%20ME%20`)).json()) as typeof first;
      expect(second.providers.pubmed?.cached).toBe(true);
      expect(spy.mock.calls.length).toBe(calls);
      expect(second.studies.map((s) => s.id)).toEqual(first.studies.map((s) => s.id));
    });

    it("pages the merged list of several databases, interleaving sources", async () => {
      const pro = (await signIn("pro@metamind.local")).cookie;
      const get = (page: number) =>
        SELF.fetch(`${BASE}/api/search?q=paging&searchProviders=crossref,europepmc,doaj&limit=25&page=${page}`, {
          headers: { Cookie: pro },
        }).then(
          (r) =>
            r.json() as Promise<{ studies: { id: number; source: string }[]; totalCount: number; totalPages: number }>,
        );
      const one = await get(1);
      expect(one.totalCount).toBeGreaterThan(25);
      expect(one.totalPages).toBe(Math.ceil(one.totalCount / 25));
      expect(one.studies.slice(0, 3).map((s) => s.source)).toEqual(["crossref", "europepmc", "doaj"]);
      const calls = spy.mock.calls.length;
      const two = await get(2);
      expect(spy.mock.calls.length).toBe(calls);
      expect(two.studies.length).toBe(Math.min(25, one.totalCount - 25));
      expect(two.studies.some((s) => one.studies.some((t) => t.id === s.id))).toBe(false);
    });

    it("streams each database's stored results as it answers, then the merged page", async () => {
      const pro = (await signIn("pro@metamind.local")).cookie;
      const res = await SELF.fetch(`${BASE}/api/search?q=progressive&searchProviders=pubmed,crossref,doaj`, {
        headers: { Cookie: pro, Accept: "application/x-ndjson" },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toMatch(/application\/x-ndjson/);
      const lines = (await res.text())
        .trim()
        .split("\n")
        .map(
          (l) =>
            JSON.parse(l) as {
              type: string;
              provider?: string;
              studies?: { id: number }[];
              results?: { studies: { id: number }[] };
            },
        );
      expect(lines.map((l) => l.type)).toEqual(["provider", "provider", "provider", "done"]);
      expect(new Set(lines.slice(0, 3).map((l) => l.provider))).toEqual(new Set(["pubmed", "crossref", "doaj"]));
      const streamedIds = new Set(lines.slice(0, 3).flatMap((l) => l.studies!.map((s) => s.id)));
      for (const s of lines[3]!.results!.studies) expect(streamedIds.has(s.id)).toBe(true);
    });

    it("streams plan errors as plain 403 JSON before any streaming", async () => {
      const res = await SELF.fetch(`${BASE}/api/search?q=x&searchProviders=crossref`, {
        headers: { Accept: "application/x-ndjson" },
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: "PRO_REQUIRED", feature: "multi_database" });
    });

    it("streams an error event when every database fails", async () => {
      const pro = (await signIn("pro@metamind.local")).cookie;
      const res = await SELF.fetch(`${BASE}/api/search?q=zzfail%20stream&searchProviders=pubmed,doaj`, {
        headers: { Cookie: pro, Accept: "application/x-ndjson" },
      });
      const lines = (await res.text())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.at(-1)).toMatchObject({
        type: "error",
        status: 503,
        error: "ALL_PROVIDERS_FAILED",
        serviceUnavailable: true,
      });
      expect(lines.filter((l) => l.type === "provider")).toHaveLength(2);
    });
  },
);
