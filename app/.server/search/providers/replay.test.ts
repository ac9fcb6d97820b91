import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fixtureReader, fixtureSuiteName, hasSharedFixtures } from "../../../../tests/fixtures";
import {
  CORE_REPLAY_FIXTURES,
  createReplayFetch,
  createReplayHandler,
  DEFAULT_REPLAY_ORIGIN,
  defaultReplayBaseUrls,
  PUBMED_REPLAY_FIXTURES,
} from "../../../../tests/mocks/index.ts";
import { parseLatency } from "../../../../tests/mocks/replay-server.ts";
import { PROVIDER_IDS, ProviderError, type ProviderDeps, type ProviderId } from "../types";
import { DEFAULT_BASE_URLS, PROVIDERS } from "./index";

const suite = hasSharedFixtures() ? describe : describe.skip;
const baseUrls = defaultReplayBaseUrls();

function depsFor(id: ProviderId, fetch: typeof globalThis.fetch): ProviderDeps {
  return {
    fetch,
    baseUrl: baseUrls[id],
    apiKey: id === "core" ? "replay-key" : undefined,
    email: "replay@metamind.test",
  };
}

describe("provider registry", () => {
  it("exposes all six providers with their production roots", () => {
    expect(Object.keys(PROVIDERS).sort()).toEqual([...PROVIDER_IDS].sort());
    for (const id of PROVIDER_IDS) expect(PROVIDERS[id].id).toBe(id);
    expect(PROVIDERS.core.requiresApiKey).toBe(true);
    expect(DEFAULT_BASE_URLS).toEqual({
      pubmed: "https://eutils.ncbi.nlm.nih.gov/entrez/eutils",
      crossref: "https://api.crossref.org",
      europepmc: "https://www.ebi.ac.uk/europepmc/webservices/rest",
      core: "https://api.core.ac.uk/v3",
      semanticscholar: "https://api.semanticscholar.org/graph/v1",
      doaj: "https://doaj.org/api",
    });
  });

  it("parses REPLAY_LATENCY_MS", () => {
    expect(Object.fromEntries(parseLatency("pubmed=50, crossref=300"))).toEqual({ pubmed: 50, crossref: 300 });
    expect(Object.fromEntries(parseLatency("200"))).toEqual({ "*": 200 });
    expect(parseLatency(undefined).size).toBe(0);
  });
});

