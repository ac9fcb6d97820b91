import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { memoryStorage } from "../../tests/mocks/memory-storage";
import type { SearchResponse } from "~/.server/search/service";
import { DEFAULT_SEARCH_FORM } from "~/lib/search-params";
import {
  clearSearchState,
  loadSearchState,
  MAX_STORED_RESULTS_CHARS,
  saveSearchState,
  SEARCH_STATE_KEY,
} from "./search-storage";

const results = (message = "ok") =>
  ({ studies: [], totalCount: 0, page: 1, limit: 25, totalPages: 0, message }) as unknown as SearchResponse;

const form = { ...DEFAULT_SEARCH_FORM, query: "zinc", providers: ["pubmed", "doaj"] as const };

let store: Storage;
beforeEach(() => {
  store = memoryStorage();
  vi.stubGlobal("localStorage", store);
});
afterEach(() => vi.unstubAllGlobals());

describe("search storage", () => {
  it("round-trips the form, page and results", () => {
    saveSearchState({ form: { ...form, providers: [...form.providers] }, page: 3, results: results() });
    expect(loadSearchState()).toEqual({
      form: { ...form, providers: ["pubmed", "doaj"] },
      page: 3,
      results: results(),
    });
    clearSearchState();
    expect(loadSearchState()).toBeNull();
  });

  it("stores the form without results that are too large", () => {
    saveSearchState({
      form: DEFAULT_SEARCH_FORM,
      page: 1,
      results: results("x".repeat(MAX_STORED_RESULTS_CHARS)),
    });
    expect(loadSearchState()).toEqual({ form: DEFAULT_SEARCH_FORM, page: 1, results: null });
  });

  it("tolerates corrupt data and unavailable storage", () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    store.setItem(SEARCH_STATE_KEY, "{oops");
    expect(loadSearchState()).toBeNull();
    store.setItem(
      SEARCH_STATE_KEY,
      JSON.stringify({ form: { limit: 7, dateRange: "last_year" }, page: -1, results: 5 }),
    );
    expect(loadSearchState()).toEqual({
      form: { ...DEFAULT_SEARCH_FORM, dateRange: "last_year" },
      page: 1,
      results: null,
    });
    vi.stubGlobal("localStorage", {
      getItem: () => {
        throw new Error("SecurityError");
      },
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
      removeItem: () => {
        throw new Error("SecurityError");
      },
    });
    expect(() => saveSearchState({ form: DEFAULT_SEARCH_FORM, page: 1, results: results() })).not.toThrow();
    expect(loadSearchState()).toBeNull();
    expect(() => clearSearchState()).not.toThrow();
  });
});
