import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { memoryStorage } from "../../tests/mocks/memory-storage";
import { BOOKMARK_QUEUE_KEY, enqueueBookmark, queuedBookmarks, replayBookmarkQueue } from "./bookmark-queue";
import {
  requestExport,
  PDF_UNAVAILABLE_FALLBACK,
  EXPORT_FAILED_MESSAGE,
  DEFAULT_EXPORT_OPTIONS,
} from "./export-client";
import { answerPreview, loadSavedAnswers, removeSavedAnswer, saveAnswer } from "./saved-answers";
import { SEARCH_STATE_KEY } from "./search-storage";
import { displayName, saveSettings } from "./settings-client";

beforeEach(() => vi.stubGlobal("localStorage", memoryStorage()));
afterEach(() => vi.unstubAllGlobals());

describe("offline bookmark queue", () => {
  it("keeps only the newest intent per study, in order", () => {
    enqueueBookmark(1, "add", 10);
    enqueueBookmark(2, "add", 11);
    enqueueBookmark(1, "remove", 12);
    expect(queuedBookmarks()).toEqual([
      { studyId: 2, action: "add", queuedAt: 11 },
      { studyId: 1, action: "remove", queuedAt: 12 },
    ]);
  });

  it("replays in order, drops answered changes, keeps the rest on a network failure", async () => {
    enqueueBookmark(1, "add", 1);
    enqueueBookmark(2, "remove", 2);
    enqueueBookmark(3, "add", 3);
    const calls: string[] = [];
    const fetcher = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
      const { studyId } = JSON.parse(String(init!.body)) as { studyId: number };
      calls.push(`${init!.method} ${studyId}`);
      if (studyId === 2) return new Response("{}", { status: 404 }); // already gone: final
      if (studyId === 3) throw new TypeError("Failed to fetch");
      return new Response("{}", { status: 201 });
    });
    expect(await replayBookmarkQueue(fetcher as typeof fetch)).toEqual({ sent: 2, remaining: 1 });
    expect(calls).toEqual(["POST 1", "DELETE 2", "POST 3"]);
    expect(queuedBookmarks()).toEqual([{ studyId: 3, action: "add", queuedAt: 3 }]);
    const ok = vi.fn(async () => new Response("{}", { status: 201 }));
    expect(await replayBookmarkQueue(ok as typeof fetch)).toEqual({ sent: 1, remaining: 0 });
    expect(localStorage.getItem(BOOKMARK_QUEUE_KEY)).toBeNull();
  });

  it("stops on 401 and keeps everything", async () => {
    enqueueBookmark(1, "add", 1);
    const fetcher = vi.fn(async () => new Response("{}", { status: 401 }));
    expect(await replayBookmarkQueue(fetcher as typeof fetch)).toEqual({ sent: 0, remaining: 1 });
  });
});

describe("export client", () => {
  const payload = { ...DEFAULT_EXPORT_OPTIONS, studyIds: [1] };
  const respond = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    vi.fn(
      async () => new Response(typeof body === "string" ? body : JSON.stringify(body), { status, headers }),
    ) as unknown as typeof fetch;

  it("returns the file with the server's name", async () => {
    const out = await requestExport(
      payload,
      respond(200, "a,b", { "Content-Disposition": 'attachment; filename="metamind-studies-2026-01-02.csv"' }),
    );
    expect(out).toMatchObject({ kind: "file", filename: "metamind-studies-2026-01-02.csv" });
  });

  it("classifies sign-in, Pro, PDF failures, empty files and other errors", async () => {
    expect(await requestExport(payload, respond(401, { error: "UNAUTHORIZED" }))).toEqual({ kind: "signin" });
    expect(
      await requestExport(
        { ...payload, format: "ris" },
        respond(403, { error: "PRO_REQUIRED", feature: "citation_export", message: "m" }),
      ),
    ).toEqual({ kind: "pro", feature: "citation_export", message: "m" });
    expect(await requestExport({ ...payload, format: "pdf" }, respond(403, { error: "FORBIDDEN" }))).toMatchObject({
      kind: "pro",
      feature: "pdf_export",
    });
    expect(await requestExport({ ...payload, format: "pdf" }, respond(500, { message: "Renderer down" }))).toEqual({
      kind: "pdf-unavailable",
      message: "Renderer down",
    });
    expect(await requestExport({ ...payload, format: "pdf" }, respond(500, "not json"))).toEqual({
      kind: "pdf-unavailable",
      message: PDF_UNAVAILABLE_FALLBACK,
    });
    expect(await requestExport(payload, respond(200, ""))).toMatchObject({ kind: "failed" });
    expect(await requestExport(payload, respond(500, {}))).toEqual({ kind: "failed", message: EXPORT_FAILED_MESSAGE });
    const offline = vi.fn(async () => {
      throw new TypeError("Failed to fetch");
    }) as unknown as typeof fetch;
    expect(await requestExport(payload, offline)).toEqual({ kind: "failed", message: EXPORT_FAILED_MESSAGE });
  });
});

describe("saved answers", () => {
  it("shows 200 characters and says when text was cut", () => {
    expect(answerPreview("short")).toEqual({ text: "short", truncated: false });
    const long = "word ".repeat(100).trim();
    const p = answerPreview(long);
    expect(p.truncated).toBe(true);
    expect(p.text.length).toBeLessThanOrEqual(203);
    expect(p.text.endsWith("...")).toBe(true);
    expect(answerPreview("x".repeat(201)).text).toBe(`${"x".repeat(200)}...`);
  });

  it("saves newest first, replaces by id, removes, and ignores junk", () => {
    saveAnswer({ id: "1", question: "q1", answer: "a1", studyCount: 2, savedAt: "2026-01-01" });
    saveAnswer({ id: "2", question: "q2", answer: "a2", studyCount: 3, savedAt: "2026-01-02" });
    saveAnswer({ id: "1", question: "q1b", answer: "a1b", studyCount: 2, savedAt: "2026-01-03" });
    expect(loadSavedAnswers().map((a) => a.question)).toEqual(["q1b", "q2"]);
    expect(removeSavedAnswer("1").map((a) => a.id)).toEqual(["2"]);
    localStorage.setItem("metamind:saved-answers:v1", "{broken");
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect(loadSavedAnswers()).toEqual([]);
  });
});

