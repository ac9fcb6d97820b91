import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { env, SELF } from "cloudflare:test";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { BASE, uniqueIp } from "../../../tests/api/helpers";
import type { UserRow } from "../../../db/schema";
import { expectConsoleError } from "../../../tests/setup/fail-on-console-error";
import { getLoadContext } from "../context";
import { AppError } from "../http/errors";
import { regenerateStudySummary } from "../studies/summaries";
import { getGuestUsage, reserveAiUse, type MeteredAction } from "./metering";
import { usagePeriod } from "./usage";

const SUMMARY: MeteredAction = { planFeature: "ai_summaries", guestFeature: "aiSummaries" };
const FULL_TEXT: MeteredAction = {
  planFeature: "full_text_analysis",
  guestFeature: "fullTextAnalysis",
  proOnly: true,
};
const ABSTRACT = "Vitamin D supplementation was tested in 2,000 adults over five years.";

/** App services with AI_SUMMARIES_PER_MONTH = `limit`; `settled()` awaits every waitUntil. */
function services(limit = "3") {
  const pending: Promise<unknown>[] = [];
  const app = getLoadContext({ ...env, AI_SUMMARIES_PER_MONTH: limit } as never, {
    waitUntil: (p) => void pending.push(p),
  }).app;
  return { app, settled: () => Promise.all(pending) };
}

async function createUser(plan: "free" | "pro" = "free"): Promise<UserRow> {
  const id = crypto.randomUUID();
  await env.DB.prepare("INSERT INTO users (id, email, password_hash, plan) VALUES (?, ?, 'x', ?)")
    .bind(id, `${id}@example.org`, plan)
    .run();
  const row = await env.DB.prepare("SELECT * FROM users WHERE id = ?").bind(id).first<{ plan: "free" | "pro" }>();
  return {
    id,
    email: `${id}@example.org`,
    passwordHash: "x",
    firstName: null,
    lastName: null,
    profileImageUrl: null,
    plan: row!.plan,
    subscriptionPlatform: null,
    createdAt: Date.now(),
  } as UserRow;
}

async function usageCount(userId: string, now = new Date()): Promise<number> {
  const row = await env.DB.prepare("SELECT count FROM ai_usage WHERE user_id = ? AND period = ?")
    .bind(userId, usagePeriod(now))
    .first<{ count: number }>();
  return row?.count ?? 0;
}

async function setUsage(userId: string, count: number, now = new Date()) {
  await env.DB.prepare(
    `INSERT INTO ai_usage (user_id, period, count, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(user_id, period) DO UPDATE SET count = excluded.count`,
  )
    .bind(userId, usagePeriod(now), count, now.getTime())
    .run();
}

function request(ip: string, cookie?: string): Request {
  const headers: Record<string, string> = { "CF-Connecting-IP": ip };
  if (cookie) headers.Cookie = cookie;
  return new Request(`${BASE}/api/anything`, { method: "POST", headers });
}

/** The `name=value` part of the reservation's mm_device Set-Cookie, or undefined. */
function deviceCookie(headers: Headers): string | undefined {
  return headers
    .getSetCookie()
    .find((c) => c.startsWith("mm_device="))
    ?.split(";")[0];
}

