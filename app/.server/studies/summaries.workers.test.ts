import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { env, SELF } from "cloudflare:test";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createReplayFetch } from "../../../tests/mocks/index.ts";
import { expectConsoleError } from "../../../tests/setup/fail-on-console-error";
import {
  hasWorkerFixtures,
  MISSING_WORKER_FIXTURES,
  workerFixtureReader,
} from "../../../tests/mocks/workers-fixtures.ts";
import { OFFLINE_MODEL_NAME } from "../ai/registry";
import { getLoadContext } from "../context";
import { regenerateStudySummary } from "./summaries";

const BASE = "https://metamind.test";
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 4, text: 4, reasoning: 0 },
};
const DELTAS = ["Vitamin ", "D ", "did ", "not ", "prevent ", "fractures."];

function services() {
  const ctx = getLoadContext(env as never, { waitUntil: () => {} });
  return ctx.app;
}

function mockModel(parts: LanguageModelV4StreamPart[]) {
  return new MockLanguageModelV4({
    doStream: async () => ({ stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: 5 }) }),
  });
}

function textParts(deltas: string[]): LanguageModelV4StreamPart[] {
  return [
    { type: "text-start", id: "t" },
    ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
  ];
}

async function readAll(response: Response): Promise<{ reads: string[]; error?: unknown }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const reads: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { reads };
      reads.push(value);
    }
  } catch (error) {
    return { reads, error };
  }
}

async function insertStudy(abstract: string | null): Promise<number> {
  const row = await env.DB.prepare(
    `INSERT INTO studies (title_key, title, abstract, authors, source, source_id, study_type, publication_types)
     VALUES (?, ?, ?, '[]', 'pubmed', ?, 'Research Article', '[]') RETURNING id`,
  )
    .bind(`test ${crypto.randomUUID()}`, "A test study", abstract, crypto.randomUUID())
    .first<{ id: number }>();
  return row!.id;
}

async function summaryRows(studyId: number) {
  const { results } = await env.DB.prepare("SELECT model, content FROM ai_summaries WHERE study_id = ?")
    .bind(studyId)
    .all<{ model: string; content: string }>();
  return results;
}

describe("POST /api/studies/{id}/regenerate-summary errors", () => {
  it("400 for a malformed id, 404 for an unknown one, 400 NO_ABSTRACT without an abstract", async () => {
    const post = (id: string | number) =>
      SELF.fetch(`${BASE}/api/studies/${id}/regenerate-summary`, { method: "POST", headers: { Origin: BASE } });
    expect((await post("abc")).status).toBe(400);
    const missing = await post(99_999_999);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: "STUDY_NOT_FOUND" });
    const id = await insertStudy("   ");
    const noAbstract = await post(id);
    expect(noAbstract.status).toBe(400);
    expect(await noAbstract.json()).toEqual({ error: "NO_ABSTRACT", message: "No Abstract Available" });
    expect(await summaryRows(id)).toEqual([]);
  });
});

describe("streaming with MockLanguageModelV4", () => {
  it("forwards chunks as they come and stores the text with the model's name when done", async () => {
    const id = await insertStudy("Vitamin D supplementation was tested in 2,000 adults over five years.");
    const response = await regenerateStudySummary(services(), {
      studyId: id,
      meter: null,
      model: {
        model: mockModel([
          { type: "stream-start", warnings: [] },
          ...textParts(DELTAS),
          { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
        ]),
        name: "mock-model",
      },
    });
    expect(response.headers.get("X-Model-Name")).toBe("mock-model");
    const { reads, error } = await readAll(response);
    expect(error).toBeUndefined();
    expect(reads.length).toBeGreaterThan(3);
    expect(reads.join("")).toBe(DELTAS.join(""));
    expect(await summaryRows(id)).toEqual([{ model: "mock-model", content: DELTAS.join("").trim() }]);
  });

  it("grounds a model's summary in the abstract: numbers not in the study are flagged, copies cited", async () => {
    const abstract =
      "Vitamin D supplementation was tested in 2,000 adults over five years. Fractures did not differ between groups.";
    const id = await insertStudy(abstract);
    const deltas = ["Fractures did not ", "differ between groups. ", "Falls dropped by 37% in ", "2,000 adults."];
    const response = await regenerateStudySummary(services(), {
      studyId: id,
      meter: null,
      model: {
        model: mockModel([
          { type: "stream-start", warnings: [] },
          ...textParts(deltas),
          { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
        ]),
        name: "mock-model",
      },
    });
    // The stream is the model's own text; the stored summary is the grounded one.
    expect((await readAll(response)).reads.join("")).toBe(deltas.join(""));
    const grounded = "Fractures did not differ between groups. Falls dropped by ⟦unverified: 37%⟧ in 2,000 adults.";
    expect(await summaryRows(id)).toEqual([{ model: "mock-model", content: grounded }]);
    const study = (await (await SELF.fetch(`${BASE}/api/studies/${id}`)).json()) as {
      aiSummary: string;
      aiSummaryCitations: { id: string; quote: string; start: number; end: number; anchors: number[] }[];
    };
    expect(study.aiSummary).toBe(grounded);
    expect(study.aiSummaryCitations).toEqual([
      {
        id: "S2",
        quote: "Fractures did not differ between groups.",
        start: abstract.indexOf("Fractures"),
        end: abstract.length,
        anchors: ["Fractures did not differ between groups.".length],
      },
    ]);
  });

  it("stores nothing when the model fails mid-stream", async () => {
    expectConsoleError();
    const id = await insertStudy("Vitamin D supplementation was tested in 2,000 adults over five years.");
    const response = await regenerateStudySummary(services(), {
      studyId: id,
      meter: null,
      model: {
        model: mockModel([
          { type: "stream-start", warnings: [] },
          ...textParts(DELTAS.slice(0, 2)).slice(0, 3),
          { type: "error", error: new Error("upstream 500") },
        ]),
        name: "mock-failing",
      },
    });
    const { error } = await readAll(response);
    expect(error).toBeDefined();
    expect(await summaryRows(id)).toEqual([]);
  });

  it("a remote model that stalls is cut off after AI_TIMEOUT_MS: nothing stored, the Free use given back", async () => {
    expectConsoleError();
    const id = await insertStudy("Vitamin D supplementation was tested in 2,000 adults over five years.");
    const userId = `u-${crypto.randomUUID()}`;
    await env.DB.prepare("INSERT INTO users (id, email, password_hash, plan) VALUES (?, ?, 'x', 'free')")
      .bind(userId, `${userId}@example.org`)
      .run();
    const user = await env.DB.prepare("SELECT * FROM users WHERE id = ?").bind(userId).first();
    let calls = 0;
    // An OpenAI-compatible server that accepts the request, sends one SSE chunk and then hangs.
    const stallingServer = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      calls++;
      const signal = init?.signal ?? undefined;
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          const chunk = {
            id: "c1",
            object: "chat.completion.chunk",
            created: 1,
            model: "stall",
            choices: [{ index: 0, delta: { role: "assistant", content: "Vitamin " }, finish_reason: null }],
          };
          controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
          signal?.addEventListener("abort", () => controller.error(signal.reason), { once: true });
        },
      });
      return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
    }) as typeof fetch;
    const base = services();
    const app = {
      ...base,
      fetch: stallingServer,
      env: { ...base.env, OPENAI_BASE_URL: "https://llm.example.test/v1", AI_MODEL: "stall", AI_TIMEOUT_MS: 150 },
    };
    const started = Date.now();
    const response = await regenerateStudySummary(app, {
      studyId: id,
      meter: {
        user: user as never,
        request: new Request(`${BASE}/x`, { headers: { "CF-Connecting-IP": "203.0.113.77" } }),
      },
    });
    expect(response.headers.get("X-Model-Name")).toContain("stall");
    const { reads, error } = await readAll(response);
    expect(error).toBeDefined(); // the client sees a failed stream → 'Failed to regenerate summary…'
    expect(calls).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(reads.join("")).toBe("Vitamin ");
    expect(await summaryRows(id)).toEqual([]);
    await new Promise((r) => setTimeout(r, 50)); // the release runs in waitUntil
    const usage = await env.DB.prepare("SELECT count FROM ai_usage WHERE user_id = ?")
      .bind(userId)
      .first<{ count: number }>();
    expect(usage?.count ?? 0).toBe(0);
  });
});

