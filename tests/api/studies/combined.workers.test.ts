import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { env, SELF } from "cloudflare:test";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { expectConsoleError } from "../../setup/fail-on-console-error";
import { hasWorkerFixtures, MISSING_WORKER_FIXTURES, workerFixtureReader } from "../../mocks/workers-fixtures.ts";
import type { CombinedResult, CombinedStreamLine } from "~/.server/ai/combined";
import { CombinedSummarySchema } from "~/lib/combined-summary";
import { OFFLINE_MODEL_NAME } from "~/.server/ai/registry";
import { getGuestUsage } from "~/.server/billing/metering";
import { getLoadContext } from "~/.server/context";
import { normalisePubmedXml } from "~/.server/search/providers/pubmed";
import { combinedCacheKey, combinedSummaryResponse } from "~/.server/studies/combined";

const BASE = "https://metamind.test";
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const URL_PATH = `${BASE}/api/studies/batch-summarize`;

function post(body: unknown, { ndjson = false, ip = "203.0.113.7" }: { ndjson?: boolean; ip?: string } = {}) {
  return SELF.fetch(URL_PATH, {
    method: "POST",
    headers: {
      Origin: BASE,
      "Content-Type": "application/json",
      "CF-Connecting-IP": ip,
      ...(ndjson ? { Accept: "application/x-ndjson" } : {}),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

function realStudies() {
  return ["efetch_pubmed_23121403_POST.xml", "efetch_pubmed_29915538_POST.xml"].map((file) => {
    const study = normalisePubmedXml(workerFixtureReader(`pubmed/${file}`)!).studies[0]!;
    return { id: study.sourceId, title: study.title, abstract: study.abstract, journal: study.journal };
  });
}

const SYNTHETIC = [
  {
    id: 1,
    title: "Atorvastatin and frailty in older adults",
    abstract:
      "METHODS: We randomly assigned 1,204 adults to atorvastatin 20 mg daily or placebo for 2 years. RESULTS: Frailty rose less with atorvastatin (mean difference -0.34; 95% CI -0.52 to -0.16; p < 0.001). CONCLUSIONS: Atorvastatin slowed frailty.",
  },
];

describe("POST /api/studies/batch-summarize validation", () => {
  it("400 NO_STUDIES for an empty or missing list", async () => {
    for (const body of [{ studies: [] }, {}]) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: "NO_STUDIES", message: "No studies selected" });
    }
  });

  it("400 for malformed bodies", async () => {
    const notJson = await post("{not json");
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: "INVALID_JSON" });
    for (const body of [
      { studies: "all of them" },
      { studies: [{ abstract: "No title here at all." }] },
      { studies: [{ title: "T", abstract: 42 }] },
      { studies: Array.from({ length: 51 }, (_, i) => ({ title: `Study ${i}`, abstract: "Some abstract text." })) },
      [1, 2, 3],
    ]) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(await response.json()).toMatchObject({ error: "INVALID_INPUT" });
    }
  });

  it("400 NO_CONTENT when no study has an abstract", async () => {
    const response = await post({ studies: [{ title: "Only a title" }, { title: "Another", abstract: "  tiny " }] });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "NO_CONTENT", message: "No Content Available" });
  });

  it("405 for other methods", async () => {
    const response = await SELF.fetch(URL_PATH, { method: "PUT", headers: { Origin: BASE } });
    expect(response.status).toBe(405);
  });
});

const suite = hasWorkerFixtures ? describe : describe.skip;

suite(hasWorkerFixtures ? "offline model through the real route" : `offline model — ${MISSING_WORKER_FIXTURES}`, () => {
  it("JSON mode: 200 with a schema-valid summary of two real abstracts", async () => {
    const studies = realStudies();
    const response = await post(
      { studies: [...studies, { id: "x", title: "An editorial without abstract" }] },
      { ip: "203.0.113.21" },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("Set-Cookie")).toMatch(/mm_device=/); // guest device cookie from metering
    const body = (await response.json()) as CombinedResult;
    expect(body.studiesAnalyzed).toBe(3);
    expect(body.model).toBe(OFFLINE_MODEL_NAME);
    const summary = CombinedSummarySchema.parse(body.combinedSummary);
    expect(summary.strengthOfEvidence).toBe("moderate");
    expect(summary.quantitativeFindings.pooledEffectSize).toMatch(
      /^Not pooled: MetaMind pools effects only in a meta-analysis/,
    );
    expect(summary.quantitativeFindings.sampleSizeTotal).toContain("10,595");
    expect(body.notes).toEqual(["1 of 3 studies has no abstract; only its title was analysed: Study 3."]);
    expect(body.combinedText).toMatch(/^Combined Research Summary of 3 studies\n/);
    expect(body.combinedText).toContain("\nExecutive summary\n");
    for (const [id, source] of Object.entries(body.citationSources)) {
      expect(id).toMatch(/^T[12]\.S\d+$/);
      const study = studies[source.study - 1]!;
      expect(`${study.title}\n\n${study.abstract}`.slice(source.start, source.end)).toBe(source.quote);
    }
  });

  it("NDJSON mode: several partial lines, then done", async () => {
    const response = await post({ studies: realStudies() }, { ndjson: true, ip: "203.0.113.22" });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/x-ndjson; charset=utf-8");
    expect(decodeURIComponent(response.headers.get("X-Model-Name")!)).toBe(OFFLINE_MODEL_NAME);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    let reads = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
      reads++;
    }
    const lines = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CombinedStreamLine);
    expect(reads).toBeGreaterThan(1);
    const partials = lines.filter((l) => l.type === "partial");
    expect(partials.length).toBeGreaterThan(10);
    expect(lines.map((l) => l.type).indexOf("done")).toBe(lines.length - 1);
    const done = lines[lines.length - 1] as { type: "done" } & CombinedResult;
    expect(CombinedSummarySchema.parse(done.combinedSummary)).toEqual(partials[partials.length - 1]!.object);
    expect(done.studiesAnalyzed).toBe(2);
  });
});

