import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, insertStudy } from "../helpers";
import { hasWorkerFixtures, MISSING_WORKER_FIXTURES, workerFixtureReader } from "../../mocks/workers-fixtures";
import { createDb } from "~/.server/db/client";
import { lookupStudy, lookupUnpaywall } from "~/.server/openaccess/service";

/**
 * GET /api/studies/open-access-stats against recorded Unpaywall answers
 * (../shared/fixtures/providers/unpaywall, looked up by the DOI in each body) and a recorded
 * Europe PMC lite search (search_lite_cancer_pageSize5.json) for the fallback. The Europe PMC
 * mock answers any query with the recorded record whose PMID the query names, or else with the
 * recorded PMC record PMID 39709208 (a stand-in: the recording was not made for these DOIs).
 */
const UNPAYWALL_FILES = [
  "v2_10.1073-pnas.1414271111.json",
  "v2_10.1016-j.addr.2015.01.008.json",
  "v2_10.1007-s40278-023-41815-2.json",
  "v2_10.1016-j.xgen.2025.100814.json",
  "v2_10.1023-a_1007154515475.json",
  "v2_10.1016-j.jns.2020.116832.json",
];

afterEach(() => vi.restoreAllMocks());

describe.skipIf(!hasWorkerFixtures)(
  `open-access stats${hasWorkerFixtures ? "" : ` (${MISSING_WORKER_FIXTURES})`}`,
  () => {
    it("counts open-access studies and repository copies via Unpaywall with the Europe PMC fallback", async () => {
      const bodies = new Map<string, string>();
      for (const f of UNPAYWALL_FILES) {
        const text = workerFixtureReader(`unpaywall/${f}`)!;
        bodies.set((JSON.parse(text) as { doi: string }).doi.toLowerCase(), text);
      }
      const epmc = JSON.parse(workerFixtureReader("europepmc/search_lite_cancer_pageSize5.json")!) as {
        resultList: { result: { pmid?: string }[] };
      };
      const seen: string[] = [];
      vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
        const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
        seen.push(url.host);
        if (url.host === "api.unpaywall.org") {
          expect(url.searchParams.get("email")).toBeTruthy();
          const doi = decodeURIComponent(url.pathname.replace(/^\/v2\//, "")).toLowerCase();
          const body = bodies.get(doi);
          return body
            ? new Response(body, { headers: { "Content-Type": "application/json" } })
            : new Response("upstream error", { status: 500 });
        }
        if (url.host === "www.ebi.ac.uk") {
          const query = url.searchParams.get("query") ?? "";
          const pmid = /EXT_ID:(\d+)/.exec(query)?.[1] ?? "39709208";
          const result = epmc.resultList.result.filter((r) => r.pmid === pmid);
          return Response.json({ ...epmc, hitCount: result.length, resultList: { result } });
        }
        return new Response("unexpected", { status: 599 });
      });

      const ids: number[] = [];
      for (const doi of bodies.keys()) ids.push(await insertStudy({ title: `Study ${doi}`, authors: ["A B"], doi }));
      // No DOI, PMID only → Europe PMC (recorded: not OA, but in PMC and Europe PMC).
      ids.push(await insertStudy({ title: "PMID only", authors: ["A B"], pmid: "39709208" }));
      // A DOI Unpaywall fails on → Europe PMC by DOI (stand-in record, see above).
      ids.push(await insertStudy({ title: "Unpaywall down", authors: ["A B"], doi: `10.9999/${crypto.randomUUID()}` }));
      // Neither DOI nor PMID → the stored flag.
      ids.push(await insertStudy({ title: "No identifiers", authors: ["A B"] }));

      const res = await call("GET", `/api/studies/open-access-stats?studyIds=${ids.join(",")}`);
      expect(res.status).toBe(200);
      const stats = (await res.json()) as {
        openAccessCount: number;
        totalStudies: number;
        openAccessPercentage: number;
        repositoryCount: number;
        studies: {
          studyId: number;
          isOpenAccess: boolean;
          hasRepositoryCopy: boolean;
          url: string | null;
          source: string;
        }[];
      };
      // Recorded Unpaywall: pnas (OA, repository), addr (OA), s40278 (closed), xgen (OA, repository),
      // a:1007154515475 (closed), jns (OA, repository).
      expect(stats).toMatchObject({
        openAccessCount: 4,
        totalStudies: 9,
        openAccessPercentage: 44,
        repositoryCount: 5,
      });
      const pnas = stats.studies[0];
      expect(pnas).toMatchObject({
        isOpenAccess: true,
        hasRepositoryCopy: true,
        source: "unpaywall",
        url: "https://www.pnas.org/content/pnas/111/45/E4832.full.pdf",
      });
      expect(stats.studies[6]).toMatchObject({
        source: "europepmc",
        isOpenAccess: false,
        hasRepositoryCopy: true,
        url: "https://europepmc.org/articles/PMC12124214",
      });
      expect(stats.studies[7]).toMatchObject({ source: "europepmc", hasRepositoryCopy: true });
      expect(stats.studies[8]).toMatchObject({ source: "stored", isOpenAccess: false, url: null });
      expect(seen.filter((h) => h === "api.unpaywall.org")).toHaveLength(7);

      // A second request is answered from the KV cache (no new Unpaywall calls).
      const before = seen.length;
      await call("GET", `/api/studies/open-access-stats?studyIds=${ids[0]}`);
      expect(seen.length).toBe(before);
    });
  },
);

