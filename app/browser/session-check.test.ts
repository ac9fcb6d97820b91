import { describe, expect, it } from "vitest";
import { checkSession, sessionMismatch } from "./session-check";

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

function fakeFetch(routes: Record<string, () => Response>) {
  const calls: string[] = [];
  const fn = (async (input: RequestInfo | URL) => {
    const url = String(input);
    calls.push(url);
    const key = Object.keys(routes).find((k) => url.startsWith(k));
    return key ? routes[key]!() : json({}, 404);
  }) as typeof fetch;
  return { fn, calls };
}

describe("session checks", () => {
  it("a session of another user or none is a mismatch", () => {
    expect(sessionMismatch("u1", { authenticated: true, userId: "u1" })).toBe(false);
    expect(sessionMismatch("u1", { authenticated: true, userId: "u2" })).toBe(true);
    expect(sessionMismatch("u1", { authenticated: false, userId: null })).toBe(true);
  });

  it("asks /api/user with a timestamp, then compares with /api/debug/session", async () => {
    const ok = fakeFetch({
      "/api/user": () => json({ id: "u1" }),
      "/api/debug/session": () => json({ authenticated: true, userId: "u1" }),
    });
    expect(await checkSession("u1", ok.fn)).toBe("ok");
    expect(ok.calls[0]).toMatch(/^\/api\/user\?timestamp=\d+$/);
    const other = fakeFetch({
      "/api/user": () => json({ id: "u1" }),
      "/api/debug/session": () => json({ authenticated: true, userId: "u2" }),
    });
    expect(await checkSession("u1", other.fn)).toBe("mismatch");
    const switched = fakeFetch({
      "/api/user": () => json({ id: "u2" }),
      "/api/debug/session": () => json({ authenticated: true, userId: "u2" }),
    });
    expect(await checkSession("u1", switched.fn)).toBe("mismatch");
    const out = fakeFetch({ "/api/user": () => json({ error: "UNAUTHORIZED" }, 401) });
    expect(await checkSession("u1", out.fn)).toBe("logged-out");
    expect(out.calls).toHaveLength(1);
  });
});
