import { describe, expect, it } from "vitest";
import { allowHeader, apiPatternsOfBuild, jsonApiError, matchApiRoute } from "./api-routes";

describe("matchApiRoute", () => {
  it("prefers static segments, ignores a trailing slash, needs every segment", () => {
    expect(matchApiRoute("/api/studies/batch-summarize")?.file).toBe("api.studies.batch-summarize.ts");
    expect(matchApiRoute("/api/studies/42")?.file).toBe("api.studies.$id.ts");
    expect(matchApiRoute("/api/studies/42/citations/")?.file).toBe("api.studies.$id.citations.ts");
    expect(matchApiRoute("/api/studies//citations")).toBeNull();
    expect(matchApiRoute("/api/nope")).toBeNull();
  });

  it("Allow lists HEAD beside GET and OPTIONS last", () => {
    expect(allowHeader(matchApiRoute("/api/user/settings")!)).toBe("GET, HEAD, PATCH, OPTIONS");
    expect(allowHeader(matchApiRoute("/api/logout")!)).toBe("POST, OPTIONS");
  });
});

describe("apiPatternsOfBuild", () => {
  it("joins nested flat routes with their parents' paths", () => {
    const patterns = apiPatternsOfBuild({
      root: { path: "" },
      "routes/api.saved-reports": { path: "api/saved-reports", parentId: "root" },
      "routes/api.saved-reports.$id": { path: ":id", parentId: "routes/api.saved-reports" },
      "routes/search": { path: "search", parentId: "root" },
    }).map((r) => r.pattern);
    expect(patterns.sort()).toEqual(["/api/saved-reports", "/api/saved-reports/:id"]);
  });
});

describe("jsonApiError", () => {
  const req = (path: string, method = "GET") => new Request(`https://metamind.test${path}`, { method });
  const html = (status: number) =>
    new Response("<html>oops</html>", { status, headers: { "Content-Type": "text/html" } });

  it("turns Remix's non-JSON error pages on /api paths into JSON with the same status", async () => {
    const notFound = jsonApiError(req("/api/whatever"), html(404));
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ error: "NOT_FOUND" });
    const crash = jsonApiError(req("/api/user"), new Response("Unexpected Server Error", { status: 500 }));
    expect(crash.status).toBe(500);
    expect(await crash.json()).toMatchObject({ error: "INTERNAL" });
    const method = jsonApiError(req("/api/logout", "GET"), new Response("Method Not Allowed", { status: 405 }));
    expect(method.headers.get("Allow")).toBe("POST, OPTIONS");
    expect(await method.json()).toMatchObject({ error: "METHOD_NOT_ALLOWED" });
  });

  it("leaves JSON errors, successes and non-API pages alone", () => {
    const json = Response.json({ error: "X" }, { status: 400 });
    expect(jsonApiError(req("/api/user"), json)).toBe(json);
    const ok = new Response("file", { status: 200, headers: { "Content-Type": "text/csv" } });
    expect(jsonApiError(req("/api/export", "POST"), ok)).toBe(ok);
    const page = html(404);
    expect(jsonApiError(req("/search/nope"), page)).toBe(page);
  });
});
