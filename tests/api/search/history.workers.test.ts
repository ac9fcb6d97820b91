import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, errorOf, signUp } from "../helpers";
import { users } from "../../../db/schema";
import { createDb } from "~/.server/db/client";
import { DEFAULT_USER_SETTINGS, getUserSettings } from "~/.server/settings/queries";
import { parseFilters } from "~/.server/search/filters";
import {
  createSavedSearch,
  listSavedSearches,
  listSearchHistory,
  MAX_HISTORY_ENTRIES,
  MAX_SAVED_SEARCHES,
  recordSearch,
} from "~/.server/search/history";

const db = () => createDb(env.DB);

/** A user row without a session, for service-level tests. */
async function insertUser(): Promise<string> {
  const id = crypto.randomUUID();
  await db()
    .insert(users)
    .values({ id, email: `${id}@example.org`, passwordHash: "unused" });
  return id;
}

const search = (userId: string, query: string) => ({
  userId,
  query,
  filters: {},
  providers: ["pubmed"],
  resultCount: 3,
  providerCounts: { pubmed: { status: "ok", count: 3, totalCount: 3 } },
  duplicatesRemoved: 0,
});

async function historyCount(userId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM search_history WHERE user_id = ?")
    .bind(userId)
    .first<{ n: number }>();
  return row!.n;
}

async function savedSearchExists(id: number): Promise<boolean> {
  const row = await env.DB.prepare("SELECT id FROM saved_searches WHERE id = ?").bind(id).first();
  return row !== null;
}

describe("user settings", () => {
  it("are the spec defaults without a row, and the row's values with one", async () => {
    const userId = await insertUser();
    expect(await getUserSettings({ db: db() }, { userId })).toEqual({
      emailNotifications: true,
      defaultSearchProvider: "pubmed",
      defaultExportFormat: "csv",
      searchResultsPerPage: 25,
      saveSearchHistory: true,
    });
    await env.DB.prepare(
      `INSERT INTO user_settings (user_id, email_notifications, default_search_provider,
         default_export_format, search_results_per_page, save_search_history)
       VALUES (?, 0, 'crossref', 'json', 50, 0)`,
    )
      .bind(userId)
      .run();
    expect(await getUserSettings({ db: db() }, { userId })).toEqual({
      emailNotifications: false,
      defaultSearchProvider: "crossref",
      defaultExportFormat: "json",
      searchResultsPerPage: 50,
      saveSearchHistory: false,
    });
    expect(DEFAULT_USER_SETTINGS.saveSearchHistory).toBe(true);
  });
});

