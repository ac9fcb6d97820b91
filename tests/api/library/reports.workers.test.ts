import { describe, expect, it } from "vitest";
import { call, countRows, errorOf, signUp } from "../helpers";

const report = (over: Record<string, unknown> = {}) => ({
  name: "Vitamin D meta-analysis",
  type: "meta-analysis",
  studyIds: ["1", 2],
  reportData: { description: "Pooled effect of vitamin D", pooled: 0.42 },
  htmlContent: "<h1>Report</h1><p>ok</p>",
  ...over,
});

describe("saved reports API", () => {
  it("saves, lists newest first and deletes a report", async () => {
    const { cookie, userId } = await signUp();
    const a = await call("POST", "/api/saved-reports", { cookie, body: report({ name: "  First  " }) });
    expect(a.status).toBe(201);
    const { report: first } = (await a.json()) as { report: { id: number; name: string; studyIds: string[] } };
    expect(first.name).toBe("First");
    expect(first.studyIds).toEqual(["1", "2"]);
    await call("POST", "/api/saved-reports", { cookie, body: report({ name: "Second", type: "export" }) });
    const list = (await (await call("GET", "/api/saved-reports", { cookie })).json()) as {
      reports: { name: string; type: string; reportData: Record<string, unknown> }[];
    };
    expect(list.reports.map((r) => r.name)).toEqual(["Second", "First"]);
    expect(list.reports[1].reportData).toEqual({ description: "Pooled effect of vitamin D", pooled: 0.42 });
    const del = await call("DELETE", `/api/saved-reports/${first.id}`, { cookie });
    expect(del.status).toBe(200);
    expect(await countRows("saved_reports", userId)).toBe(1);
    expect((await call("DELETE", `/api/saved-reports/${first.id}`, { cookie })).status).toBe(404);
  });

  it("sanitizes htmlContent on the server, keeping inline SVG and styles", async () => {
    const { cookie } = await signUp();
    const html = `<html><head><style>h1{color:red}</style><script>alert(1)</script></head><body>
      <h1 style="color: blue" onclick="steal()">Forest plot</h1>
      <svg viewBox="0 0 100 20" width="100"><line x1="0" y1="10" x2="100" y2="10" stroke="black"/><circle cx="50" cy="10" r="3" fill="navy"/><text x="2" y="8" font-size="6">Pooled</text></svg>
      <a href="javascript:alert(1)">x</a><img src="x" onerror="alert(1)"><iframe src="https://evil.example"></iframe></body></html>`;
    const res = await call("POST", "/api/saved-reports", { cookie, body: report({ htmlContent: html }) });
    const { report: saved } = (await res.json()) as { report: { htmlContent: string } };
    expect(saved.htmlContent).toContain("<style>h1{color:red}</style>");
    expect(saved.htmlContent).toContain('style="color:blue"');
    expect(saved.htmlContent).toContain('<line x1="0" y1="10" x2="100" y2="10" stroke="black"');
    expect(saved.htmlContent).toContain('<circle cx="50" cy="10" r="3" fill="navy"');
    expect(saved.htmlContent).toContain("viewBox");
    for (const bad of ["<script", "alert(1)", "onclick", "onerror", "javascript:", "<iframe"]) {
      expect(saved.htmlContent).not.toContain(bad);
    }
  });

  it("validates name, description and type with the spec's messages", async () => {
    const { cookie, userId } = await signUp();
    const blank = await call("POST", "/api/saved-reports", { cookie, body: report({ name: "   " }) });
    expect(blank.status).toBe(400);
    expect(await errorOf(blank)).toMatchObject({
      error: "NAME_REQUIRED",
      title: "Name required",
      message: "Please enter a name for your report.",
    });
    const long = await call("POST", "/api/saved-reports", { cookie, body: report({ name: "x".repeat(101) }) });
    expect((await errorOf(long)).error).toBe("NAME_TOO_LONG");
    const ok100 = await call("POST", "/api/saved-reports", { cookie, body: report({ name: "x".repeat(100) }) });
    expect(ok100.status).toBe(201);
    const desc = await call("POST", "/api/saved-reports", {
      cookie,
      body: report({ reportData: { description: "d".repeat(501) } }),
    });
    expect((await errorOf(desc)).error).toBe("DESCRIPTION_TOO_LONG");
    const type = await call("POST", "/api/saved-reports", { cookie, body: report({ type: "summary" }) });
    expect((await errorOf(type)).error).toBe("INVALID_INPUT");
    const json = await call("POST", "/api/saved-reports", { cookie, body: "{nope" });
    expect((await errorOf(json)).error).toBe("INVALID_JSON");
    expect(await countRows("saved_reports", userId)).toBe(1);
  });

  it("refuses guests and malformed ids", async () => {
    expect((await call("GET", "/api/saved-reports")).status).toBe(401);
    expect((await call("POST", "/api/saved-reports", { body: report() })).status).toBe(401);
    const { cookie } = await signUp();
    expect((await errorOf(await call("DELETE", "/api/saved-reports/abc", { cookie }))).error).toBe("INVALID_REPORT_ID");
  });
});
