import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { env, SELF } from "cloudflare:test";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { BASE, uniqueIp } from "../helpers";
import { expectConsoleError } from "../../setup/fail-on-console-error";
import { OFFLINE_MODEL_NAME } from "~/.server/ai/registry";
import { usagePeriod } from "~/.server/billing/usage";
import { getLoadContext } from "~/.server/context";
import { AppError } from "~/.server/http/errors";
import { specializedSummarize } from "~/.server/studies/specialized";

const ABSTRACT = [
  "BACKGROUND: Statins lower LDL cholesterol, but their effect on frailty in older adults is unclear.",
  "METHODS: We randomly assigned 1,204 adults aged 70 years or older to atorvastatin 20 mg or placebo for 2 years.",
  "RESULTS: Frailty scores rose by 0.75 points with placebo vs. 0.41 points with atorvastatin (mean difference -0.34; 95% CI -0.52 to -0.16).",
  "Systolic blood pressure fell by 4 mmHg and fewer strokes occurred (12 vs 19; hazard ratio 0.63).",
  "Myocardial infarction rates were similar between groups (2.1% vs 2.4%).",
  "Muscle symptoms occurred in 6.2% vs. 5.9% of participants (p = 0.81).",
  "CONCLUSIONS: Atorvastatin slowed the rise in frailty over 2 years without more muscle symptoms.",
].join(" ");

interface Answer {
  summary: string;
  focus: string;
  model: string;
  citations: { id: string; quote: string; start: number; end: number; anchors?: number[] }[];
  cached: boolean;
}

function services() {
  const pending: Promise<unknown>[] = [];
  const app = getLoadContext(env as never, { waitUntil: (p) => void pending.push(p) }).app;
  return { app, settled: () => Promise.all(pending) };
}

async function insertStudy(abstract: string | null): Promise<number> {
  const row = await env.DB.prepare(
    `INSERT INTO studies (title_key, title, abstract, authors, source, source_id, study_type, publication_types)
     VALUES (?, ?, ?, '[]', 'pubmed', ?, 'Clinical Trial', '[]') RETURNING id`,
  )
    .bind(`test ${crypto.randomUUID()}`, "Atorvastatin and frailty in older adults", abstract, crypto.randomUUID())
    .first<{ id: number }>();
  return row!.id;
}

async function storedRows(studyId: number) {
  const { results } = await env.DB.prepare(
    "SELECT feature, focus, model, content, citations, updated_at FROM ai_summaries WHERE study_id = ?",
  )
    .bind(studyId)
    .all<{
      feature: string;
      focus: string;
      model: string;
      content: string;
      citations: string | null;
      updated_at: number;
    }>();
  return results;
}

/** POST /api/studies/specialized-summarize as a guest from a fresh IP (unless headers say otherwise). */
function post(body: unknown, headers: Record<string, string> = {}) {
  return SELF.fetch(`${BASE}/api/studies/specialized-summarize`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: BASE, "CF-Connecting-IP": uniqueIp(), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
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

function expectGrounded(source: string, answer: Pick<Answer, "citations">) {
  expect(answer.citations.length).toBeGreaterThan(0);
  for (const c of answer.citations) {
    expect(source).toContain(c.quote);
    expect(source.slice(c.start, c.end)).toBe(c.quote);
  }
}

describe("POST /api/studies/specialized-summarize — validation", () => {
  it("400 for a bad focus, a bad studyId or a too long text", async () => {
    const id = await insertStudy(ABSTRACT);
    for (const body of [
      { studyId: id },
      { studyId: id, focus: "astrology" },
      { studyId: id, focus: "Cardiovascular" },
    ]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: "INVALID_FOCUS" });
    }
    for (const body of [
      { studyId: -3, focus: "nutrition" },
      { studyId: 1.5, focus: "nutrition" },
      { focus: "nutrition", text: "x".repeat(50_001) },
    ]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: "INVALID_INPUT" });
    }
    expect((await post("{not json")).status).toBe(400);
    expect(await storedRows(id)).toEqual([]);
  });

  it("400 NO_CONTENT for a missing or short text, NO_ABSTRACT for a study without one, 404 for an unknown study", async () => {
    for (const body of [{ focus: "exercise" }, { focus: "exercise", text: "  too short  " }]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: "NO_CONTENT", message: "No Content Available" });
    }
    const noAbstract = await insertStudy("   abstract ");
    const res = await post({ studyId: noAbstract, focus: "exercise" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "NO_ABSTRACT", message: "No Abstract Available" });
    const missing = await post({ studyId: 99_999_999, focus: "exercise" });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: "STUDY_NOT_FOUND" });
    expect(await storedRows(noAbstract)).toEqual([]);
  });
});

