import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, uniqueIp } from "../helpers";

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Origin: BASE,
      "CF-Connecting-IP": uniqueIp(),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

function get(path: string, cookie?: string) {
  return SELF.fetch(`${BASE}${path}`, {
    headers: cookie ? { Cookie: cookie } : {},
    redirect: "manual",
  });
}

/** The `name=value` part of a Set-Cookie header. */
function cookieOf(response: Response): string {
  const header = response.headers.get("Set-Cookie") ?? "";
  expect(header).toMatch(/^mm_session=/);
  return header.split(";")[0]!;
}

function uniqueEmail(): string {
  return `user-${crypto.randomUUID()}@example.org`;
}

async function register(email = uniqueEmail(), password = "secret12", extra: object = {}) {
  const res = await post("/api/register", { email, password, ...extra });
  expect(res.status).toBe(201);
  return { email, password, cookie: cookieOf(res) };
}

describe("accounts", () => {
  it("registers, reads /api/user with the cookie, logs out", async () => {
    const reg = await post("/api/register", {
      email: "Ada@Example.org",
      password: "secret12",
      firstName: "Ada",
    });
    expect(reg.status).toBe(201);
    const cookie = reg.headers.get("Set-Cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const me = await SELF.fetch(`${BASE}/api/user`, { headers: { Cookie: cookie.split(";")[0]! } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({
      email: "ada@example.org",
      firstName: "Ada",
      isPro: false,
    });
  });

  it("rejects an invalid e-mail with the spec message", async () => {
    const res = await post("/api/register", { email: "not-an-email", password: "secret12" });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe("INVALID_INPUT");
    expect(body.message).toContain("Invalid email address");
  });

  it("rejects a short password with the spec message", async () => {
    const res = await post("/api/register", { email: uniqueEmail(), password: "12345" });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe("INVALID_INPUT");
    expect(body.message).toContain("Password must be at least 6 characters");
  });

  it("refuses a second account for the same e-mail (case-insensitive) with 409", async () => {
    const { email } = await register();
    const res = await post("/api/register", { email: email.toUpperCase(), password: "another1" });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: "EMAIL_TAKEN" });
  });

  it("logs in, sets a session cookie and serves /api/user", async () => {
    const { email, password } = await register(undefined, undefined, {
      firstName: "Grace",
      lastName: "Hopper",
    });
    const res = await post("/api/login", { email, password });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      user: { email, firstName: "Grace", lastName: "Hopper" },
    });
    const me = await get("/api/user", cookieOf(res));
    expect(me.status).toBe(200);
    expect(me.headers.get("Cache-Control")).toBe("no-store");
    expect(await me.json()).toMatchObject({ email, isPro: false });
  });

  it("answers a wrong password with 401 'Invalid email or password'", async () => {
    const { email } = await register();
    const res = await post("/api/login", { email, password: "wrong-password" });
    expect(res.status).toBe(401);
    expect(res.headers.get("Set-Cookie")).toBeNull();
    expect(await res.json()).toEqual({
      error: "INVALID_CREDENTIALS",
      message: "Invalid email or password",
    });
  });

  it("validates login input with the spec messages", async () => {
    const badEmail = await post("/api/login", { email: "not-an-email", password: "secret12" });
    expect(badEmail.status).toBe(400);
    expect(await badEmail.json()).toMatchObject({ error: "INVALID_INPUT", message: "email: Invalid email address" });
    const shortPassword = await post("/api/login", { email: uniqueEmail(), password: "123" });
    expect(shortPassword.status).toBe(400);
    expect(await shortPassword.json()).toMatchObject({
      message: "password: Password must be at least 6 characters",
    });
  });

  it("answers an unknown e-mail with the same 401 message", async () => {
    const res = await post("/api/login", { email: uniqueEmail(), password: "secret12" });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: "INVALID_CREDENTIALS",
      message: "Invalid email or password",
    });
  });

  it("logout deletes the session so the old cookie stops working", async () => {
    const { cookie } = await register();
    expect((await get("/api/user", cookie)).status).toBe(200);
    const out = await post("/api/logout", {}, { Cookie: cookie });
    expect(out.status).toBe(200);
    expect(out.headers.get("Set-Cookie")).toMatch(/Max-Age=0/);
    const me = await get("/api/user", cookie);
    expect(me.status).toBe(401);
    expect(await me.json()).toMatchObject({ error: "UNAUTHORIZED" });
  });

  it("treats a tampered cookie as signed out", async () => {
    const { cookie } = await register();
    const [name, value] = cookie.split("=", 2) as [string, string];
    const tampered = `${name}=${value[0] === "A" ? "B" : "A"}${value.slice(1)}`;
    expect((await get("/api/user", tampered)).status).toBe(401);
  });

  it("treats a garbage cookie as signed out", async () => {
    expect((await get("/api/user", "mm_session=forged-session-id")).status).toBe(401);
    const page = await get("/", "mm_session=forged-session-id");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Start Searching");
  });

  it("refuses cross-site POSTs with 403 CSRF_REJECTED", async () => {
    const { email, password } = await register();
    const login = await post("/api/login", { email, password }, { Origin: "https://evil.example" });
    expect(login.status).toBe(403);
    expect(await login.json()).toMatchObject({ error: "CSRF_REJECTED" });
    const reg = await post("/api/register", { email: uniqueEmail(), password }, { Origin: "https://evil.example" });
    expect(reg.status).toBe(403);
  });

  it("rate-limits login attempts to 20 per window per IP (each against a different account)", async () => {
    const ip = uniqueIp();
    const attempt = () => ({ email: uniqueEmail(), password: "guess-123" });
    for (let i = 0; i < 20; i++) {
      const res = await post("/api/login", attempt(), { "CF-Connecting-IP": ip });
      expect(res.status).toBe(401);
    }
    const limited = await post("/api/login", attempt(), { "CF-Connecting-IP": ip });
    expect(limited.status).toBe(429);
    const body = (await limited.json()) as { error: string; retryAfter: number };
    expect(body.error).toBe("RATE_LIMITED");
    expect(body.retryAfter).toBeGreaterThan(0);
    expect(limited.headers.get("Retry-After")).toBe(String(body.retryAfter));
    const otherIp = await post("/api/login", attempt());
    expect(otherIp.status).toBe(401);
  });

  it("rate-limits login attempts to 10 per window per account, from any IP", async () => {
    const attempt = { email: uniqueEmail(), password: "guess-123" };
    for (let i = 0; i < 10; i++) expect((await post("/api/login", attempt)).status).toBe(401);
    const limited = await post("/api/login", attempt);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it("answers malformed JSON with 400, not 500", async () => {
    const login = await post("/api/login", "{not json");
    expect(login.status).toBe(400);
    expect(await login.json()).toMatchObject({ error: "INVALID_JSON" });
    const reg = await post("/api/register", "{not json");
    expect(reg.status).toBe(400);
    expect(await reg.json()).toMatchObject({ error: "INVALID_JSON" });
  });

  it("lets the demo accounts sign in with their plans", async () => {
    for (const [email, isPro] of [
      ["pro@metamind.local", true],
      ["free@metamind.local", false],
    ] as const) {
      const res = await post("/api/login", { email, password: "metamind-demo" });
      expect(res.status).toBe(200);
      const me = await get("/api/user", cookieOf(res));
      expect(await me.json()).toMatchObject({ email, isPro });
    }
  });
});