const suite = hasWorkerFixtures ? describe : describe.skip;

suite(hasWorkerFixtures ? "offline model through the real route" : `offline model — ${MISSING_WORKER_FIXTURES}`, () => {
  let spy: ReturnType<typeof vi.spyOn>;
  beforeAll(() => {
    const e = env as unknown as Record<string, string>;
    const replay = createReplayFetch(workerFixtureReader, { baseUrls: { pubmed: e.PUBMED_BASE_URL } });
    spy = vi.spyOn(globalThis, "fetch").mockImplementation(replay as typeof fetch);
  });

  it("streams an extractive summary of source sentences, stores it, and search returns it", async () => {
    const search = await SELF.fetch(`${BASE}/api/search?q=pain`);
    const { studies } = (await search.json()) as { studies: { id: number; abstract: string | null }[] };
    const study = studies.find((s) => (s.abstract ?? "").length > 200)!;
    const response = await SELF.fetch(`${BASE}/api/studies/${study.id}/regenerate-summary`, {
      method: "POST",
      headers: { Origin: BASE },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toMatch(/text\/plain/);
    expect(decodeURIComponent(response.headers.get("X-Model-Name")!)).toBe(OFFLINE_MODEL_NAME);
    const { reads } = await readAll(response);
    const text = reads.join("");
    expect(reads.length).toBeGreaterThan(5);
    const sentences = text.split(/(?<=[.!?])\s+(?=[A-Z])/);
    for (const sentence of sentences) expect(study.abstract).toContain(sentence.trim());

    type Cited = { id: string; quote: string; start: number; end: number; anchors: number[] };
    const stored = (await (await SELF.fetch(`${BASE}/api/studies/${study.id}`)).json()) as {
      aiSummary: string;
      aiSummaryModel: string;
      aiSummaryCitations: Cited[] | null;
    };
    // An extractive summary is stored exactly as streamed, each copied sentence cited.
    expect(stored).toMatchObject({ aiSummary: text.trim(), aiSummaryModel: OFFLINE_MODEL_NAME });
    const citations = stored.aiSummaryCitations!;
    expect(citations.length).toBeGreaterThan(0);
    for (const c of citations) {
      expect(study.abstract).toContain(c.quote);
      expect(study.abstract!.slice(c.start, c.end)).toBe(c.quote);
      for (const anchor of c.anchors) expect(anchor).toBeLessThanOrEqual(stored.aiSummary.length);
      expect(stored.aiSummary.replace(/\s+/g, " ")).toContain(c.quote.replace(/\s+/g, " "));
    }
    const again = (await (await SELF.fetch(`${BASE}/api/search?q=pain`)).json()) as {
      studies: { id: number; aiSummary: string | null; aiSummaryCitations: Cited[] | null }[];
    };
    const found = again.studies.find((s) => s.id === study.id);
    expect(found?.aiSummary).toBe(text.trim());
    expect(found?.aiSummaryCitations).toEqual(citations);
    spy.mockRestore();
  });
});
