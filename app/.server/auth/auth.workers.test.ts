import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

const BASE = "https://metamind.test";

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: BASE, ...headers },
    body: JSON.stringify(body),
  });
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
    expect(await me.json()).toMatchObject({ email: "ada@example.org", firstName: "Ada", isPro: false });
  });
});
