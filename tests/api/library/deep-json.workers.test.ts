import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, countRows, errorOf, signUp } from "../helpers";

const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

describe("deeply nested JSON (issue 11, item 4)", () => {
  it("POST /api/saved-reports with reportData 6,000 levels deep is 400 INVALID_BODY and stores nothing", async () => {
    const { cookie, userId } = await signUp();
    const body = `{"name":"Deep","type":"export","studyIds":[],"reportData":${deep(6000)},"htmlContent":"<p>x</p>"}`;
    expect(body.length).toBeGreaterThan(30_000);
    const res = await call("POST", "/api/saved-reports", { cookie, body });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({ error: "INVALID_BODY" });
    expect(await countRows("saved_reports", userId)).toBe(0);
  });

  it("a deep row already stored does not break GET /api/saved-reports, the data download or /profile", async () => {
    const { cookie, userId } = await signUp();
    const ok = await call("POST", "/api/saved-reports", {
      cookie,
      body: { name: "Fine", type: "export", studyIds: [], reportData: { description: "kept", pooled: 0.4 } },
    });
    expect(ok.status).toBe(201);
    await env.DB.prepare(
      "INSERT INTO saved_reports (user_id, name, type, study_ids, report_data, html_content) VALUES (?, 'Deep', 'export', '[]', ?, NULL)",
    )
      .bind(userId, deep(6000))
      .run();
    const list = await call("GET", "/api/saved-reports", { cookie });
    expect(list.status).toBe(200);
    const { reports } = (await list.json()) as { reports: { name: string; reportData: Record<string, unknown> }[] };
    expect(reports.map((r) => r.name).sort()).toEqual(["Deep", "Fine"]);
    expect(reports.find((r) => r.name === "Deep")!.reportData).toEqual({});
    expect(reports.find((r) => r.name === "Fine")!.reportData).toEqual({ description: "kept", pooled: 0.4 });
    expect((await call("GET", "/api/user/data", { cookie })).status).toBe(200);
    expect((await call("GET", "/profile", { cookie })).status).toBe(200);
  });
});