describe("open-access stats input", () => {
  it("refuses missing, malformed and too many ids", async () => {
    for (const q of [
      "",
      "?studyIds=",
      "?studyIds=a,b",
      `?studyIds=${Array.from({ length: 101 }, (_, i) => i + 1).join(",")}`,
    ]) {
      const res = await call("GET", `/api/studies/open-access-stats${q}`);
      expect(res.status, q).toBe(400);
    }
    const res = await call("GET", "/api/studies/open-access-stats?studyIds=999999997");
    expect(await res.json()).toMatchObject({
      openAccessCount: 0,
      totalStudies: 0,
      openAccessPercentage: 0,
      repositoryCount: 0,
    });
  });
});

describe("open-access look-ups read their answers with a byte cap", () => {
  it("an endless Unpaywall answer is cut off at UPSTREAM_MAX_BYTES ('answer too large') and the study falls back to Europe PMC", async () => {
    const state = { produced: 0, cancelled: false };
    const chunk = new TextEncoder().encode(`{"pad":"${"x".repeat(65_000)}"},`);
    const endless = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            state.produced += chunk.byteLength;
            controller.enqueue(chunk);
          },
          cancel() {
            state.cancelled = true;
          },
        }),
        { headers: { "Content-Type": "application/json" } },
      );
    const fetchImpl = (async (input: RequestInfo | URL) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      if (url.host === "api.unpaywall.org") return endless();
      return Response.json({
        hitCount: 1,
        resultList: { result: [{ pmcid: "PMC123", isOpenAccess: "Y", inEPMC: "Y", inPMC: "Y" }] },
      });
    }) as typeof fetch;
    const deps = {
      db: createDb(env.DB),
      fetch: fetchImpl,
      kv: env.KV,
      env: {
        UNPAYWALL_BASE_URL: "https://api.unpaywall.org/v2",
        CONTACT_EMAIL: "dev@metamind.local",
        EUROPEPMC_BASE_URL: "https://www.ebi.ac.uk/europepmc/webservices/rest",
        SEARCH_TIMEOUT_MS: 5000,
        UPSTREAM_MAX_BYTES: 512 * 1024,
      },
    };
    const doi = `10.9999/${crypto.randomUUID()}`;
    await expect(lookupUnpaywall(deps, doi)).rejects.toThrow("answer too large");
    expect(state.cancelled).toBe(true);
    expect(state.produced).toBeLessThanOrEqual(512 * 1024 + 2 * chunk.byteLength);
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const result = await lookupStudy(deps, { id: 1, doi, pmid: null, isOpenAccess: false, openAccessUrl: null });
    expect(result).toMatchObject({
      source: "europepmc",
      isOpenAccess: true,
      url: "https://europepmc.org/articles/PMC123",
    });
  });
});