describe("recordSearch", () => {
  it("stores an entry for a user with default settings, in the spec shape", async () => {
    const userId = await insertUser();
    // A fan-out report carries timings and errors too; only status and counts are stored.
    const pubmedReport = { status: "ok", count: 25, totalCount: 100, ms: 40, cached: false, error: null };
    const stored = await recordSearch(
      { db: db() },
      {
        userId,
        query: "vitamin d fractures",
        filters: {
          dateRange: "custom",
          dateFrom: "2020-01-01",
          dateTo: "2021-12-31",
          studyType: "clinical_trial",
          journalImpact: "high",
          fullTextOnly: true,
          hasAbstract: false,
        },
        providers: ["pubmed", "crossref"],
        resultCount: 120,
        providerCounts: {
          pubmed: pubmedReport,
          crossref: { status: "ok", count: 20, totalCount: 20 },
          europepmc: undefined,
        },
        duplicatesRemoved: 5,
      },
    );
    expect(stored).toBe(true);
    const [entry, ...rest] = await listSearchHistory({ db: db() }, { userId });
    expect(rest).toEqual([]);
    expect(entry).toEqual({
      id: expect.any(Number),
      query: "vitamin d fractures",
      filters: {
        dateRange: "custom",
        customDateFrom: "2020-01-01",
        customDateTo: "2021-12-31",
        studyType: "clinical_trial",
        journalImpact: "high",
        fullTextOnly: "free_only",
        hasAbstract: "all",
      },
      providers: ["pubmed", "crossref"],
      resultCount: 120,
      databaseTotal: 120,
      providerCounts: {
        pubmed: { status: "ok", count: 25, totalCount: 100 },
        crossref: { status: "ok", count: 20, totalCount: 20 },
      },
      duplicatesRemoved: 5,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
  });

  it("fills the four spec filters with their defaults when none were given", async () => {
    const userId = await insertUser();
    await recordSearch({ db: db() }, search(userId, "omega-3"));
    const [entry] = await listSearchHistory({ db: db() }, { userId });
    expect(entry!.filters).toEqual({
      dateRange: "any",
      studyType: "all",
      journalImpact: "any",
      fullTextOnly: "all",
    });
  });

  it("accepts the search service's parsed filters and stores them as request parameters", async () => {
    const userId = await insertUser();
    const filters = parseFilters(
      new URLSearchParams("dateRange=last_5_years&hasAbstract=required"),
      new Date("2025-06-01T00:00:00Z"),
    );
    await recordSearch({ db: db() }, { ...search(userId, "sleep"), filters });
    const [entry] = await listSearchHistory({ db: db() }, { userId });
    expect(entry!.filters).toEqual({
      dateRange: "last_5_years",
      studyType: "all",
      journalImpact: "any",
      fullTextOnly: "all",
      hasAbstract: "required",
    });
  });

  it("keeps one entry per search: paging updates it with the records retrieved, database total apart", async () => {
    const userId = await insertUser();
    const page = (retrieved: number) => ({
      ...search(userId, "statins myalgia"),
      filters: { dateRange: "last_5_years", studyType: "all" },
      resultCount: retrieved,
      providerCounts: { pubmed: { status: "ok", count: 25, totalCount: 42_249 } },
    });
    await recordSearch({ db: db() }, page(25));
    await recordSearch({ db: db() }, page(50));
    await recordSearch({ db: db() }, { ...page(25), filters: { studyType: "all", dateRange: "last_5_years" } });
    expect(await historyCount(userId)).toBe(1);
    const [entry] = await listSearchHistory({ db: db() }, { userId });
    expect(entry).toMatchObject({ query: "statins myalgia", resultCount: 50, databaseTotal: 42_249 });

    // Another query, other filters or other databases are new searches.
    await recordSearch({ db: db() }, search(userId, "statins myalgia"));
    await recordSearch({ db: db() }, { ...search(userId, "statins myalgia"), providers: ["pubmed", "crossref"] });
    await recordSearch({ db: db() }, search(userId, "statin myopathy"));
    expect(await historyCount(userId)).toBe(4);
  });

  it("stores nothing when the user turned saveSearchHistory off", async () => {
    const userId = await insertUser();
    await env.DB.prepare("INSERT INTO user_settings (user_id, save_search_history) VALUES (?, 0)").bind(userId).run();
    expect(await recordSearch({ db: db() }, search(userId, "creatine"))).toBe(false);
    expect(await historyCount(userId)).toBe(0);
  });

  it("stores when a settings row exists with saveSearchHistory on", async () => {
    const userId = await insertUser();
    await env.DB.prepare("INSERT INTO user_settings (user_id, save_search_history) VALUES (?, 1)").bind(userId).run();
    expect(await recordSearch({ db: db() }, search(userId, "creatine"))).toBe(true);
    expect(await historyCount(userId)).toBe(1);
  });

  it(`keeps only the newest ${MAX_HISTORY_ENTRIES} entries per user`, async () => {
    const userId = await insertUser();
    const otherId = await insertUser();
    const start = Date.now() - 1_000_000;
    const insert = env.DB.prepare(
      `INSERT INTO search_history (user_id, query, filters, providers, result_count, created_at)
       VALUES (?, ?, '{}', '["pubmed"]', 1, ?)`,
    );
    await env.DB.batch(
      Array.from({ length: MAX_HISTORY_ENTRIES }, (_, i) => insert.bind(userId, `old ${i}`, start + i)),
    );
    await env.DB.batch([insert.bind(otherId, "other user", start)]);

    await recordSearch({ db: db() }, search(userId, "newest 1"));
    await recordSearch({ db: db() }, search(userId, "newest 2"));

    expect(await historyCount(userId)).toBe(MAX_HISTORY_ENTRIES);
    expect(await historyCount(otherId)).toBe(1);
    const all = await listSearchHistory({ db: db() }, { userId, limit: MAX_HISTORY_ENTRIES });
    expect(all.map((e) => e.query).slice(0, 3)).toEqual(["newest 2", "newest 1", `old ${MAX_HISTORY_ENTRIES - 1}`]);
    expect(all.at(-1)!.query).toBe("old 2");
  });
});

describe("GET/DELETE /api/search-history", () => {
  it("lists the signed-in user's entries newest first, honouring limit", async () => {
    const { cookie, userId } = await signUp();
    const other = await insertUser();
    for (const q of ["first", "second", "third"]) await recordSearch({ db: db() }, search(userId, q));
    await recordSearch({ db: db() }, search(other, "not mine"));

    const res = await call("GET", "/api/search-history", { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const { history } = (await res.json()) as { history: { query: string; createdAt: string }[] };
    expect(history.map((h) => h.query)).toEqual(["third", "second", "first"]);
    expect(history[0]).toMatchObject({
      providers: ["pubmed"],
      resultCount: 3,
      providerCounts: { pubmed: { status: "ok", count: 3, totalCount: 3 } },
      duplicatesRemoved: 0,
    });
    expect(new Date(history[0]!.createdAt).toISOString()).toBe(history[0]!.createdAt);

    const limited = await call("GET", "/api/search-history?limit=2", { cookie });
    expect(((await limited.json()) as { history: unknown[] }).history).toHaveLength(2);
  });

  it("rejects a bad limit with 400 and a signed-out request with 401", async () => {
    const { cookie } = await signUp();
    for (const limit of ["0", "abc", "1.5", "201"]) {
      const res = await call("GET", `/api/search-history?limit=${limit}`, { cookie });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).error).toBe("INVALID_INPUT");
    }
    const res = await call("GET", "/api/search-history");
    expect(res.status).toBe(401);
    expect((await errorOf(res)).error).toBe("UNAUTHORIZED");
  });

  it("DELETE clears only the caller's history and reports the count", async () => {
    const { cookie, userId } = await signUp();
    const other = await insertUser();
    await recordSearch({ db: db() }, search(userId, "a"));
    await recordSearch({ db: db() }, search(userId, "b"));
    await recordSearch({ db: db() }, search(other, "kept"));

    const res = await call("DELETE", "/api/search-history", { cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deletedCount: 2 });
    expect(await historyCount(userId)).toBe(0);
    expect(await historyCount(other)).toBe(1);

    const list = await call("GET", "/api/search-history", { cookie });
    expect(await list.json()).toEqual({ history: [] });
  });

  it("DELETE signed out is 401; cross-site DELETE is 403 CSRF_REJECTED and clears nothing", async () => {
    const { cookie, userId } = await signUp();
    await recordSearch({ db: db() }, search(userId, "kept"));
    expect((await call("DELETE", "/api/search-history")).status).toBe(401);
    const res = await call("DELETE", "/api/search-history", { cookie, origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect((await errorOf(res)).error).toBe("CSRF_REJECTED");
    expect(await historyCount(userId)).toBe(1);
  });

  it("other methods are 405 with a JSON error", async () => {
    const { cookie } = await signUp();
    const res = await call("POST", "/api/search-history", { cookie, body: {} });
    expect(res.status).toBe(405);
    expect((await errorOf(res)).error).toBe("METHOD_NOT_ALLOWED");
  });
});

describe("saved searches", () => {
  it("creates, lists and deletes a saved search", async () => {
    const { cookie } = await signUp();
    const created = await call("POST", "/api/saved-searches", {
      cookie,
      body: {
        name: "  Vitamin D trials  ",
        query: " vitamin d ",
        filters: {
          dateRange: "last_5_years",
          studyType: "clinical_trial",
          journalImpact: "any",
          fullTextOnly: true,
          hasAbstract: "required",
          customDateFrom: "",
          searchProviders: ["pubmed", "crossref", "pubmed"],
          limit: 50,
        },
      },
    });
    expect(created.status).toBe(201);
    const { savedSearch } = (await created.json()) as { savedSearch: { id: number; createdAt: string } };
    expect(savedSearch).toEqual({
      id: expect.any(Number),
      name: "Vitamin D trials",
      query: "vitamin d",
      filters: {
        dateRange: "last_5_years",
        studyType: "clinical_trial",
        journalImpact: "any",
        fullTextOnly: "free_only",
        hasAbstract: "required",
        searchProviders: ["pubmed", "crossref"],
        limit: 50,
      },
      createdAt: expect.stringMatching(/Z$/),
    });

    const second = await call("POST", "/api/saved-searches", { cookie, body: { name: "Plain", query: "zinc" } });
    expect(second.status).toBe(201);
    expect(((await second.json()) as { savedSearch: { filters: unknown } }).savedSearch.filters).toEqual({});

    const list = await call("GET", "/api/saved-searches", { cookie });
    expect(list.status).toBe(200);
    const { savedSearches } = (await list.json()) as { savedSearches: { id: number; name: string }[] };
    expect(savedSearches.map((s) => s.name)).toEqual(["Plain", "Vitamin D trials"]);
    expect(savedSearches[1]).toEqual(savedSearch);

    const del = await call("DELETE", `/api/saved-searches/${savedSearch.id}`, { cookie });
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({ ok: true });
    expect(await savedSearchExists(savedSearch.id)).toBe(false);
    const again = await call("DELETE", `/api/saved-searches/${savedSearch.id}`, { cookie });
    expect(again.status).toBe(404);
    expect((await errorOf(again)).error).toBe("SAVED_SEARCH_NOT_FOUND");
  });

  it.each([
    [{ name: "   ", query: "x" }, "Name required"],
    [{ query: "x" }, "Name required"],
    [{ name: "n".repeat(101), query: "x" }, "Name must be at most 100 characters"],
    [{ name: "ok", query: "  " }, "Query is required"],
    [{ name: "ok", query: "q".repeat(501) }, "Query must be at most 500 characters"],
    [{ name: "ok", query: "x", filters: { colour: "red" } }, "Unknown filter 'colour'"],
    [{ name: "ok", query: "x", filters: { dateRange: "forever" } }, "Must be one of: any, last_year"],
    [{ name: "ok", query: "x", filters: { searchProviders: ["scopus"] } }, "Must be one of: pubmed"],
    [{ name: "ok", query: "x", filters: { searchProviders: [] } }, "No search providers selected"],
    [{ name: "ok", query: "x", filters: { limit: 0 } }, "Must be a whole number from 1 to 500"],
    [{ name: "ok", query: "x", filters: { customDateFrom: "2020-02-30" } }, "Is not a real calendar date"],
    [{ name: "ok", query: "x", filters: { dateRange: "custom" } }, "A custom date range needs"],
    [
      {
        name: "ok",
        query: "x",
        filters: { dateRange: "custom", customDateFrom: "2021-01-01", customDateTo: "2020-01-01" },
      },
      "customDateFrom must not be after customDateTo",
    ],
    [{ name: "ok", query: "x", filters: "pubmed" }, "Filters must be an object"],
  ])("POST %j → 400 mentioning %s", async (body, message) => {
    const { cookie } = await signUp();
    const res = await call("POST", "/api/saved-searches", { cookie, body });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.error).toBe("INVALID_INPUT");
    expect(err.message).toContain(message);
  });

  it("rejects malformed JSON with 400 INVALID_JSON", async () => {
    const { cookie } = await signUp();
    const res = await call("POST", "/api/saved-searches", { cookie, body: "{not json" });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).error).toBe("INVALID_JSON");
  });

  it(`refuses a saved search beyond ${MAX_SAVED_SEARCHES} with 409`, async () => {
    const { cookie, userId } = await signUp();
    const insert = env.DB.prepare(
      "INSERT INTO saved_searches (user_id, name, query, filters) VALUES (?, ?, 'q', '{}')",
    );
    await env.DB.batch(Array.from({ length: MAX_SAVED_SEARCHES - 1 }, (_, i) => insert.bind(userId, `s${i}`)));
    const last = await call("POST", "/api/saved-searches", { cookie, body: { name: "last", query: "q" } });
    expect(last.status).toBe(201);
    const over = await call("POST", "/api/saved-searches", { cookie, body: { name: "over", query: "q" } });
    expect(over.status).toBe(409);
    expect((await errorOf(over)).error).toBe("LIMIT_REACHED");
    expect(await listSavedSearches({ db: db() }, { userId })).toHaveLength(MAX_SAVED_SEARCHES);
  });

  it("keeps users apart: B cannot list or delete A's saved search", async () => {
    const a = await signUp();
    const b = await signUp();
    const mine = await createSavedSearch({ db: db() }, { userId: a.userId, name: "A's", query: "q", filters: {} });

    const listB = await call("GET", "/api/saved-searches", { cookie: b.cookie });
    expect(await listB.json()).toEqual({ savedSearches: [] });

    const delB = await call("DELETE", `/api/saved-searches/${mine.id}`, { cookie: b.cookie });
    expect(delB.status).toBe(404);
    const unknown = await call("DELETE", "/api/saved-searches/999999999", { cookie: b.cookie });
    expect(await errorOf(delB)).toEqual(await errorOf(unknown));
    expect(await savedSearchExists(mine.id)).toBe(true);
  });

  it("needs a signed-in user, a numeric id and a same-site request", async () => {
    const { cookie, userId } = await signUp();
    const mine = await createSavedSearch({ db: db() }, { userId, name: "kept", query: "q", filters: {} });

    expect((await call("GET", "/api/saved-searches")).status).toBe(401);
    expect((await call("POST", "/api/saved-searches", { body: { name: "n", query: "q" } })).status).toBe(401);
    expect((await call("DELETE", `/api/saved-searches/${mine.id}`)).status).toBe(401);

    for (const id of ["abc", "0", "-1", "1.5"]) {
      const res = await call("DELETE", `/api/saved-searches/${id}`, { cookie });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).error).toBe("INVALID_SAVED_SEARCH_ID");
    }

    const csrf = await call("DELETE", `/api/saved-searches/${mine.id}`, { cookie, origin: "https://evil.example" });
    expect(csrf.status).toBe(403);
    expect((await errorOf(csrf)).error).toBe("CSRF_REJECTED");
    expect(await savedSearchExists(mine.id)).toBe(true);

    const get = await call("GET", `/api/saved-searches/${mine.id}`, { cookie });
    expect(get.status).toBe(405);
    expect((await errorOf(get)).error).toBe("METHOD_NOT_ALLOWED");
  });
});