/** The AppError a rejected promise carries (fails the test when it resolves). */
async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("Free plan: one monthly counter in D1", () => {
  it("counts exactly, refuses at the limit with the spec message, release gives the use back", async () => {
    const { app } = services("3");
    const user = await createUser();
    const ctx = { user, request: request(uniqueIp()) };
    const a = await reserveAiUse(app, ctx, SUMMARY);
    expect(a.remaining).toBe(2);
    expect(await usageCount(user.id)).toBe(1);
    await a.commit();
    await a.release(); // after commit: no effect
    expect(await usageCount(user.id)).toBe(1);
    // Different plan features share the one counter.
    await reserveAiUse(app, ctx, { planFeature: "specialized_analysis", guestFeature: "specializedAnalysis" });
    const c = await reserveAiUse(app, ctx, SUMMARY);
    expect(c.remaining).toBe(0);
    expect(await usageCount(user.id)).toBe(3);

    const error = await refusal(reserveAiUse(app, ctx, SUMMARY));
    expect(error.status).toBe(403);
    expect(await error.toResponse().json()).toEqual({
      error: "LIMIT_REACHED",
      feature: "ai_summaries",
      message: "You've used all 3 free AI analyses this month",
      limit: 3,
      used: 3,
    });
    expect(await usageCount(user.id)).toBe(3);

    await c.release();
    await c.release(); // settles once
    expect(await usageCount(user.id)).toBe(2);
    await reserveAiUse(app, ctx, SUMMARY);
    expect(await usageCount(user.id)).toBe(3);
  });

  it("rolls over at the UTC calendar month", async () => {
    const { app } = services("2");
    const user = await createUser();
    const lastMs = new Date(Date.UTC(2025, 0, 31, 23, 59, 59, 999));
    const firstMs = new Date(Date.UTC(2025, 1, 1, 0, 0, 0, 0));
    const ctx = (now: Date) => ({ user, request: request(uniqueIp()), now });
    await reserveAiUse(app, ctx(lastMs), SUMMARY);
    await reserveAiUse(app, ctx(lastMs), SUMMARY);
    await refusal(reserveAiUse(app, ctx(lastMs), SUMMARY));
    const feb = await reserveAiUse(app, ctx(firstMs), SUMMARY);
    expect(feb.remaining).toBe(1);
    expect(await usageCount(user.id, lastMs)).toBe(2);
    expect(await usageCount(user.id, firstMs)).toBe(1);
  });

  it("a limit of 0 refuses without writing", async () => {
    const { app } = services("0");
    const user = await createUser();
    const error = await refusal(reserveAiUse(app, { user, request: request(uniqueIp()) }, SUMMARY));
    expect(error.code).toBe("LIMIT_REACHED");
    expect(await usageCount(user.id)).toBe(0);
  });

  it("10 parallel reservations at limit - 1: exactly one succeeds", async () => {
    const { app } = services("5");
    const user = await createUser();
    await setUsage(user.id, 4);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => reserveAiUse(app, { user, request: request(uniqueIp()) }, SUMMARY)),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(rejected).toHaveLength(9);
    for (const r of rejected) expect((r.reason as AppError).code).toBe("LIMIT_REACHED");
    expect(await usageCount(user.id)).toBe(5);
  });

  it("proOnly actions are 403 PRO_REQUIRED and count nothing", async () => {
    const { app } = services("3");
    const user = await createUser();
    const error = await refusal(reserveAiUse(app, { user, request: request(uniqueIp()) }, FULL_TEXT));
    expect(error.status).toBe(403);
    expect(await error.toResponse().json()).toEqual({
      error: "PRO_REQUIRED",
      feature: "full_text_analysis",
      message: "Full-text analysis requires Professional subscription",
    });
    expect(await usageCount(user.id)).toBe(0);
  });
});

describe("Professional", () => {
  it("is unlimited (remaining null), counted on success only, proOnly allowed", async () => {
    const { app } = services("3");
    const user = await createUser("pro");
    const ctx = { user, request: request(uniqueIp()) };
    for (let i = 0; i < 6; i++) {
      const r = await reserveAiUse(app, ctx, i % 2 ? FULL_TEXT : SUMMARY);
      expect(r.remaining).toBeNull();
      expect(r.headers.getSetCookie()).toEqual([]);
      // Nothing is written before the action: an unlimited reservation cannot delay it.
      expect(await usageCount(user.id)).toBe(i);
      await r.commit();
      await r.commit();
    }
    expect(await usageCount(user.id)).toBe(6);
    const failed = await reserveAiUse(app, ctx, SUMMARY);
    await failed.release();
    expect(await usageCount(user.id)).toBe(6);
  });
});

