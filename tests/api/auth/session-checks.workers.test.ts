import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, signUp } from "../helpers";

describe("session checks (SPEC §4, §7)", () => {
  it("GET /api/debug/session gives the session's user id and expiry, nothing secret", async () => {
    const { userId: id, cookie } = await signUp();
    const res = await SELF.fetch(`${BASE}/api/debug/session?timestamp=1`, { headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["authenticated", "createdAt", "expiresAt", "userId"]);
    expect(body).toMatchObject({ authenticated: true, userId: id });
    const days = (Date.parse(String(body.expiresAt)) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29);
    expect(JSON.stringify(body)).not.toContain(decodeURIComponent(cookie.split("=")[1]!).split(".")[0]!);

    const guest = await SELF.fetch(`${BASE}/api/debug/session`);
    expect(await guest.json()).toEqual({ authenticated: false, userId: null });
  });

  it("GET /api/user takes the timestamp parameter and is never cached", async () => {
    const { userId: id, cookie } = await signUp();
    const res = await SELF.fetch(`${BASE}/api/user?timestamp=${Date.now()}`, { headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(await res.json()).toMatchObject({ id });
    const out = await SELF.fetch(`${BASE}/api/user?timestamp=${Date.now()}`);
    expect(out.status).toBe(401);
  });

  it("GET /api/login (the forced-logout target) redirects to the sign-in page", async () => {
    const res = await SELF.fetch(`${BASE}/api/login`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("Location")!, BASE).pathname).toBe("/auth");
  });
});
