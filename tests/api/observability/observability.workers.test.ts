import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BASE, uniqueIp } from "../helpers";
import worker from "../../../workers/app";
import { hashUserId } from "~/.server/observability/request-log";

/** Calls the Worker directly with `overrides` replacing bindings, as a deployed Worker would see them. */
async function fetchWith(path: string, overrides: Record<string, unknown> = {}, init: RequestInit = {}) {
  const ctx = createExecutionContext();
  const response = await worker.fetch(
    new Request(`${BASE}${path}`, init) as Request<unknown, IncomingRequestCfProperties>,
    { ...env, ...overrides } as never,
    ctx,
  );
  // Read the body first: a streamed answer's deferred work waits for its reader.
  const body = await response.text();
  await waitOnExecutionContext(ctx);
  return new Response(body, { status: response.status, headers: response.headers });
}

/** The JSON API log lines written to console.info while `run` ran. */
async function apiLogLines(run: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const spy = vi.spyOn(console, "info");
  try {
    await run();
    return spy.mock.calls
      .map((c) => String(c[0]))
      .filter((line) => line.startsWith("{") && line.includes('"event":"api"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  } finally {
    spy.mockRestore();
  }
}

const failing = (message: string) => () => Promise.reject(new Error(message));

afterEach(() => vi.restoreAllMocks());

describe("GET /api/health (issue 17)", () => {
  it("answers 200 with each binding's status and time, and an X-Request-Id", async () => {
    const res = await SELF.fetch(`${BASE}/api/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    const body = (await res.json()) as { status: string; checks: Record<string, { status: string; ms: number }> };
    expect(body.status).toBe("ok");
    expect(Object.keys(body.checks).sort()).toEqual(["d1", "kv", "r2"]);
    for (const check of Object.values(body.checks)) {
      expect(check.status).toBe("ok");
      expect(check.ms).toBeGreaterThanOrEqual(0);
    }
  });

  it("answers 503 naming KV when the KV binding fails, the others still ok", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const res = await fetchWith("/api/health", { KV: { get: failing("KV namespace unreachable") } });
    expect(res.status).toBe(503);
    const body = (await res.json()) as Record<string, unknown> & { checks: Record<string, { status: string }> };
    expect(body).toMatchObject({ error: "UNHEALTHY", status: "fail", failed: ["kv"], message: "Failing: KV (KV)" });
    expect(body.checks.kv!.status).toBe("fail");
    expect(body.checks.d1!.status).toBe("ok");
    expect(body.checks.r2!.status).toBe("ok");
    expect(JSON.stringify(body)).not.toContain("unreachable");
    expect(warn.mock.calls.map((c) => String(c[0])).join("\n")).toContain("KV namespace unreachable");
  });

  it("names D1 and R2 together when both fail, and never answers 500", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const res = await fetchWith("/api/health", {
      DB: { prepare: () => ({ first: failing("D1_ERROR: no such database") }) },
      BUCKET: { head: failing("R2 bucket gone") },
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ failed: ["d1", "r2"], message: "Failing: D1 (DB), R2 (BUCKET)" });
  });
});

describe("structured API logs (issue 17)", () => {
  it("writes one JSON line per API call with request id, route pattern, status and duration", async () => {
    let res: Response | undefined;
    const lines = await apiLogLines(async () => {
      res = await fetchWith("/api/studies/not-a-study", {}, { headers: { "CF-Connecting-IP": uniqueIp() } });
    });
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toMatchObject({
      event: "api",
      method: "GET",
      route: "/api/studies/:id",
      status: res!.status,
      user: null,
    });
    expect(line.requestId).toBe(res!.headers.get("X-Request-Id"));
    expect(typeof line.durationMs).toBe("number");
    expect(line.level).toBe(res!.status >= 400 ? "warn" : "info");
  });

  it("keeps a caller's well-formed X-Request-Id and replaces a malformed one", async () => {
    const kept = await fetchWith("/api/health", {}, { headers: { "X-Request-Id": "trace-1234abcd" } });
    expect(kept.headers.get("X-Request-Id")).toBe("trace-1234abcd");
    const replaced = await fetchWith("/api/health", {}, { headers: { "X-Request-Id": "bad id with spaces" } });
    expect(replaced.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("logs the signed-in user only as a hash", async () => {
    const email = `log-${crypto.randomUUID()}@example.org`;
    const register = await SELF.fetch(`${BASE}/api/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: BASE, "CF-Connecting-IP": uniqueIp() },
      body: JSON.stringify({ email, password: "log-test-password-1" }),
    });
    expect(register.status).toBeLessThan(300);
    const cookie = (register.headers.get("Set-Cookie") ?? "").split(";")[0]!;
    let body: { id?: string; user?: { id: string } } = {};
    const lines = await apiLogLines(async () => {
      const res = await fetchWith("/api/user", {}, { headers: { Cookie: cookie } });
      expect(res.status).toBe(200);
      body = await res.json();
    });
    const userId = body.user?.id ?? body.id;
    expect(userId).toBeTruthy();
    expect(lines).toHaveLength(1);
    expect(lines[0]!.user).toBe(await hashUserId(userId!));
    expect(lines[0]!.user).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(lines[0])).not.toContain(userId!);
    expect(JSON.stringify(lines[0])).not.toContain(email);
  });

  it("records each database's status for a search, JSON and streamed", async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(async () =>
      Response.json({ header: {}, esearchresult: { count: "0", retmax: "0", retstart: "0", idlist: [] } }),
    );
    const path = `/api/search?q=${encodeURIComponent(`observability ${crypto.randomUUID()}`)}&searchProvider=pubmed`;
    const jsonLines = await apiLogLines(async () => {
      const res = await fetchWith(path, {}, { headers: { "CF-Connecting-IP": uniqueIp() } });
      await res.text();
    });
    expect(jsonLines).toHaveLength(1);
    expect(jsonLines[0]).toMatchObject({ route: "/api/search", providers: { pubmed: expect.any(String) } });
    expect(jsonLines[0]!.providers).toEqual({ pubmed: "ok" });

    const streamLines = await apiLogLines(async () => {
      const res = await fetchWith(
        path.replace("observability", "streamed"),
        {},
        {
          headers: { "CF-Connecting-IP": uniqueIp(), Accept: "application/x-ndjson" },
        },
      );
      expect(await res.text()).toContain('"type":"done"');
    });
    expect(streamLines).toHaveLength(1);
    expect(streamLines[0]).toMatchObject({ status: 200, providers: { pubmed: expect.any(String) } });
    expect(typeof streamLines[0]!.headersMs).toBe("number");
  });

  it("writes no API line for pages", async () => {
    const lines = await apiLogLines(async () => {
      const res = await fetchWith("/robots.txt");
      await res.text();
    });
    expect(lines).toEqual([]);
  });
});
