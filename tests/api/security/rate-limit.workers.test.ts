import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, uniqueIp } from "../helpers";
import { createDb } from "~/.server/db/client";
import {
  assertWithinLimits,
  countRateLimitHits,
  RATE_LIMITS,
  releaseRateLimits,
  type RateLimitRule,
} from "~/.server/security/rate-limit";

function uniqueEmail(): string {
  return `limit-${crypto.randomUUID()}@example.org`;
}

function post(path: string, body: unknown, ip: string) {
  return SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: BASE, "CF-Connecting-IP": ip },
    body: JSON.stringify(body),
  });
}

async function registerAccount(): Promise<{ email: string; password: string }> {
  const email = uniqueEmail();
  const password = "right-password";
  const res = await post("/api/register", { email, password }, uniqueIp());
  expect(res.status).toBe(201);
  return { email, password };
}

function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}

describe("login and register limits (atomic D1 counters)", () => {
  it("100 parallel wrong passwords from one IP against one account: exactly 10 × 401, then 429s with Retry-After", async () => {
    const { email } = await registerAccount();
    const ip = uniqueIp();
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => post("/api/login", { email, password: "wrong-password" }, ip)),
    );
    expect(tally(responses.map((r) => r.status))).toEqual({
      401: RATE_LIMITS.loginPerAccount.limit,
      429: 100 - RATE_LIMITS.loginPerAccount.limit,
    });
    const limited = responses.find((r) => r.status === 429)!;
    const retryAfter = Number(limited.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(RATE_LIMITS.loginPerAccount.windowSeconds);
    expect(await limited.json()).toMatchObject({ error: "RATE_LIMITED", retryAfter });
  });

  it("100 parallel wrong passwords from one IP over many accounts: exactly the per-IP limit of 401s", async () => {
    const ip = uniqueIp();
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => post("/api/login", { email: uniqueEmail(), password: "wrong-password" }, ip)),
    );
    expect(tally(responses.map((r) => r.status))).toEqual({
      401: RATE_LIMITS.loginPerIp.limit,
      429: 100 - RATE_LIMITS.loginPerIp.limit,
    });
  });

  it("many IPs against one account are limited per account, and the right password is refused too once limited", async () => {
    const { email, password } = await registerAccount();
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => post("/api/login", { email, password: "wrong-password" }, uniqueIp())),
    );
    expect(tally(responses.map((r) => r.status))).toEqual({ 401: 10, 429: 20 });
    const right = await post("/api/login", { email, password }, uniqueIp());
    expect(right.status).toBe(429);
    expect(right.headers.get("Retry-After")).toMatch(/^\d+$/);
  });

  it("a successful login gives its attempt back: only failures use up the account limit", async () => {
    const { email, password } = await registerAccount();
    const ip = uniqueIp();
    for (let i = 0; i < 9; i++)
      expect((await post("/api/login", { email, password: "wrong-password" }, ip)).status).toBe(401);
    expect((await post("/api/login", { email, password }, ip)).status).toBe(200);
    expect((await post("/api/login", { email, password: "wrong-password" }, ip)).status).toBe(401);
    expect((await post("/api/login", { email, password: "wrong-password" }, ip)).status).toBe(429);
  });

  it("registration: 10 per IP per hour, in parallel too, then 429 with Retry-After", async () => {
    const ip = uniqueIp();
    const responses = await Promise.all(
      Array.from({ length: 15 }, () => post("/api/register", { email: uniqueEmail(), password: "secret12" }, ip)),
    );
    expect(tally(responses.map((r) => r.status))).toEqual({ 201: 10, 429: 5 });
    const limited = responses.find((r) => r.status === 429)!;
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(3000);
  });

  it("the sign-in form (native POST to /auth) shares the limits and sends Retry-After", async () => {
    const { email } = await registerAccount();
    const ip = uniqueIp();
    const form = () =>
      SELF.fetch(`${BASE}/auth?index`, {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Origin: BASE,
          Host: "metamind.test",
          "CF-Connecting-IP": ip,
        },
        body: new URLSearchParams({ intent: "login", email, password: "wrong-password" }),
        redirect: "manual",
      });
    const statuses: number[] = [];
    const last = await (async () => {
      let res: Response | null = null;
      for (let i = 0; i < 11; i++) {
        res = await form();
        statuses.push(res.status);
      }
      return res!;
    })();
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(last.status).toBe(429);
    expect(last.headers.get("Retry-After")).toMatch(/^\d+$/);
  });
});

describe("countRateLimitHits", () => {
  const rule: RateLimitRule = { scope: "test:unit", limit: 3, windowSeconds: 60 };

  it("counts parallel hits exactly (no lost updates) and reports the window's end", async () => {
    const db = createDb(env.DB);
    const subject = crypto.randomUUID();
    const now = Date.now();
    const hits = (
      await Promise.all(Array.from({ length: 25 }, () => countRateLimitHits({ db }, [{ rule, subject }], now)))
    ).flat();
    expect(hits.map((h) => h.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(new Set(hits.map((h) => h.resetsAt))).toEqual(new Set([now + 60_000]));
    expect(() =>
      assertWithinLimits(
        hits.filter((h) => h.count <= 3),
        now,
      ),
    ).not.toThrow();
    expect(() => assertWithinLimits(hits, now + 30_000)).toThrow(
      expect.objectContaining({ status: 429, extra: { retryAfter: 30 } }),
    );
  });

  it("opens a new window once the old one has closed, and releases only in the same window", async () => {
    const db = createDb(env.DB);
    const subject = crypto.randomUUID();
    const t0 = Date.now();
    const [first] = await countRateLimitHits({ db }, [{ rule, subject }], t0);
    await countRateLimitHits({ db }, [{ rule, subject }], t0 + 1000);
    const [late] = await countRateLimitHits({ db }, [{ rule, subject }], t0 + 61_000);
    expect(late).toMatchObject({ count: 1, windowStart: t0 + 61_000, resetsAt: t0 + 121_000 });
    await releaseRateLimits({ db }, [first!]);
    const [next] = await countRateLimitHits({ db }, [{ rule, subject }], t0 + 62_000);
    expect(next!.count).toBe(2);
    await releaseRateLimits({ db }, [next!]);
    const [again] = await countRateLimitHits({ db }, [{ rule, subject }], t0 + 63_000);
    expect(again!.count).toBe(2);
  });
});
