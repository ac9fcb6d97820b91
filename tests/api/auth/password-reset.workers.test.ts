import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, uniqueIp } from "../helpers";
import { fakeEmailApi } from "../../mocks/email-api";
import { expectConsoleError } from "../../setup/fail-on-console-error";
import { createDb } from "~/.server/db/client";
import { parseEnv } from "~/.server/env";
import {
  hashResetToken,
  INVALID_TOKEN_MESSAGE,
  RESET_REQUESTED_MESSAGE,
  requestPasswordReset,
} from "~/.server/auth/password-reset";

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: BASE, "CF-Connecting-IP": uniqueIp(), ...headers },
    body: JSON.stringify(body),
  });
}

async function register(password = "secret12") {
  const email = `reset-${crypto.randomUUID()}@example.org`;
  const res = await post("/api/register", { email, password });
  expect(res.status).toBe(201);
  const { user } = (await res.json()) as { user: { id: string } };
  return { email, password, id: user.id, cookie: (res.headers.get("Set-Cookie") ?? "").split(";")[0]! };
}

async function forgot(email: string, headers: Record<string, string> = {}) {
  return post("/api/auth/forgot-password", { email }, headers);
}

async function tokenFor(email: string): Promise<string> {
  const res = await forgot(email);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { debugToken?: string };
  expect(body.debugToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return body.debugToken!;
}

const verify = (token: string) => SELF.fetch(`${BASE}/api/auth/verify-reset-token/${encodeURIComponent(token)}`);
const reset = (token: string, newPassword: string) => post("/api/auth/reset-password", { token, newPassword });
const login = (email: string, password: string) => post("/api/login", { email, password });
const me = (cookie: string) => SELF.fetch(`${BASE}/api/user?t=${Date.now()}`, { headers: { Cookie: cookie } });

describe("password reset", () => {
  it("gives the same answer whether or not the account exists (development adds debugToken)", async () => {
    const { email } = await register();
    const known = await forgot(email);
    const unknown = await forgot(`nobody-${crypto.randomUUID()}@example.org`);
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const a = (await known.json()) as { message: string; debugToken?: string };
    const b = (await unknown.json()) as { message: string; debugToken?: string };
    expect(a.message).toBe(RESET_REQUESTED_MESSAGE);
    expect(b).toEqual({ message: RESET_REQUESTED_MESSAGE });
    expect(a.debugToken).toBeTruthy();
  });

  it("stores only the SHA-256 of the token, with a 15-minute expiry", async () => {
    const { email, id } = await register();
    const before = Date.now();
    const token = await tokenFor(email);
    const row = await env.DB.prepare(
      "SELECT token_hash, expires_at, used_at FROM password_reset_tokens WHERE user_id = ?",
    )
      .bind(id)
      .first<{ token_hash: string; expires_at: number; used_at: number | null }>();
    expect(row!.token_hash).toBe(await hashResetToken(token));
    expect(row!.token_hash).not.toContain(token);
    expect(row!.expires_at - before).toBeGreaterThanOrEqual(15 * 60 * 1000 - 5);
    expect(row!.expires_at - Date.now()).toBeLessThanOrEqual(15 * 60 * 1000);
    expect(row!.used_at).toBeNull();
  });

  it("resets once: new password works, old fails, every session ends, the token cannot be reused", async () => {
    const account = await register("old-secret");
    const otherSession = (await login(account.email, "old-secret")).headers.get("Set-Cookie")!.split(";")[0]!;
    const token = await tokenFor(account.email);
    expect((await verify(token)).status).toBe(200);

    const done = await reset(token, "new-secret");
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({ message: "Your password has been successfully reset" });

    expect((await me(account.cookie)).status).toBe(401);
    expect((await me(otherSession)).status).toBe(401);
    expect((await login(account.email, "old-secret")).status).toBe(401);
    expect((await login(account.email, "new-secret")).status).toBe(200);

    const again = await reset(token, "third-secret");
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: "INVALID_TOKEN", message: INVALID_TOKEN_MESSAGE });
    expect((await verify(token)).status).toBe(400);
    expect((await login(account.email, "new-secret")).status).toBe(200);
  });

  it("refuses an expired token and changes nothing", async () => {
    const account = await register("old-secret");
    const token = await tokenFor(account.email);
    await env.DB.prepare("UPDATE password_reset_tokens SET expires_at = ? WHERE user_id = ?")
      .bind(Date.now() - 1, account.id)
      .run();
    const v = await verify(token);
    expect(v.status).toBe(400);
    expect(await v.json()).toMatchObject({ error: "INVALID_TOKEN", message: INVALID_TOKEN_MESSAGE });
    expect((await reset(token, "new-secret")).status).toBe(400);
    expect((await me(account.cookie)).status).toBe(200);
    expect((await login(account.email, "old-secret")).status).toBe(200);
  });

  it("refuses wrong and malformed tokens", async () => {
    const account = await register("old-secret");
    const token = await tokenFor(account.email);
    const flipped = (token[0] === "A" ? "B" : "A") + token.slice(1);
    for (const bad of [flipped, "short", "x".repeat(43) + "!", "' OR 1=1 --"]) {
      expect((await verify(bad)).status).toBe(400);
      expect((await reset(bad, "new-secret")).status).toBe(400);
    }
    expect((await reset("", "new-secret")).status).toBe(400);
    expect((await login(account.email, "old-secret")).status).toBe(200);
  });

  it("a token changes only its own account: another account's password, sessions and token stay", async () => {
    const a = await register("a-secret");
    const b = await register("b-secret");
    const tokenA = await tokenFor(a.email);
    const tokenB = await tokenFor(b.email);
    expect((await reset(tokenA, "a-new-secret")).status).toBe(200);
    expect((await login(b.email, "b-secret")).status).toBe(200);
    expect((await me(b.cookie)).status).toBe(200);
    expect((await verify(tokenB)).status).toBe(200);
    expect((await reset(tokenB, "b-new-secret")).status).toBe(200);
    expect((await login(a.email, "a-new-secret")).status).toBe(200);
  });

  it("a newer request replaces the older link", async () => {
    const account = await register();
    const first = await tokenFor(account.email);
    const second = await tokenFor(account.email);
    expect((await verify(first)).status).toBe(400);
    expect((await verify(second)).status).toBe(200);
  });

  it("two concurrent resets with one token: exactly one succeeds", async () => {
    const account = await register();
    const token = await tokenFor(account.email);
    const results = await Promise.all([reset(token, "first-secret"), reset(token, "second-secret")]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it("validates the new password (SPEC §5)", async () => {
    const account = await register();
    const token = await tokenFor(account.email);
    const res = await reset(token, "12345");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain(
      "Password must be at least 6 characters long",
    );
    expect((await verify(token)).status).toBe(200);
    const bad = await forgot("not-an-email");
    expect(bad.status).toBe(400);
  });

  it("limits requests per e-mail (3 an hour, from any address) and per IP (10 an hour)", async () => {
    const email = `nobody-${crypto.randomUUID()}@example.org`;
    for (let i = 0; i < 3; i++) expect((await forgot(email)).status).toBe(200);
    const limited = await forgot(email);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);

    const ip = uniqueIp();
    for (let i = 0; i < 10; i++) {
      expect((await forgot(`n-${crypto.randomUUID()}@example.org`, { "CF-Connecting-IP": ip })).status).toBe(200);
    }
    expect((await forgot(`n-${crypto.randomUUID()}@example.org`, { "CF-Connecting-IP": ip })).status).toBe(429);
  });

  it("sends the link through the configured e-mail API (fake Resend) and returns no debugToken", async () => {
    const account = await register();
    const api = fakeEmailApi("re_test_key");
    const appEnv = parseEnv({
      ENVIRONMENT: "development",
      SESSION_SECRET: "x",
      EMAIL_PROVIDER: "resend",
      EMAIL_API_KEY: "re_test_key",
      EMAIL_API_BASE: "http://127.0.0.1:9",
      APP_URL: "https://app.metamind.test",
    });
    const app = { db: createDb(env.DB), env: appEnv, fetch: api.fetch, waitUntil: () => {} };
    const request = new Request(`${BASE}/api/auth/forgot-password`, {
      method: "POST",
      headers: { "CF-Connecting-IP": uniqueIp() },
    });
    const result = await requestPasswordReset(app, request, { email: account.email });
    expect(result).toEqual({ message: RESET_REQUESTED_MESSAGE });
    expect(api.sent).toHaveLength(1);
    const text = String(api.sent[0]!.body.text);
    const link = /https:\/\/app\.metamind\.test\/reset-password\?token=([A-Za-z0-9_-]{43})/.exec(text);
    expect(link).not.toBeNull();
    expect((await verify(link![1]!)).status).toBe(200);
  });

  it("a refused e-mail is 502 EMAIL_FAILED and leaves no usable token", async () => {
    const account = await register();
    const api = fakeEmailApi("right-key");
    const appEnv = parseEnv({
      ENVIRONMENT: "test",
      SESSION_SECRET: "x",
      EMAIL_PROVIDER: "postmark",
      EMAIL_API_KEY: "wrong-key",
      EMAIL_API_BASE: "http://127.0.0.1:9",
    });
    const app = { db: createDb(env.DB), env: appEnv, fetch: api.fetch, waitUntil: () => {} };
    const request = new Request(`${BASE}/x`, { method: "POST", headers: { "CF-Connecting-IP": uniqueIp() } });
    expectConsoleError();
    await expect(requestPasswordReset(app, request, { email: account.email })).rejects.toMatchObject({
      code: "EMAIL_FAILED",
      status: 502,
    });
    const { n } = (await env.DB.prepare("SELECT count(*) AS n FROM password_reset_tokens WHERE user_id = ?")
      .bind(account.id)
      .first<{ n: number }>())!;
    expect(n).toBe(0);
  });
});