describe("pages", () => {
  it("shows the landing page to guests", async () => {
    const res = await get("/");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Start Searching");
    expect(html).toContain("Upload Studies");
    expect(html).toContain("Create Analysis");
    expect(html).toContain('href="/auth"');
    expect(html).not.toContain("Welcome back");
  });

  it("shows the dashboard to signed-in users", async () => {
    const { cookie } = await register(undefined, undefined, { firstName: "Rosalind" });
    const res = await get("/", cookie);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Welcome back, Rosalind");
    expect(html).toContain("Quick search");
    expect(html).not.toContain("Start Searching");
  });

  it("serves /auth to guests and redirects signed-in users to /", async () => {
    const guest = await get("/auth");
    expect(guest.status).toBe(200);
    const html = await guest.text();
    expect(html).toContain("Create Account");
    expect(html).toContain("Continue as Guest");

    const { cookie } = await register();
    const signedIn = await get("/auth", cookie);
    expect(signedIn.status).toBe(302);
    expect(new URL(signedIn.headers.get("Location")!, BASE).pathname).toBe("/");
  });

  it("answers an unknown path with 404 Page Not Found", async () => {
    const res = await get("/no-such-page");
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("404 Page Not Found");
  });
});

describe("the /auth forms without JavaScript", () => {
  function postForm(fields: Record<string, string>) {
    return SELF.fetch(`${BASE}/auth`, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: BASE,
        Host: new URL(BASE).host,
        "CF-Connecting-IP": uniqueIp(),
      },
      body: new URLSearchParams(fields).toString(),
      redirect: "manual",
    });
  }

  it("registers and signs in with a native POST, then redirects home with the session", async () => {
    const email = uniqueEmail();
    const created = await postForm({ intent: "register", email, password: "secret12", firstName: "Nojs" });
    expect(created.status).toBe(302);
    expect(created.headers.get("Location")).toBe("/");
    const me = await get("/api/user", cookieOf(created));
    expect(await me.json()).toMatchObject({ email, firstName: "Nojs" });
    const signedIn = await postForm({ intent: "login", email, password: "secret12" });
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.get("Set-Cookie")).toMatch(/^mm_session=/);
  });

  it("answers a wrong password with the spec message on the page, never a 500", async () => {
    const { email } = await register();
    const res = await postForm({ intent: "login", email, password: "wrong-password" });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain("Invalid email or password");
  });
});
