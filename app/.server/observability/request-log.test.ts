import { describe, expect, it } from "vitest";
import { createRequestLog, hashUserId, requestIdOf } from "./request-log";

function capture() {
  const lines: Record<string, unknown>[] = [];
  let clock = 1000;
  const log = createRequestLog({
    requestId: "req-12345678",
    method: "GET",
    route: "/api/search",
    now: () => clock,
    sink: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { log, lines, tick: (ms: number) => void (clock += ms) };
}

describe("request log lines", () => {
  it("writes one line at finish with status, duration, level and added fields", async () => {
    const { log, lines, tick } = capture();
    log.set({ providers: { pubmed: "ok", core: "timeout" } });
    tick(42);
    await log.finish(200);
    await log.finish(200);
    expect(lines).toEqual([
      {
        level: "info",
        event: "api",
        requestId: "req-12345678",
        method: "GET",
        route: "/api/search",
        status: 200,
        durationMs: 42,
        user: null,
        providers: { pubmed: "ok", core: "timeout" },
      },
    ]);
  });

  it("grades the level by status", async () => {
    for (const [status, level] of [
      [404, "warn"],
      [503, "error"],
    ] as const) {
      const { log, lines } = capture();
      await log.finish(status);
      expect(lines[0]!.level).toBe(level);
    }
  });

  it("a deferred line waits for the stream's end and reports time to headers and to the end", async () => {
    const { log, lines, tick } = capture();
    const done = log.defer();
    tick(5);
    await log.finish(200);
    expect(lines).toEqual([]);
    tick(300);
    log.set({ providers: { pubmed: "ok" } });
    done();
    await new Promise((r) => setTimeout(r, 0));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: 200, headersMs: 5, durationMs: 305, providers: { pubmed: "ok" } });
  });

  it("a stream that ends before the headers are out is written at finish", async () => {
    const { log, lines } = capture();
    log.defer()();
    expect(lines).toEqual([]);
    await log.finish(200);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toHaveProperty("headersMs");
  });

  it("logs the user as a stable 16-hex-digit hash, never the id", async () => {
    const { log, lines } = capture();
    log.setUser("user-abc");
    await log.finish(200);
    const hash = await hashUserId("user-abc");
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(hash).not.toBe(await hashUserId("user-abd"));
    expect(lines[0]!.user).toBe(hash);
    expect(JSON.stringify(lines)).not.toContain("user-abc");
  });

  it("keeps a well-formed X-Request-Id and replaces anything else", () => {
    const req = (id?: string) => new Request("https://x.test/api", { headers: id ? { "X-Request-Id": id } : {} });
    expect(requestIdOf(req("abc-12345678"))).toBe("abc-12345678");
    expect(requestIdOf(req("short"))).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdOf(req('"><script>'))).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdOf(req())).toMatch(/^[0-9a-f-]{36}$/);
  });
});
