import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { allowHeader, API_ROUTES, type ApiMethod } from "~/.server/http/api-routes";

const BASE = "https://metamind.test";
const METHODS: ApiMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const concrete = (pattern: string) => pattern.replace(/:[^/]+/g, "1");

function send(method: string, path: string) {
  return SELF.fetch(`${BASE}${path}`, {
    method,
    headers: { Origin: BASE, "Content-Type": "application/json", "CF-Connecting-IP": "10.200.0.1" },
    body: method === "GET" || method === "HEAD" ? undefined : "{}",
  });
}

describe("/api routing answers JSON, never HTML (issue 11)", () => {
  it("unknown /api paths are 404 NOT_FOUND JSON for every method", async () => {
    for (const path of [
      "/api",
      "/api/",
      "/api/nope",
      "/api/studies/1/nope",
      "/api/user/settings/extra",
      "/api/nope.data",
    ]) {
      for (const method of ["GET", "POST", "DELETE"]) {
        const res = await send(method, path);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.headers.get("Content-Type"), `${method} ${path}`).toMatch(/application\/json/);
        expect(await res.json()).toMatchObject({ error: "NOT_FOUND" });
      }
    }
  });

  it("every route refuses the methods it does not answer with 405 METHOD_NOT_ALLOWED and Allow", async () => {
    let checked = 0;
    for (const route of API_ROUTES) {
      for (const method of METHODS.filter((m) => !route.methods.includes(m))) {
        const res = await send(method, concrete(route.pattern));
        expect(res.status, `${method} ${route.pattern}`).toBe(405);
        expect(res.headers.get("Allow"), `${method} ${route.pattern}`).toBe(allowHeader(route));
        expect(await res.json()).toMatchObject({ error: "METHOD_NOT_ALLOWED" });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("OPTIONS lists the methods; HEAD is answered where GET is", async () => {
    const options = await send("OPTIONS", "/api/saved-reports");
    expect(options.status).toBe(204);
    expect(options.headers.get("Allow")).toBe("GET, HEAD, POST, OPTIONS");
    const head = await send("HEAD", "/api/guest-usage");
    expect(head.status).toBe(200);
    expect((await send("HEAD", "/api/logout")).status).toBe(405);
  });

  it("a static segment wins over a parameter (/api/studies/batch-summarize is not a study id)", async () => {
    const res = await send("GET", "/api/studies/batch-summarize");
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("POST, OPTIONS");
  });
});