describe("settings client", () => {
  it("clears the stored search when the default database or page size changes, not otherwise", async () => {
    const ok = vi.fn(async () => Response.json({})) as unknown as typeof fetch;
    localStorage.setItem(SEARCH_STATE_KEY, "{}");
    await saveSettings({ emailNotifications: false }, ok);
    expect(localStorage.getItem(SEARCH_STATE_KEY)).toBe("{}");
    await saveSettings({ searchResultsPerPage: 50 }, ok);
    expect(localStorage.getItem(SEARCH_STATE_KEY)).toBeNull();
    localStorage.setItem(SEARCH_STATE_KEY, "{}");
    await saveSettings({ defaultSearchProvider: "doaj" }, ok);
    expect(localStorage.getItem(SEARCH_STATE_KEY)).toBeNull();
    const failing = vi.fn(
      async () => new Response("nope", { status: 400, statusText: "Bad Request" }),
    ) as unknown as typeof fetch;
    await expect(saveSettings({ emailNotifications: true }, failing)).rejects.toThrow("400: nope");
  });

  it("display name is the first name, else the e-mail's local part", () => {
    expect(displayName({ firstName: "Ada", email: "x@y.z" })).toBe("Ada");
    expect(displayName({ firstName: null, email: "grace.hopper@navy.mil" })).toBe("grace.hopper");
  });
});

describe("repository search", () => {
  it("opens Europe PMC and CORE in two tabs, cutting the opener", async () => {
    const { openRepositorySearch, repositorySearchUrls } = await import("./open-access");
    const tabs: { opener: unknown }[] = [];
    const opened: string[] = [];
    const ok = openRepositorySearch({ title: "Zinc and colds", doi: "10.1/x" }, (url) => {
      opened.push(url);
      const tab = { opener: "parent" };
      tabs.push(tab);
      return tab as unknown as Window;
    });
    expect(ok).toBe(true);
    expect(opened).toEqual(repositorySearchUrls({ title: "Zinc and colds", doi: "10.1/x" }));
    expect(opened[0]).toBe("https://europepmc.org/search?query=DOI%3A%2210.1%2Fx%22");
    expect(opened[1]).toBe("https://core.ac.uk/search?q=%22Zinc%20and%20colds%22");
    expect(tabs.every((t) => t.opener === null)).toBe(true);
  });

  it("shows 'Popup Blocked' when the browser refuses a tab", async () => {
    const { openRepositorySearch } = await import("./open-access");
    const { getCurrentToast } = await import("./toast");
    let n = 0;
    const ok = openRepositorySearch({ title: "Zinc" }, () =>
      n++ === 0 ? ({ opener: null } as unknown as Window) : null,
    );
    expect(ok).toBe(false);
    expect(getCurrentToast()).toMatchObject({
      title: "Popup Blocked",
      description: "Please disable popup blockers and try again.",
    });
  });
});

describe("bookmark store", () => {
  /** GET /api/bookmarks answered only when the test says so; POST and DELETE answered at once. */
  function serverWith(initial: number[]) {
    const stored = new Set(initial);
    const pendingLoads: (() => void)[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_url: string, init?: RequestInit) => {
        const method = init?.method ?? "GET";
        if (method === "GET") {
          const snapshot = [...stored];
          return new Promise<Response>((resolve) =>
            pendingLoads.push(() => resolve(Response.json({ bookmarks: snapshot.map((id) => ({ study: { id } })) }))),
          );
        }
        const { studyId } = JSON.parse(String(init?.body)) as { studyId: number };
        if (method === "POST") stored.add(studyId);
        else stored.delete(studyId);
        return Response.json({ ok: true }, { status: method === "POST" ? 201 : 200 });
      }),
    );
    return { stored, answerLoad: () => pendingLoads.shift()!() };
  }

  beforeEach(() => vi.resetModules());

  it("a bookmark made while the page's first load is in flight survives that load's answer", async () => {
    const server = serverWith([]);
    const store = await import("./bookmarks");
    const load = store.loadBookmarks();
    expect(await store.toggleBookmark(7, true)).toEqual({ kind: "saved", bookmarked: true });
    expect(store.bookmarkedIds().has(7)).toBe(true);
    server.answerLoad();
    await load;
    expect(store.bookmarkedIds().has(7), "the list fetched before the toggle does not undo it").toBe(true);
  });

  it("a removal made while a load is in flight stays removed; a later load shows the server's list", async () => {
    const server = serverWith([7, 8]);
    const store = await import("./bookmarks");
    const first = store.loadBookmarks();
    server.answerLoad();
    await first;
    expect([...store.bookmarkedIds()].sort()).toEqual([7, 8]);

    const second = store.loadBookmarks(true);
    await store.toggleBookmark(8, false);
    server.answerLoad();
    await second;
    expect([...store.bookmarkedIds()]).toEqual([7]);

    // Removed elsewhere (another tab): a load sent after every toggle here shows the server's list.
    server.stored.delete(7);
    const third = store.loadBookmarks(true);
    server.answerLoad();
    await third;
    expect([...store.bookmarkedIds()]).toEqual([]);
  });
});