describe("metering", () => {
  function services() {
    return getLoadContext(env as never, { waitUntil: () => {} }).app;
  }

  it("counts a guest's use once after success and gives it back when the model fails", async () => {
    expectConsoleError();
    const app = services();
    const request = () => new Request(URL_PATH, { method: "POST", headers: { "CF-Connecting-IP": "203.0.113.99" } });
    // Malformed JSON from the model (streamed, as the service always calls the model).
    const malformed = () =>
      new MockLanguageModelV4({
        doStream: async () => ({
          stream: simulateReadableStream({
            chunks: [
              { type: "stream-start", warnings: [] },
              { type: "text-start", id: "t" },
              { type: "text-delta", id: "t", delta: '{"executiveSummary": "cut' },
              { type: "text-end", id: "t" },
              { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
            ] satisfies LanguageModelV4StreamPart[],
          }),
        }),
      });
    const failed = await combinedSummaryResponse(app, {
      studies: SYNTHETIC,
      user: null,
      request: request(),
      stream: false,
      model: { model: malformed(), name: "mock", provider: "openai" },
    });
    expect(failed.status).toBe(502);
    expect(await failed.json()).toEqual({
      error: "AI_FAILED",
      message: "Failed to analyze studies. Please try again.",
    });
    expect((await getGuestUsage(app, request())).aiSummaries.used).toBe(0);

    const failedStream = await combinedSummaryResponse(app, {
      studies: SYNTHETIC,
      user: null,
      request: request(),
      stream: true,
      model: { model: malformed(), name: "mock", provider: "openai" },
    });
    expect(failedStream.status).toBe(200);
    const lines = (await failedStream.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CombinedStreamLine);
    expect(lines[lines.length - 1]).toEqual({
      type: "error",
      error: "AI_FAILED",
      message: "Failed to analyze studies. Please try again.",
    });
    expect(lines.some((l) => l.type === "done")).toBe(false);
    expect((await getGuestUsage(app, request())).aiSummaries.used).toBe(0);

    const ok = await combinedSummaryResponse(app, {
      studies: SYNTHETIC,
      user: null,
      request: request(),
      stream: false,
    });
    expect(ok.status).toBe(200);
    expect((await getGuestUsage(app, request())).aiSummaries.used).toBe(1);
  });

  it("answers 403 LIMIT_REACHED once a guest has used the trial", async () => {
    const ip = "203.0.113.50";
    const body = { studies: SYNTHETIC, regenerate: true };
    for (let i = 0; i < 5; i++) expect((await post(body, { ip })).status).toBe(200);
    const refused = await post(body, { ip });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: "LIMIT_REACHED", feature: "ai_summaries", trial: true });
  });
});

describe("combined summary cache", () => {
  const STUDIES = [
    {
      title: "Cache test: creatine and muscle strength",
      abstract:
        "METHODS: 120 older adults were randomised to creatine or placebo for 24 weeks. RESULTS: Leg press strength improved more with creatine (mean difference 12.4 kg; 95% CI 6.1 to 18.7). CONCLUSIONS: Creatine added to resistance training increased strength.",
    },
  ];

  it("answers a repeated request from KV without counting a use; regenerate runs the model again", async () => {
    const ip = "203.0.113.61";
    const first = await post({ studies: STUDIES }, { ip });
    expect(first.status).toBe(200);
    expect(first.headers.get("X-Cache")).toBeNull();
    const body = (await first.json()) as CombinedResult;
    const used = async () =>
      (
        await getGuestUsage(
          getLoadContext(env as never, { waitUntil: () => {} }).app,
          new Request(URL_PATH, { headers: { "CF-Connecting-IP": ip } }),
        )
      ).aiSummaries.used;
    expect(await used()).toBe(1);
    const cookie = first.headers.get("Set-Cookie")?.split(";")[0] ?? "";

    const again = await SELF.fetch(URL_PATH, {
      method: "POST",
      headers: { Origin: BASE, "Content-Type": "application/json", "CF-Connecting-IP": ip, Cookie: cookie },
      body: JSON.stringify({ studies: STUDIES }),
    });
    expect(again.headers.get("X-Cache")).toBe("HIT");
    expect(await again.json()).toEqual(body);
    expect(await used()).toBe(1);

    const stream = await post({ studies: STUDIES }, { ip, ndjson: true });
    const lines = (await stream.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CombinedStreamLine);
    expect(lines).toEqual([{ type: "done", ...body }]);

    const regenerated = await post({ studies: STUDIES, regenerate: true }, { ip });
    expect(regenerated.headers.get("X-Cache")).toBeNull();
    expect(regenerated.status).toBe(200);
    expect(await used()).toBe(2);
  });

  it("keys the cache by model and texts, not by ids", async () => {
    const a = await combinedCacheKey([{ id: 1, title: "T", abstract: "A long enough abstract." }], "m1");
    const b = await combinedCacheKey([{ id: 2, title: "T", abstract: "A long enough abstract." }], "m1");
    const c = await combinedCacheKey([{ id: 1, title: "T", abstract: "A long enough abstract." }], "m2");
    const d = await combinedCacheKey([{ id: 1, title: "T", abstract: "Another abstract text." }], "m1");
    expect(a).toBe(b);
    expect(new Set([a, c, d]).size).toBe(3);
    expect(a).toMatch(/^combined:v1:[0-9a-f]{64}$/);
  });
});