describe("guests: 5 per feature per 24 h, by device cookie and IP", () => {
  async function useUp(app: ReturnType<typeof services>["app"], ip: string, now: Date) {
    const first = await reserveAiUse(app, { user: null, request: request(ip), now }, SUMMARY);
    const cookie = deviceCookie(first.headers)!;
    expect(first.remaining).toBe(4);
    for (let i = 0; i < 4; i++) {
      const r = await reserveAiUse(app, { user: null, request: request(ip, cookie), now }, SUMMARY);
      expect(r.remaining).toBe(3 - i);
      expect(r.headers.getSetCookie()).toEqual([]); // valid cookie: not set again
    }
    return cookie;
  }

  it("sets a signed HttpOnly device cookie, then refuses the 6th use with the trial shape", async () => {
    const { app } = services();
    const now = new Date();
    const first = await reserveAiUse(app, { user: null, request: request(uniqueIp()), now }, SUMMARY);
    const header = first.headers.getSetCookie()[0]!;
    expect(header).toMatch(/^mm_device=/);
    expect(header).toMatch(/HttpOnly/);
    expect(header).toMatch(/Secure/);
    expect(header).toMatch(/SameSite=Lax/);
    expect(header).toMatch(/Max-Age=31536000/);

    const ip = uniqueIp();
    const cookie = await useUp(app, ip, now);
    const error = await refusal(reserveAiUse(app, { user: null, request: request(ip, cookie), now }, SUMMARY));
    expect(error.status).toBe(403);
    expect(await error.toResponse().json()).toEqual({
      error: "LIMIT_REACHED",
      feature: "ai_summaries",
      guestFeature: "aiSummaries",
      trial: true,
      limit: 5,
      used: 5,
      message: "Trial Limit Reached",
    });
    // Other features have their own counters.
    const other = await reserveAiUse(
      app,
      { user: null, request: request(ip, cookie), now },
      { planFeature: "specialized_analysis", guestFeature: "specializedAnalysis" },
    );
    expect(other.remaining).toBe(4);
  });

  it("clearing the cookie does not reset (IP counter); a new IP with the same cookie is refused (device counter)", async () => {
    const { app } = services();
    const now = new Date();
    const ip = uniqueIp();
    const cookie = await useUp(app, ip, now);
    await refusal(reserveAiUse(app, { user: null, request: request(ip), now }, SUMMARY));
    await refusal(reserveAiUse(app, { user: null, request: request(ip, "mm_device=forged.value"), now }, SUMMARY));
    await refusal(reserveAiUse(app, { user: null, request: request(uniqueIp(), cookie), now }, SUMMARY));
    // A new device on a new IP is a new visitor.
    await reserveAiUse(app, { user: null, request: request(uniqueIp()), now }, SUMMARY);
  });

  it("resets 24 hours after the window's first use", async () => {
    const { app } = services();
    const now = new Date();
    const ip = uniqueIp();
    const cookie = await useUp(app, ip, now);
    const at = (ms: number) => ({ user: null, request: request(ip, cookie), now: new Date(now.getTime() + ms) });
    await refusal(reserveAiUse(app, at(24 * 3600_000 - 1), SUMMARY));
    const next = await reserveAiUse(app, at(24 * 3600_000), SUMMARY);
    expect(next.remaining).toBe(4);
  });

  it("getGuestUsage reports the larger counter and when it resets", async () => {
    const { app } = services();
    const now = new Date();
    const ip = uniqueIp();
    const cookie = await useUp(app, ip, now);
    const usage = await getGuestUsage(app, request(ip, cookie), now);
    expect(usage.aiSummaries).toEqual({
      used: 5,
      limit: 5,
      resetsAt: new Date(now.getTime() + 24 * 3600_000).toISOString(),
    });
    expect(usage.metaAnalysis).toEqual({ used: 0, limit: 5, resetsAt: null });
    // Same device on another IP: the device counter still says 5.
    expect((await getGuestUsage(app, request(uniqueIp(), cookie), now)).aiSummaries.used).toBe(5);
  });

  it("20 parallel guest uses from one device and IP: exactly 5 succeed (atomic counters), refusals count nothing", async () => {
    const { app } = services();
    const now = new Date();
    const ip = uniqueIp();
    const first = await reserveAiUse(app, { user: null, request: request(ip), now }, SUMMARY);
    const cookie = deviceCookie(first.headers)!;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => reserveAiUse(app, { user: null, request: request(ip, cookie), now }, SUMMARY)),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(4);
    expect(
      outcomes.filter((o) => o.status === "rejected").every((o) => (o.reason as AppError).code === "LIMIT_REACHED"),
    ).toBe(true);
    expect((await getGuestUsage(app, request(ip, cookie), now)).aiSummaries.used).toBe(5);
    // The refusals gave their hits back: a new device on the same IP is refused by the IP counter
    // only, and another IP with a fresh device still has all 5.
    const fresh = await reserveAiUse(app, { user: null, request: request(uniqueIp()), now }, SUMMARY);
    expect(fresh.remaining).toBe(4);
  });

  it("release gives a guest use back (device and IP counters)", async () => {
    const { app } = services();
    const now = new Date();
    const ip = uniqueIp();
    const cookie = await useUp(app, ip, now);
    const last = await refusal(reserveAiUse(app, { user: null, request: request(ip, cookie), now }, SUMMARY));
    expect(last.code).toBe("LIMIT_REACHED");
    const ip2 = uniqueIp();
    const r = await reserveAiUse(app, { user: null, request: request(ip2), now }, SUMMARY);
    const c2 = deviceCookie(r.headers)!;
    expect((await getGuestUsage(app, request(ip2, c2), now)).aiSummaries.used).toBe(1);
    await r.release();
    expect((await getGuestUsage(app, request(ip2, c2), now)).aiSummaries.used).toBe(0);
    expect((await getGuestUsage(app, request(ip2), now)).aiSummaries.used).toBe(0);
  });

  it("proOnly actions are PRO_REQUIRED for guests too", async () => {
    const { app } = services();
    const error = await refusal(reserveAiUse(app, { user: null, request: request(uniqueIp()) }, FULL_TEXT));
    expect(error.code).toBe("PRO_REQUIRED");
    expect(error.extra).toEqual({ feature: "full_text_analysis" });
  });
});

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 4, text: 4, reasoning: 0 },
};
const FINISH: LanguageModelV4StreamPart = { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage };

