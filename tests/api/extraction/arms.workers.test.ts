import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { extractArms, parseReport } from "~/lib/arms";
import { hasWorkerFixtures, MISSING_WORKER_FIXTURES, workerFixtureReader } from "../../mocks/workers-fixtures.ts";
import { fetchEuropePmcJats, MAX_JATS_BYTES } from "~/.server/extraction/europepmc";

const BASE = "https://metamind.test";
let ip = 0;

function post(body: unknown) {
  ip += 1;
  return SELF.fetch(`${BASE}/api/extraction/arms`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: BASE, "CF-Connecting-IP": `203.0.113.${ip}` },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const REPORT = [
  "Participants were randomised to zelmoxan (n = 64) or placebo (n = 62).",
  "",
  "| Outcome | Zelmoxan (n = 64) | Placebo (n = 62) |",
  "|---|---|---|",
  "| Relapse, n (%) | 12 (18.8) | 25 (40.3) |",
  "| Pain score, mean (SD) | 3.1 (1.2) | 4.4 (1.5) |",
].join("\n");

describe("POST /api/extraction/arms", () => {
  it("returns arm-level counts with table quotes, offline and free", async () => {
    const res = await post({
      text: REPORT,
      format: "markdown",
      intervention: "zelmoxan",
      comparator: "placebo",
      outcome: "relapse",
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown> & {
      intervention: Record<string, unknown>;
      quotes: { field: string; table?: string }[];
    };
    expect(body.outcomeType).toBe("binary");
    expect(body.intervention).toEqual({ events: 12, groupSize: 64, mean: null, sd: null });
    expect(body.comparator).toEqual({ events: 25, groupSize: 62, mean: null, sd: null });
    expect(body.extractor).toBe("rules");
    expect(body.quotes.some((q) => q.field === "events" && q.table === "Table 1")).toBe(true);
    // Issue 26 contract: a confidence (0–1) and a reason per value; null / 'not found' where none is given.
    const confidence = body.confidence as Record<string, Record<string, number | null>>;
    const reason = body.reason as Record<string, Record<string, string | null>>;
    expect(confidence.intervention.events).toBeGreaterThanOrEqual(0.8);
    expect(confidence.intervention.events).toBeLessThanOrEqual(1);
    expect(confidence.intervention.mean).toBeNull();
    expect(reason.intervention.events).toContain('row "Relapse, n (%)"');
    expect(reason.comparator.groupSize).toContain("Placebo (n = 62)");
    expect(body.candidates).toEqual([]);
  });

  it("returns means and SDs for a continuous outcome", async () => {
    const res = await post({
      text: REPORT,
      format: "markdown",
      intervention: "zelmoxan",
      comparator: "placebo",
      outcome: "pain score",
    });
    const body = (await res.json()) as { outcomeType: string; intervention: unknown; comparator: unknown };
    expect(body.outcomeType).toBe("continuous");
    expect(body.intervention).toEqual({ events: null, groupSize: 64, mean: 3.1, sd: 1.2 });
    expect(body.comparator).toEqual({ events: null, groupSize: 62, mean: 4.4, sd: 1.5 });
  });

  it("answers 400 with a JSON error for a missing field or an unknown format", async () => {
    const missing = await post({ text: REPORT, format: "markdown", intervention: "zelmoxan", comparator: "placebo" });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toBe("INVALID_INPUT");
    const format = await post({ text: REPORT, format: "docx", intervention: "a", comparator: "b", outcome: "c" });
    expect(format.status).toBe(400);
    expect(((await format.json()) as { message: string }).message).toMatch(/format/);
    const json = await post("{not json");
    expect(json.status).toBe(400);
  });

  it("answers 413 for a text over 2 MB", async () => {
    const res = await post({
      text: "a".repeat(2 * 1024 * 1024 + 10),
      format: "text",
      intervention: "a",
      comparator: "b",
      outcome: "c",
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("Europe PMC full text", () => {
  it.skipIf(!hasWorkerFixtures)(
    `fetches JATS once, caches it in R2 and extracts from it${hasWorkerFixtures ? "" : ` — ${MISSING_WORKER_FIXTURES}`}`,
    async () => {
      const xml = workerFixtureReader("europepmc/fulltext_PMC2995234.xml");
      expect(xml).toBeTruthy();
      const urls: string[] = [];
      const fakeFetch = (async (input: RequestInfo | URL) => {
        urls.push(String(input));
        return new Response(xml, { status: 200, headers: { "Content-Type": "application/xml" } });
      }) as typeof fetch;
      const deps = { fetch: fakeFetch, baseUrl: "https://europepmc.test/rest", bucket: env.BUCKET };
      const first = await fetchEuropePmcJats(deps, "PMC2995234");
      const second = await fetchEuropePmcJats(deps, "pmc2995234");
      expect(first.cached).toBe(false);
      expect(second.cached).toBe(true);
      expect(urls).toEqual(["https://europepmc.test/rest/PMC2995234/fullTextXML"]);
      const report = parseReport(first.xml, "jats");
      expect(report.paragraphs.length).toBeGreaterThan(5);
      const tables = (xml?.match(/<table[\s>]/g) ?? []).length;
      expect(report.tables.length).toBe(tables);
      expect(report.text).toContain("Baseline characteristics of study patients");
      const result = extractArms(report, { intervention: "treatment", comparator: "control", outcome: "outcome" });
      expect(result.extractor).toBe("rules");
      await env.BUCKET.delete("europepmc/fulltext/PMC2995234.xml");
    },
  );

  it("refuses a body over the byte cap and a malformed PMCID, and maps 404", async () => {
    const big = (async () => new Response("<article>" + "x".repeat(MAX_JATS_BYTES + 1))) as unknown as typeof fetch;
    await expect(
      fetchEuropePmcJats({ fetch: big, baseUrl: "https://e.test", bucket: env.BUCKET }, "PMC1"),
    ).rejects.toMatchObject({ status: 413 });
    expect(await env.BUCKET.get("europepmc/fulltext/PMC1.xml")).toBeNull();
    await expect(
      fetchEuropePmcJats({ fetch: big, baseUrl: "https://e.test", bucket: env.BUCKET }, "12345"),
    ).rejects.toMatchObject({ status: 400 });
    const missing = (async () => new Response("", { status: 404 })) as unknown as typeof fetch;
    await expect(
      fetchEuropePmcJats({ fetch: missing, baseUrl: "https://e.test", bucket: env.BUCKET }, "PMC2"),
    ).rejects.toMatchObject({ status: 404 });
  });
});