describe("JSON mode with the offline model", () => {
  it("answers {summary, focus, model, citations}, stores it, serves it from the cache, and regenerates", async () => {
    const id = await insertStudy(ABSTRACT);
    const first = await post({ studyId: id, focus: "cardiovascular" });
    expect(first.status).toBe(200);
    expect(first.headers.get("X-AI-Uses-Remaining")).toBe("4");
    const answer = (await first.json()) as Answer;
    expect(answer).toMatchObject({ focus: "cardiovascular", model: OFFLINE_MODEL_NAME, cached: false });
    expectGrounded(ABSTRACT, answer);
    expect(answer.summary).toContain("Systolic blood pressure fell by 4 mmHg");
    expect(answer.summary).not.toContain("⟦");

    const [row] = await storedRows(id);
    expect(row).toMatchObject({
      feature: "specialized",
      focus: "cardiovascular",
      model: OFFLINE_MODEL_NAME,
      content: answer.summary,
    });
    expect(JSON.parse(row!.citations!)).toEqual(answer.citations);

    const again = await post({ studyId: id, focus: "cardiovascular" });
    expect(again.status).toBe(200);
    expect(again.headers.get("X-Cache")).toBe("HIT");
    expect(again.headers.get("X-AI-Uses-Remaining")).toBeNull(); // nothing reserved for a cache hit
    expect(await again.json()).toEqual({ ...answer, cached: true });
    expect((await storedRows(id))[0]!.updated_at).toBe(row!.updated_at);

    await new Promise((r) => setTimeout(r, 5));
    const fresh = await post({ studyId: id, focus: "cardiovascular", regenerate: true });
    expect(fresh.status).toBe(200);
    expect(((await fresh.json()) as Answer).cached).toBe(false);
    const rows = await storedRows(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.updated_at).toBeGreaterThan(row!.updated_at);

    const stored = await SELF.fetch(`${BASE}/api/studies/${id}/specialized?focus=cardiovascular`);
    expect(stored.status).toBe(200);
    expect(await stored.json()).toMatchObject({
      summary: answer.summary,
      focus: "cardiovascular",
      citations: answer.citations,
    });
  });

  it("keeps one cached analysis per focus and labels the lead-in when the abstract lacks the focus", async () => {
    const id = await insertStudy(ABSTRACT);
    const cognitive = (await (await post({ studyId: id, focus: "cognitive" })).json()) as Answer;
    expect(cognitive.summary).toMatch(
      /^⟦framing: The source does not discuss cognitive health directly; its central findings are:⟧ /,
    );
    expectGrounded(ABSTRACT, cognitive);
    await post({ studyId: id, focus: "musculoskeletal" });
    expect((await storedRows(id)).map((r) => r.focus).sort()).toEqual(["cognitive", "musculoskeletal"]);
  });

  it("analyses a given text without storing anything", async () => {
    const text = `Atorvastatin and frailty. ${ABSTRACT}`;
    const res = await post({ focus: "musculoskeletal", text });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Answer;
    expect(answer.focus).toBe("musculoskeletal");
    expectGrounded(text, answer);
    expect(answer.summary).toContain("Muscle symptoms occurred in 6.2% vs. 5.9% of participants (p = 0.81).");
  });
});

