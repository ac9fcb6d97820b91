import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { consumePendingReload, onSearchReload, requestSearchReload } from "./search-events";

function fakeWindow(pathname: string) {
  const target = new EventTarget();
  return Object.assign(target, { location: { pathname, assign: vi.fn() } });
}

function memorySession(): Pick<Storage, "getItem" | "setItem" | "removeItem"> {
  const data = new Map<string, string>();
  return {
    getItem: (k) => data.get(k) ?? null,
    setItem: (k, v) => void data.set(k, v),
    removeItem: (k) => void data.delete(k),
  };
}

beforeEach(() => {
  vi.stubGlobal("sessionStorage", memorySession());
});
afterEach(() => vi.unstubAllGlobals());

describe("search reload", () => {
  it("fires an event on /search", () => {
    const win = fakeWindow("/search");
    vi.stubGlobal("window", win);
    const handler = vi.fn();
    const off = onSearchReload(handler);
    requestSearchReload({ query: "zinc", dateRange: "last_year", providers: ["crossref"] });
    expect(handler).toHaveBeenCalledWith({ query: "zinc", dateRange: "last_year", providers: ["crossref"] });
    expect(win.location.assign).not.toHaveBeenCalled();
    off();
    requestSearchReload({ query: "again" });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("navigates from elsewhere and hands the parameters over once", () => {
    const win = fakeWindow("/profile");
    vi.stubGlobal("window", win);
    requestSearchReload({ query: "zinc", studyType: "meta_analysis" });
    expect(win.location.assign).toHaveBeenCalledWith("/search");
    expect(consumePendingReload()).toEqual({ query: "zinc", studyType: "meta_analysis" });
    expect(consumePendingReload()).toBeNull();
  });

  it("falls back to the page URL when sessionStorage refuses", () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const win = fakeWindow("/");
    vi.stubGlobal("window", win);
    vi.stubGlobal("sessionStorage", {
      setItem: () => {
        throw new Error("SecurityError");
      },
    });
    requestSearchReload({ query: "zinc", journalImpact: "high" });
    expect(win.location.assign).toHaveBeenCalledWith("/search?q=zinc&db=pubmed&journalImpact=high");
  });
});