suite(fixtureSuiteName("providers against the recorded replays"), () => {
  const replayFetch = createReplayFetch(fixtureReader) as typeof globalThis.fetch;
  const expected: Record<ProviderId, { total: number; count: number; first: string }> = {
    pubmed: {
      total: 42249,
      count: 2,
      first:
        "Is cryopreservation a homogeneous process? Ultrastructure and motility of untreated, prefreezing, and postthawed spermatozoa of Diplodus puntazzo (Cetti).",
    },
    crossref: { total: 452242, count: 30, first: "Communicating Ecology" },
    europepmc: {
      total: 767814,
      count: 25,
      first: "The Influence of Covid-19 on Perceived Health Effects of Wetland Parks in China",
    },
    core: { total: 1326248, count: 10, first: "Dispatch" },
    semanticscholar: {
      total: 3028,
      count: 100,
      first: "Security Misconfigurations in Open Source Kubernetes Manifests: An Empirical Study",
    },
    doaj: {
      total: 5412874,
      count: 10,
      first: "Brain insulin sensitivity is linked to adiposity and body fat distribution",
    },
  };

  for (const id of PROVIDER_IDS) {
    it(`${id}: any query gets the recorded result page`, async () => {
      const result = await PROVIDERS[id].search(depsFor(id, replayFetch), {
        query: "heart failure",
        page: 1,
        limit: 25,
      });
      expect(result.totalCount).toBe(expected[id].total);
      expect(result.studies.length).toBeGreaterThanOrEqual(Math.min(expected[id].count, 25));
      expect(result.studies[0].title).toBe(expected[id].first);
      expect(result.studies.every((s) => s.source === id)).toBe(true);
    });

    it(`${id}: zzempty serves the empty result`, async () => {
      await expect(
        PROVIDERS[id].search(depsFor(id, replayFetch), { query: "zzempty", page: 1, limit: 25 }),
      ).resolves.toEqual({
        studies: [],
        totalCount: 0,
      });
    });

    it(`${id}: zzfail answers HTTP 500`, async () => {
      const error = await PROVIDERS[id]
        .search(depsFor(id, replayFetch), { query: "zzfail now", page: 1, limit: 25 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: id, kind: "http", status: 500 });
    });
  }

  it("europepmc page 2 walks the recorded idlist cursor", async () => {
    const result = await PROVIDERS.europepmc.search(depsFor("europepmc", replayFetch), {
      query: "covid",
      page: 2,
      limit: 25,
    });
    expect(result.totalCount).toBe(767814);
  });

  it("serves recordings with their recorded content-type and status", async () => {
    const esearch = await replayFetch(`${baseUrls.pubmed}/esearch.fcgi?db=pubmed&term=x`);
    expect(esearch.headers.get("content-type")).toBe("text/xml; charset=UTF-8");
    expect(esearch.headers.get("x-replay-fixture")).toBe(PUBMED_REPLAY_FIXTURES.esearch);
    const crossrefFail = await replayFetch(`${baseUrls.crossref}/works?query=zzfail`);
    expect(crossrefFail.status).toBe(500);
    expect(await crossrefFail.json()).toMatchObject({ status: "error", "message-type": "exception" });
    const core = await replayFetch(`${baseUrls.core}/search/works/?q=x`);
    expect(core.headers.get("x-replay-fixture")).toBe(CORE_REPLAY_FIXTURES.search);
    expect(core.headers.get("content-type")).toBe("application/json");
  });

  it("routes by configurable base URL prefix and answers 404 otherwise", async () => {
    const handle = createReplayHandler(fixtureReader, { baseUrls: { pubmed: "https://mock.test/ncbi/eutils/" } });
    expect(handle(new Request("https://mock.test/ncbi/eutils/esearch.fcgi?term=a")).response.status).toBe(200);
    expect(handle(new Request("https://mock.test/ncbi/eutilsX/esearch.fcgi")).provider).toBeNull();
    expect(handle(new Request(`${DEFAULT_REPLAY_ORIGIN}/crossref/works?query=a`)).provider).toBe("crossref");
    const unknownPath = handle(new Request(`${DEFAULT_REPLAY_ORIGIN}/crossref/members`));
    expect([unknownPath.provider, unknownPath.response.status]).toEqual(["crossref", 404]);
    expect((await replayFetch("http://127.0.0.1:8788/elsewhere")).status).toBe(404);
  });
});

const nodeMajor = Number(process.versions.node.split(".")[0]);
const serverSuite = hasSharedFixtures() && nodeMajor >= 23 ? describe : describe.skip;

serverSuite(fixtureSuiteName("replay-server.ts under plain Node"), () => {
  it("starts, serves a provider path with latency and logs the request", async () => {
    const script = fileURLToPath(new URL("../../../../tests/mocks/replay-server.ts", import.meta.url));
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, REPLAY_PORT: "0", REPLAY_LATENCY_MS: "pubmed=40" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    try {
      const origin = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 10_000);
        child.stdout.on("data", () => {
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
        child.on("exit", (code) => reject(new Error(`server exited (${code}): ${output}`)));
      });
      const started = Date.now();
      const response = await fetch(`${origin}/pubmed/esearch.fcgi?db=pubmed&term=asthma`);
      expect(response.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(35);
      expect(await response.text()).toContain("<Count>42249</Count>");
      const efetch = await fetch(`${origin}/pubmed/efetch.fcgi`, { method: "POST", body: "db=pubmed&id=1" });
      expect(await efetch.text()).toContain('<PMID Version="1">11748933</PMID>');
      expect((await fetch(`${origin}/nowhere`)).status).toBe(404);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(output).toMatch(/\[replay\] GET \/pubmed\/esearch\.fcgi\?db=pubmed&term=asthma -> 200 pubmed/);
    } finally {
      child.kill("SIGTERM");
    }
  }, 20_000);
});