describe("stream mode", () => {
  it("streams the text in chunks, stores it, and GET …/specialized returns it with citations", async () => {
    const id = await insertStudy(ABSTRACT);
    const missing = await SELF.fetch(`${BASE}/api/studies/${id}/specialized?focus=nutrition`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: "SUMMARY_NOT_FOUND" });
    expect((await SELF.fetch(`${BASE}/api/studies/${id}/specialized?focus=zzz`)).status).toBe(400);

    const res = await post({ studyId: id, focus: "cardiovascular" }, { Accept: "text/plain" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/text\/plain/);
    expect(res.headers.get("X-Focus")).toBe("cardiovascular");
    expect(res.headers.get("X-Cache")).toBe("MISS");
    expect(decodeURIComponent(res.headers.get("X-Model-Name")!)).toBe(OFFLINE_MODEL_NAME);
    const { reads, error } = await readAll(res);
    expect(error).toBeUndefined();
    expect(reads.length).toBeGreaterThan(5);

    const stored = await SELF.fetch(`${BASE}/api/studies/${id}/specialized?focus=cardiovascular`);
    expect(stored.status).toBe(200);
    const body = (await stored.json()) as Answer;
    expect(body.summary).toBe(reads.join(""));
    expectGrounded(ABSTRACT, body);

    const cached = await post({ studyId: id, focus: "cardiovascular" }, { Accept: "text/plain" });
    expect(cached.headers.get("X-Cache")).toBe("HIT");
    expect(await cached.text()).toBe(body.summary);
  });

  it("streams a given text without storing it", async () => {
    const res = await post({ focus: "cardiovascular", text: ABSTRACT }, { Accept: "text/plain" });
    expect(res.status).toBe(200);
    const { reads } = await readAll(res);
    expect(reads.join("")).toContain("blood pressure");
  });
});

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 4, text: 4, reasoning: 0 },
};

/**
 * A model whose call fails: finish reason "error" and no text, as a provider error ends a
 * generation. (A doGenerate that throws fails the same way, as the node tests show, but inside
 * workerd the ai SDK's diagnostics-channel tracing then also reports the rejection as unhandled.)
 */
function failingModel() {
  return new MockLanguageModelV4({
    doGenerate: { content: [], finishReason: { unified: "error", raw: "500" }, usage, warnings: [] },
  });
}

describe("model failures (MockLanguageModelV4)", () => {
  it("JSON mode: 502 AI_FAILED with the spec's message, nothing stored", async () => {
    expectConsoleError();
    const id = await insertStudy(ABSTRACT);
    const model = failingModel();
    const { app } = services();
    const error = await specializedSummarize(app, {
      body: { studyId: id, focus: "cardiovascular" },
      mode: "json",
      model: { model, name: "mock-failing" },
      meter: null,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(502);
    expect((error as AppError).toResponse().status).toBe(502);
    expect(await (error as AppError).toResponse().json()).toEqual({
      error: "AI_FAILED",
      message: "Failed to generate specialized summary. Please try again.",
    });
    expect(await storedRows(id)).toEqual([]);
  });

  it("JSON mode with markers: citations from [Sx], invented numbers marked unverified", async () => {
    const id = await insertStudy(ABSTRACT);
    const model = new MockLanguageModelV4({
      doGenerate: {
        content: [{ type: "text", text: "Strokes fell (12 vs 19) [S4] and blood pressure by 9 mmHg [S4]." }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      },
    });
    const { app } = services();
    const res = await specializedSummarize(app, {
      body: { studyId: id, focus: "cardiovascular" },
      mode: "json",
      model: { model, name: "mock-model" },
      meter: null,
    });
    const answer = (await res.json()) as Answer;
    expect(answer.summary).toBe("Strokes fell (12 vs 19) and blood pressure by ⟦unverified: 9⟧ mmHg.");
    expect(answer.citations.map((c) => c.id)).toEqual(["S4"]);
    expectGrounded(ABSTRACT, answer);
    expect((await storedRows(id))[0]).toMatchObject({ model: "mock-model", content: answer.summary });
  });

  it("stream mode: an error mid-stream errors the body and stores nothing", async () => {
    expectConsoleError();
    const id = await insertStudy(ABSTRACT);
    const parts: LanguageModelV4StreamPart[] = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Strokes " },
      { type: "error", error: new Error("upstream 500") },
    ];
    const model = new MockLanguageModelV4({
      doStream: async () => ({ stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: 2 }) }),
    });
    const { app, settled } = services();
    const res = await specializedSummarize(app, {
      body: { studyId: id, focus: "cardiovascular" },
      mode: "stream",
      model: { model, name: "mock-stream-failing" },
      meter: null,
    });
    const { error } = await readAll(res);
    expect(error).toBeDefined();
    await settled();
    expect(await storedRows(id)).toEqual([]);
  });
});

