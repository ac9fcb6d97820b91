import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, countRows, errorOf, insertStudy, signUp } from "../helpers";
import { expectConsoleError } from "../../setup/fail-on-console-error";
import { userOwnedTables } from "~/.server/library/account";

describe("bookmarks API", () => {
  it("adds (idempotently), lists with the study and removes a bookmark", async () => {
    const { cookie, userId } = await signUp();
    const studyId = await insertStudy({
      title: "Creatine and cognition",
      authors: ["Smith J", "Doe A"],
      journal: "Nutrients",
      publicationDate: "2020-05-01",
      doi: `10.1/${crypto.randomUUID()}`,
    });
    const first = await call("POST", "/api/bookmarks", { cookie, body: { studyId } });
    expect(first.status).toBe(201);
    const again = await call("POST", "/api/bookmarks", { cookie, body: { studyId: String(studyId) } });
    expect(again.status).toBe(200);
    expect(await countRows("bookmarks", userId)).toBe(1);
    const list = (await (await call("GET", "/api/bookmarks", { cookie })).json()) as {
      bookmarks: {
        bookmark: { id: number };
        study: { id: number; title: string; authors: string[]; journal: string };
      }[];
    };
    expect(list.bookmarks).toHaveLength(1);
    expect(list.bookmarks[0].study).toMatchObject({
      id: studyId,
      title: "Creatine and cognition",
      authors: ["Smith J", "Doe A"],
      journal: "Nutrients",
    });
    expect((await call("DELETE", "/api/bookmarks", { cookie, body: { studyId } })).status).toBe(200);
    expect(await countRows("bookmarks", userId)).toBe(0);
    expect((await errorOf(await call("DELETE", "/api/bookmarks", { cookie, body: { studyId } }))).error).toBe(
      "BOOKMARK_NOT_FOUND",
    );
  });

  it("needs sign-in with the spec's message, a valid id and a known study", async () => {
    const guest = await call("POST", "/api/bookmarks", { body: { studyId: 1 } });
    expect(guest.status).toBe(401);
    expect((await errorOf(guest)).message).toBe("Please sign in to bookmark studies");
    const { cookie, userId } = await signUp();
    expect((await errorOf(await call("POST", "/api/bookmarks", { cookie, body: { studyId: "abc" } }))).error).toBe(
      "INVALID_INPUT",
    );
    expect(
      (await errorOf(await call("POST", "/api/bookmarks", { cookie, body: { studyId: 999_999_999 } }))).error,
    ).toBe("STUDY_NOT_FOUND");
    expect(await countRows("bookmarks", userId)).toBe(0);
  });
});

