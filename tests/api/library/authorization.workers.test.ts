import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, countRows, insertStudy, signUp } from "../helpers";

/**
 * Authorization matrix: for every route that takes an id of something a user owns (saved
 * reports, saved searches, bookmarks by study id, settings, account data), another user's id is
 * refused and nothing of theirs changes — uploads and meta-analysis jobs included (the uploads
 * area's own tests also drive real PDFs through these routes).
 */
describe("authorization matrix", () => {
  it("refuses another user's ids and leaves their data unchanged", async () => {
    const owner = await signUp();
    const intruder = await signUp();
    const studyId = await insertStudy({ title: "Owned", authors: ["A B"] });
    await call("POST", "/api/bookmarks", { cookie: owner.cookie, body: { studyId } });
    const report = (
      (await (
        await call("POST", "/api/saved-reports", {
          cookie: owner.cookie,
          body: { name: "Mine", type: "export", studyIds: [], reportData: {}, htmlContent: "<p>x</p>" },
        })
      ).json()) as { report: { id: number } }
    ).report;
    const saved = (
      (await (
        await call("POST", "/api/saved-searches", { cookie: owner.cookie, body: { name: "Mine", query: "q" } })
      ).json()) as { savedSearch: { id: number } }
    ).savedSearch;
    await call("PATCH", "/api/user/settings", { cookie: owner.cookie, body: { defaultExportFormat: "html" } });
    const snapshot = async () => ({
      bookmarks: await countRows("bookmarks", owner.userId),
      reports: await countRows("saved_reports", owner.userId),
      searches: await countRows("saved_searches", owner.userId),
      settings: await env.DB.prepare("SELECT default_export_format AS f FROM user_settings WHERE user_id = ?")
        .bind(owner.userId)
        .first(),
    });
    const before = await snapshot();
    expect(before).toEqual({ bookmarks: 1, reports: 1, searches: 1, settings: { f: "html" } });

    const attempts: [string, string, unknown?][] = [
      ["DELETE", `/api/saved-reports/${report.id}`],
      ["DELETE", `/api/saved-searches/${saved.id}`],
      ["DELETE", "/api/bookmarks", { studyId }],
    ];
    for (const [method, path, body] of attempts) {
      const res = await call(method, path, { cookie: intruder.cookie, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    // Lists and settings only ever show the caller's own rows.
    const lists = await Promise.all(
      ["/api/saved-reports", "/api/saved-searches", "/api/bookmarks"].map(async (p) =>
        (await call("GET", p, { cookie: intruder.cookie })).json(),
      ),
    );
    expect(lists).toEqual([{ reports: [] }, { savedSearches: [] }, { bookmarks: [] }]);
    expect(
      (
        (await (await call("GET", "/api/user/settings", { cookie: intruder.cookie })).json()) as {
          defaultExportFormat: string;
        }
      ).defaultExportFormat,
    ).toBe("csv");
    await call("PATCH", "/api/user/settings", { cookie: intruder.cookie, body: { defaultExportFormat: "json" } });
    const data = (await (await call("GET", "/api/user/data", { cookie: intruder.cookie })).json()) as {
      tables: Record<string, unknown[]>;
    };
    expect(data.tables.saved_reports).toEqual([]);
    expect(data.tables.bookmarks).toEqual([]);
    // Guests get 401 on every owned route.
    for (const [method, path, body] of [
      ...attempts,
      ["GET", "/api/saved-reports"],
      ["GET", "/api/bookmarks"],
      ["GET", "/api/user/settings"],
      ["GET", "/api/user/data"],
      ["POST", "/api/user/delete", { confirm: "DELETE" }],
    ] as [string, string, unknown?][]) {
      expect((await call(method, path, { body })).status, `guest ${method} ${path}`).toBe(401);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("refuses another user's uploads and meta-analysis jobs; their rows and R2 object stay", async () => {
    const owner = await signUp("pro");
    const intruder = await signUp("pro");
    const key = `uploads/${owner.userId}/${crypto.randomUUID()}.pdf`;
    await env.BUCKET.put(key, "%PDF-1.4 owned");
    const upload = await env.DB.prepare(
      `INSERT INTO uploaded_studies (user_id, r2_key, file_name, file_size, status, title, full_text_content)
       VALUES (?, ?, 'owned.pdf', 14, 'ready', 'Owned upload', 'Full text of the owner.') RETURNING id`,
    )
      .bind(owner.userId, key)
      .first<{ id: number }>();
    const jobId = crypto.randomUUID();
    await env.DB.prepare(
      `INSERT INTO meta_analysis_jobs (id, user_id, status, progress, request, result) VALUES (?, ?, 'done', 100, '{}', '{"analyses":[]}')`,
    )
      .bind(jobId, owner.userId)
      .run();
    const id = upload!.id;
    const attempts: [string, string, unknown?][] = [
      ["GET", `/api/uploaded-studies/${id}`],
      ["DELETE", `/api/uploaded-studies/${id}`],
      ["POST", `/api/uploaded-studies/${id}/summary`],
      ["POST", `/api/uploaded-studies/${id}/full-analysis`],
      ["POST", "/api/uploaded-studies/bulk-summary", { studyIds: [id] }],
      ["GET", `/api/meta-analysis/jobs/${jobId}`],
    ];
    for (const [method, path, body] of attempts) {
      const res = await call(method, path, { cookie: intruder.cookie, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const bulk = await call("DELETE", "/api/uploaded-studies/bulk", {
      cookie: intruder.cookie,
      body: { studyIds: [id] },
    });
    expect(await bulk.json()).toEqual({ deletedCount: 0 });
    expect(await (await call("GET", "/api/uploaded-studies", { cookie: intruder.cookie })).json()).toEqual([]);
    expect(await countRows("uploaded_studies", owner.userId)).toBe(1);
    expect(await env.BUCKET.head(key)).not.toBeNull();
    const job = await env.DB.prepare("SELECT status FROM meta_analysis_jobs WHERE id = ?").bind(jobId).first();
    expect(job).toEqual({ status: "done" });
    // The owner still reaches both.
    expect((await call("GET", `/api/uploaded-studies/${id}`, { cookie: owner.cookie })).status).toBe(200);
    expect((await call("GET", `/api/meta-analysis/jobs/${jobId}`, { cookie: owner.cookie })).status).toBe(200);
  });

  it("refuses cross-site mutations (CSRF guard)", async () => {
    const owner = await signUp();
    const res = await call("POST", "/api/saved-reports", {
      cookie: owner.cookie,
      origin: "https://evil.example",
      body: { name: "x", type: "export" },
    });
    expect(res.status).toBe(403);
    expect(await countRows("saved_reports", owner.userId)).toBe(0);
  });
});