describe("metering", () => {
  async function register(ip: string): Promise<{ cookie: string; userId: string }> {
    const res = await SELF.fetch(`${BASE}/api/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: BASE, "CF-Connecting-IP": ip },
      body: JSON.stringify({ email: `s-${crypto.randomUUID()}@example.org`, password: "secret12" }),
    });
    expect(res.status).toBe(201);
    const cookie = res.headers.get("Set-Cookie")!.split(";")[0]!;
    const me = (await (await SELF.fetch(`${BASE}/api/user`, { headers: { Cookie: cookie } })).json()) as { id: string };
    return { cookie, userId: me.id };
  }

  async function usedCount(userId: string): Promise<number> {
    const row = await env.DB.prepare("SELECT count FROM ai_usage WHERE user_id = ? AND period = ?")
      .bind(userId, usagePeriod(new Date()))
      .first<{ count: number }>();
    return row?.count ?? 0;
  }

  it("counts a Free user's analysis once, not for a cache hit, and refuses at the limit with 403 LIMIT_REACHED", async () => {
    const ip = uniqueIp();
    const { cookie, userId } = await register(ip);
    const headers = { Cookie: cookie, "CF-Connecting-IP": ip };
    const id = await insertStudy(ABSTRACT);
    expect((await post({ studyId: 99_999_999, focus: "nutrition" }, headers)).status).toBe(404);
    expect((await post({ studyId: id, focus: "nutritionx" }, headers)).status).toBe(400);
    expect(await usedCount(userId)).toBe(0);

    expect((await post({ studyId: id, focus: "nutrition" }, headers)).status).toBe(200);
    expect(await usedCount(userId)).toBe(1);
    expect((await post({ studyId: id, focus: "nutrition" }, headers)).status).toBe(200); // cached
    expect(await usedCount(userId)).toBe(1);
    const streamed = await post({ studyId: id, focus: "mechanisms" }, { ...headers, Accept: "text/plain" });
    expect((await readAll(streamed)).error).toBeUndefined();
    expect(await usedCount(userId)).toBe(2);

    await env.DB.prepare("UPDATE ai_usage SET count = 20 WHERE user_id = ?").bind(userId).run();
    const refused = await post({ studyId: id, focus: "longevity" }, headers);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: "LIMIT_REACHED", feature: "specialized_analysis" });
    const streamRefused = await post({ studyId: id, focus: "longevity" }, { ...headers, Accept: "text/plain" });
    expect(streamRefused.status).toBe(403);
    expect(await usedCount(userId)).toBe(20);
    expect((await storedRows(id)).map((r) => r.focus).sort()).toEqual(["mechanisms", "nutrition"]);
  });

  it("gives a guest 5 analyses per 24 hours, then 403 with the trial shape", async () => {
    const ip = uniqueIp();
    const id = await insertStudy(ABSTRACT);
    for (let i = 0; i < 5; i++) {
      const res = await post({ focus: "exercise", text: ABSTRACT }, { "CF-Connecting-IP": ip });
      expect(res.status).toBe(200);
      expect(res.headers.get("X-AI-Uses-Remaining")).toBe(String(4 - i));
    }
    const refused = await post({ studyId: id, focus: "exercise" }, { "CF-Connecting-IP": ip });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      error: "LIMIT_REACHED",
      feature: "specialized_analysis",
      guestFeature: "specializedAnalysis",
      trial: true,
    });
  });

  it("gives the use back when the model fails", async () => {
    expectConsoleError();
    const ip = uniqueIp();
    const { userId } = await register(ip);
    const user = await env.DB.prepare("SELECT * FROM users WHERE id = ?").bind(userId).first();
    const id = await insertStudy(ABSTRACT);
    const model = failingModel();
    const { app, settled } = services();
    const request = new Request(`${BASE}/api/studies/specialized-summarize`, {
      method: "POST",
      headers: { "CF-Connecting-IP": ip },
    });
    const error = await specializedSummarize(app, {
      body: { studyId: id, focus: "cardiovascular" },
      mode: "json",
      model: { model, name: "mock-429" },
      meter: { user: { ...(user as object), plan: "free" } as never, request },
    }).catch((e: unknown) => e);
    expect((error as AppError).code).toBe("AI_FAILED");
    await settled();
    expect(await usedCount(userId)).toBe(0);
  });
});