function mockModel(parts: LanguageModelV4StreamPart[], chunkDelayInMs = 5) {
  return new MockLanguageModelV4({
    doStream: async () => ({ stream: simulateReadableStream({ chunks: parts, chunkDelayInMs }) }),
  });
}

function textParts(deltas: string[]): LanguageModelV4StreamPart[] {
  return [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "t", delta })),
  ];
}

async function drain(response: Response): Promise<{ text: string; error?: unknown }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text };
      text += value;
    }
  } catch (error) {
    return { text, error };
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

describe("metered summary stream (service)", () => {
  it("commits after the summary is stored", async () => {
    const { app, settled } = services("3");
    const user = await createUser();
    const studyId = await insertStudy(ABSTRACT);
    const response = await regenerateStudySummary(app, {
      studyId,
      model: {
        model: mockModel([...textParts(["Vitamin ", "D."]), { type: "text-end", id: "t" }, FINISH]),
        name: "mock",
      },
      meter: { user, request: request(uniqueIp()) },
    });
    expect(response.headers.get("X-AI-Uses-Remaining")).toBe("2");
    expect(response.headers.get("X-Model-Name")).toBe("mock");
    expect(await drain(response)).toEqual({ text: "Vitamin D." });
    await settled();
    expect(await usageCount(user.id)).toBe(1);
  });

  it("a model failure releases the use (count unchanged)", async () => {
    expectConsoleError();
    const { app, settled } = services("3");
    const user = await createUser();
    await setUsage(user.id, 2);
    const studyId = await insertStudy(ABSTRACT);
    const response = await regenerateStudySummary(app, {
      studyId,
      model: {
        model: mockModel([...textParts(["Vitamin "]), { type: "error", error: new Error("upstream 500") }]),
        name: "mock-failing",
      },
      meter: { user, request: request(uniqueIp()) },
    });
    expect(await usageCount(user.id)).toBe(3); // reserved while streaming
    const { error } = await drain(response);
    expect(error).toBeDefined();
    await settled();
    expect(await usageCount(user.id)).toBe(2);
  });

  it("an empty answer (no onFinish, no onError) releases the use", async () => {
    const { app, settled } = services("3");
    const user = await createUser();
    const studyId = await insertStudy(ABSTRACT);
    const response = await regenerateStudySummary(app, {
      studyId,
      model: { model: mockModel([...textParts(["  "]), { type: "text-end", id: "t" }, FINISH]), name: "mock-empty" },
      meter: { user, request: request(uniqueIp()) },
    });
    await drain(response);
    await settled();
    expect(await usageCount(user.id)).toBe(0);
  });

  it.each([
    ["the request signal aborts", true, false],
    ["the body is cancelled", false, true],
  ])("a client abort releases the use (%s)", async (_label, abortSignal, cancelBody) => {
    const { app, settled } = services("3");
    const user = await createUser();
    const studyId = await insertStudy(ABSTRACT);
    const controller = new AbortController();
    const deltas = Array.from({ length: 50 }, (_, i) => `word${i} `);
    const response = await regenerateStudySummary(app, {
      studyId,
      signal: controller.signal,
      model: { model: mockModel([...textParts(deltas), { type: "text-end", id: "t" }, FINISH], 10), name: "mock-slow" },
      meter: { user, request: request(uniqueIp()) },
    });
    const reader = response.body!.getReader();
    await reader.read();
    expect(await usageCount(user.id)).toBe(1);
    if (abortSignal) controller.abort();
    if (cancelBody) await reader.cancel();
    else
      await reader.read().then(
        () => reader.cancel(),
        () => undefined,
      );
    await settled();
    expect(await usageCount(user.id)).toBe(0);
    const { results } = await env.DB.prepare("SELECT id FROM ai_summaries WHERE study_id = ?").bind(studyId).all();
    expect(results).toEqual([]);
  });
});

describe("through the real routes", () => {
  async function register(ip: string): Promise<{ cookie: string; userId: string }> {
    const res = await SELF.fetch(`${BASE}/api/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: BASE, "CF-Connecting-IP": ip },
      body: JSON.stringify({ email: `m-${crypto.randomUUID()}@example.org`, password: "secret12" }),
    });
    expect(res.status).toBe(201);
    const cookie = res.headers.get("Set-Cookie")!.split(";")[0]!;
    const me = (await (await SELF.fetch(`${BASE}/api/user`, { headers: { Cookie: cookie } })).json()) as { id: string };
    return { cookie, userId: me.id };
  }

  const post = (studyId: number | string, headers: Record<string, string>) =>
    SELF.fetch(`${BASE}/api/studies/${studyId}/regenerate-summary`, {
      method: "POST",
      headers: { Origin: BASE, ...headers },
    });

  it("Free user at the limit: 403 LIMIT_REACHED, nothing streamed; 404/400 consume nothing", async () => {
    const ip = uniqueIp();
    const { cookie, userId } = await register(ip);
    const studyId = await insertStudy(ABSTRACT);
    expect((await post(99_999_999, { Cookie: cookie, "CF-Connecting-IP": ip })).status).toBe(404);
    expect((await post(await insertStudy("  "), { Cookie: cookie, "CF-Connecting-IP": ip })).status).toBe(400);
    expect(await usageCount(userId)).toBe(0);

    await setUsage(userId, 20); // the pool's env leaves AI_SUMMARIES_PER_MONTH unset → 20
    const res = await post(studyId, { Cookie: cookie, "CF-Connecting-IP": ip });
    expect(res.status).toBe(403);
    expect(res.headers.get("Content-Type")).toMatch(/application\/json/);
    expect(await res.json()).toEqual({
      error: "LIMIT_REACHED",
      feature: "ai_summaries",
      message: "You've used all 20 free AI analyses this month",
      limit: 20,
      used: 20,
    });
    expect(await usageCount(userId)).toBe(20);
    const { results } = await env.DB.prepare("SELECT id FROM ai_summaries WHERE study_id = ?").bind(studyId).all();
    expect(results).toEqual([]);
  });

  it("a guest summary sets mm_device and shows in GET /api/guest-usage; signed-in users get 400", async () => {
    const ip = uniqueIp();
    const studyId = await insertStudy(ABSTRACT);
    const res = await post(studyId, { "CF-Connecting-IP": ip });
    expect(res.status).toBe(200);
    const setCookie = res.headers.get("Set-Cookie") ?? "";
    expect(setCookie).toMatch(/^mm_device=/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(res.headers.get("X-AI-Uses-Remaining")).toBe("4");
    const { text, error } = await drain(res);
    expect(error).toBeUndefined();
    expect(text.length).toBeGreaterThan(0);

    const device = setCookie.split(";")[0]!;
    const usageRes = await SELF.fetch(`${BASE}/api/guest-usage`, {
      headers: { Cookie: device, "CF-Connecting-IP": ip },
    });
    expect(usageRes.status).toBe(200);
    const body = (await usageRes.json()) as { usage: Record<string, number>; limit: number; resetsAt: string };
    expect(body.limit).toBe(5);
    expect(body.usage).toEqual({
      aiSummaries: 1,
      specializedAnalysis: 0,
      metaAnalysis: 0,
      workoutGeneration: 0,
      fullTextAnalysis: 0,
      simpleSearch: 0,
    });
    expect(Date.parse(body.resetsAt)).toBeGreaterThan(Date.now() + 23 * 3600_000);

    const { cookie } = await register(uniqueIp());
    const signedIn = await SELF.fetch(`${BASE}/api/guest-usage`, { headers: { Cookie: cookie } });
    expect(signedIn.status).toBe(400);
    expect(await signedIn.json()).toEqual({ error: "SIGNED_IN", message: "Use /api/user/subscription" });
  });
});