describe("user settings API", () => {
  it("returns the spec defaults, saves partial changes and keeps the rest", async () => {
    const { cookie } = await signUp();
    const defaults = await (await call("GET", "/api/user/settings", { cookie })).json();
    expect(defaults).toEqual({
      emailNotifications: true,
      defaultSearchProvider: "pubmed",
      defaultExportFormat: "csv",
      searchResultsPerPage: 25,
      saveSearchHistory: true,
    });
    const first = await call("PATCH", "/api/user/settings", { cookie, body: { searchResultsPerPage: 50 } });
    expect(await first.json()).toMatchObject({ searchResultsPerPage: 50, defaultExportFormat: "csv" });
    await call("PATCH", "/api/user/settings", {
      cookie,
      body: { defaultExportFormat: "json", emailNotifications: false },
    });
    expect(await (await call("GET", "/api/user/settings", { cookie })).json()).toEqual({
      emailNotifications: false,
      defaultSearchProvider: "pubmed",
      defaultExportFormat: "json",
      searchResultsPerPage: 50,
      saveSearchHistory: true,
    });
  });

  it("refuses bad values, unknown fields, empty patches, and Multi-Database for Free", async () => {
    const { cookie } = await signUp();
    for (const body of [
      { searchResultsPerPage: 30 },
      { defaultExportFormat: "docx" },
      { theme: "dark" },
      {},
      { saveSearchHistory: "yes" },
    ]) {
      const res = await call("PATCH", "/api/user/settings", { cookie, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const multi = await call("PATCH", "/api/user/settings", { cookie, body: { defaultSearchProvider: "multi" } });
    expect(multi.status).toBe(403);
    expect(await errorOf(multi)).toMatchObject({ error: "PRO_REQUIRED", feature: "multi_database" });
    const pro = await signUp("pro");
    expect(
      (await call("PATCH", "/api/user/settings", { cookie: pro.cookie, body: { defaultSearchProvider: "multi" } }))
        .status,
    ).toBe(200);
    expect((await call("GET", "/api/user/settings")).status).toBe(401);
  });
});

describe("citations API", () => {
  it("gives APA, MLA and Chicago for a stored study, 404 for an unknown one", async () => {
    const id = await insertStudy({
      title: "Effects of vitamin D on bone density",
      authors: ["Jane Smith", "Lu D"],
      journal: "The Lancet",
      publicationDate: "2021-03-04",
      doi: `10.1016/${crypto.randomUUID()}`,
    });
    const res = await call("GET", `/api/studies/${id}/citations`);
    expect(res.status).toBe(200);
    const c = (await res.json()) as { apa: string; mla: string; chicago: string };
    expect(c.apa).toMatch(
      /^Smith, J\., & Lu, D\. \(2021\)\. Effects of vitamin D on bone density\. The Lancet\. https:\/\/doi\.org\/10\.1016\//,
    );
    expect(c.mla).toMatch(/^Smith, Jane, and D\. Lu\. “Effects of Vitamin D on Bone Density\.” The Lancet, Mar\. 2021/);
    expect(c.chicago).toMatch(
      /^Smith, Jane, and D\. Lu\. 2021\. “Effects of Vitamin D on Bone Density\.” The Lancet, March\./,
    );
    expect((await call("GET", "/api/studies/999999999/citations")).status).toBe(404);
    expect((await call("GET", "/api/studies/abc/citations")).status).toBe(400);
  });
});

describe("export API", () => {
  const options = { includeMetadata: true, includeAbstracts: true, includeSummaries: false, includeCitations: true };

  it("gates formats: guests 401 'Sign In Required', Free 403 PRO_REQUIRED for BibTeX/RIS/PDF", async () => {
    const id = await insertStudy({ title: "Gated", authors: ["A B"] });
    const guest = await call("POST", "/api/export", { body: { studyIds: [id], format: "csv", ...options } });
    expect(guest.status).toBe(401);
    expect(await errorOf(guest)).toMatchObject({
      title: "Sign In Required",
      message: "Create an account to download and export your research data.",
    });
    const free = await signUp();
    for (const [format, feature] of [
      ["bibtex", "citation_export"],
      ["ris", "citation_export"],
      ["pdf", "pdf_export"],
    ] as const) {
      const res = await call("POST", "/api/export", {
        cookie: free.cookie,
        body: { studyIds: [id], format, ...options },
      });
      expect(res.status).toBe(403);
      expect(await errorOf(res)).toMatchObject({ error: "PRO_REQUIRED", feature });
    }
    for (const format of ["csv", "json", "html"]) {
      expect(
        (await call("POST", "/api/export", { cookie: free.cookie, body: { studyIds: [id], format, ...options } }))
          .status,
      ).toBe(200);
    }
    const none = await call("POST", "/api/export", {
      cookie: free.cookie,
      body: { studyIds: [], format: "csv", ...options },
    });
    expect(await errorOf(none)).toMatchObject({
      error: "NO_STUDIES",
      title: "No studies to export",
      message: "Please select some studies first.",
    });
  });

  it("builds dated files in every format for Pro, from ids and from full objects", async () => {
    const { cookie } = await signUp("pro");
    const doi = `10.1371/${crypto.randomUUID()}`;
    const id = await insertStudy({
      title: "Omega-3 and depression: a trial",
      authors: ["Jane Smith", "Lu D"],
      journal: "PLoS One",
      publicationDate: "2019-07-02",
      doi,
      abstract: "=SUM(A1) Background: omega-3 helps.",
    });
    const today = new Date().toISOString().slice(0, 10);
    const ext = { csv: "csv", json: "json", html: "html", bibtex: "bib", ris: "ris", pdf: "pdf" } as const;
    for (const format of Object.keys(ext) as (keyof typeof ext)[]) {
      const res = await call("POST", "/api/export", { cookie, body: { studyIds: [id], format, ...options } });
      expect(res.status, format).toBe(200);
      expect(res.headers.get("Content-Disposition")).toBe(
        `attachment; filename="metamind-studies-${today}.${ext[format]}"`,
      );
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(bytes.length).toBeGreaterThan(100);
      const text = new TextDecoder().decode(bytes);
      if (format === "pdf") expect(text.startsWith("%PDF-")).toBe(true);
      if (format === "csv") expect(text).toContain(`"'=SUM(A1) Background: omega-3 helps."`);
      if (format === "bibtex") expect(text).toMatch(new RegExp(`doi = \\{${doi.replace(/[.]/g, "\\.")}\\}`));
      if (format === "ris") expect(text).toContain(`DO  - ${doi}`);
      if (format === "html") expect(text).toContain("Omega-3 and depression: a trial");
      if (format === "json")
        expect(JSON.parse(text).studies[0]).toMatchObject({ title: "Omega-3 and depression: a trial", doi });
    }
    const uploaded = await call("POST", "/api/export", {
      cookie,
      body: {
        studies: [
          {
            id: 10_000_001,
            title: "Uploaded <script>alert(1)</script> study",
            authors: ["Ann Lee"],
            journal: "Uploaded Study",
          },
        ],
        format: "html",
        ...options,
      },
    });
    const html = await uploaded.text();
    expect(html).toContain("Uploaded &lt;script&gt;alert(1)&lt;/script&gt; study");
    expect(html).not.toContain("<script>");
    expect(
      (
        await errorOf(
          await call("POST", "/api/export", { cookie, body: { studyIds: [999_999_998], format: "csv", ...options } }),
        )
      ).error,
    ).toBe("STUDY_NOT_FOUND");
    expect(
      (
        await errorOf(
          await call("POST", "/api/export", { cookie, body: { studyIds: [id], format: "docx", ...options } }),
        )
      ).error,
    ).toBe("INVALID_INPUT");
  });
});

describe("account data", () => {
  it("finds every table with a user_id column", () => {
    expect(userOwnedTables()).toEqual(
      expect.arrayContaining([
        "sessions",
        "search_history",
        "user_settings",
        "saved_searches",
        "ai_usage",
        "bookmarks",
        "saved_reports",
      ]),
    );
    expect(userOwnedTables()).not.toContain("users");
    expect(userOwnedTables()).not.toContain("studies");
  });

  it("downloads all of a user's data without secrets, then deletes the account with its rows and files", async () => {
    const me = await signUp("free", { firstName: "Ada" });
    const other = await signUp();
    const studyId = await insertStudy({ title: "Kept study", authors: ["X Y"] });
    for (const u of [me, other]) {
      await call("POST", "/api/bookmarks", { cookie: u.cookie, body: { studyId } });
      await call("POST", "/api/saved-reports", {
        cookie: u.cookie,
        body: { name: "R", type: "export", studyIds: [studyId], reportData: {}, htmlContent: "<p>r</p>" },
      });
      await call("POST", "/api/saved-searches", { cookie: u.cookie, body: { name: "S", query: "q" } });
      await call("PATCH", "/api/user/settings", { cookie: u.cookie, body: { searchResultsPerPage: 100 } });
      await env.BUCKET.put(`uploads/${u.userId}/a.pdf`, "pdf-a");
      await env.BUCKET.put(`uploads/${u.userId}/nested/b.pdf`, "pdf-b");
    }
    const download = await call("GET", "/api/user/data", { cookie: me.cookie });
    expect(download.headers.get("Content-Disposition")).toMatch(
      /^attachment; filename="metamind-data-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    const data = (await download.json()) as {
      user: Record<string, unknown>;
      tables: Record<string, unknown[]>;
      files: { key: string }[];
    };
    expect(data.user).toMatchObject({ id: me.userId, email: me.email, firstName: "Ada" });
    expect(data.user).not.toHaveProperty("passwordHash");
    expect(data.tables).not.toHaveProperty("sessions");
    expect(data.tables.bookmarks).toHaveLength(1);
    expect(data.tables.saved_reports).toHaveLength(1);
    expect(data.tables.saved_searches).toHaveLength(1);
    expect(data.tables.user_settings).toEqual([expect.objectContaining({ searchResultsPerPage: 100 })]);
    expect(data.files.map((f) => f.key).sort()).toEqual([
      `uploads/${me.userId}/a.pdf`,
      `uploads/${me.userId}/nested/b.pdf`,
    ]);

    expect((await call("POST", "/api/user/delete", { cookie: me.cookie, body: { confirm: "yes" } })).status).toBe(400);
    const del = await call("POST", "/api/user/delete", { cookie: me.cookie, body: { confirm: "DELETE" } });
    expect(del.status).toBe(200);
    expect(del.headers.get("Set-Cookie")).toMatch(/Max-Age=0/);
    for (const table of userOwnedTables()) expect(await countRows(table, me.userId), table).toBe(0);
    expect(await env.DB.prepare("SELECT id FROM users WHERE id = ?").bind(me.userId).first()).toBeNull();
    expect((await env.BUCKET.list({ prefix: `uploads/${me.userId}/` })).objects).toHaveLength(0);
    // Nobody else's data is touched; the shared study stays.
    expect(await countRows("bookmarks", other.userId)).toBe(1);
    expect(await countRows("saved_reports", other.userId)).toBe(1);
    expect((await env.BUCKET.list({ prefix: `uploads/${other.userId}/` })).objects).toHaveLength(2);
    expect(await env.DB.prepare("SELECT id FROM studies WHERE id = ?").bind(studyId).first()).not.toBeNull();
    expect((await call("GET", "/api/user/data", { cookie: me.cookie })).status).toBe(401);
  });
});

describe("account deletion with foreign keys", () => {
  it("is all or nothing: a row that would dangle rolls the whole deletion back", async () => {
    const me = await signUp();
    await call("POST", "/api/saved-reports", {
      cookie: me.cookie,
      body: { name: "R", type: "export", studyIds: [], reportData: {} },
    });
    // A table another area might add: rows hang off a user-owned row without ON DELETE CASCADE.
    await env.DB.exec(
      "CREATE TABLE IF NOT EXISTS test_report_notes (id INTEGER PRIMARY KEY, report_id INTEGER NOT NULL REFERENCES saved_reports(id))",
    );
    const report = await env.DB.prepare("SELECT id FROM saved_reports WHERE user_id = ?")
      .bind(me.userId)
      .first<{ id: number }>();
    await env.DB.prepare("INSERT INTO test_report_notes (report_id) VALUES (?)").bind(report!.id).run();
    expectConsoleError();
    const res = await call("POST", "/api/user/delete", { cookie: me.cookie, body: { confirm: "DELETE" } });
    expect(res.status).toBe(500);
    expect(await countRows("saved_reports", me.userId)).toBe(1);
    expect(await env.DB.prepare("SELECT id FROM users WHERE id = ?").bind(me.userId).first()).not.toBeNull();
    // Still signed in: the session survived the failed deletion.
    expect((await call("GET", "/api/saved-reports", { cookie: me.cookie })).status).toBe(200);
    await env.DB.exec("DROP TABLE test_report_notes");
  });
});
