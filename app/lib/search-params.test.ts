import { describe, expect, it } from "vitest";
import {
  activeFilterBadges,
  customRangeError,
  DEFAULT_SEARCH_FORM,
  formFromStoredSearch,
  fromUrl,
  pageFromUrl,
  toApiParams,
  toPageUrl,
  toStoredFilters,
  type SearchFormState,
} from "./search-params";

const form = (patch: Partial<SearchFormState>): SearchFormState => ({ ...DEFAULT_SEARCH_FORM, ...patch });

describe("toApiParams", () => {
  it("sends the core parameters and omits default filters", () => {
    const params = toApiParams(form({ query: "  vitamin d  " }), 1);
    expect(Object.fromEntries(params)).toEqual({
      q: "vitamin d",
      page: "1",
      limit: "25",
      searchProviders: "pubmed",
    });
  });

  it("falls back to PubMed with no database selected and orders databases canonically", () => {
    expect(toApiParams(form({ query: "x", providers: [] }), 1).get("searchProviders")).toBe("pubmed");
    expect(toApiParams(form({ query: "x", providers: ["doaj", "pubmed", "doaj"] }), 1).get("searchProviders")).toBe(
      "pubmed,doaj",
    );
  });

  it("sends every narrowing filter under its API name", () => {
    const params = toApiParams(
      form({
        query: "x",
        limit: 500,
        dateRange: "custom",
        customDateFrom: "2020-01-01",
        customDateTo: "2024-12-31",
        studyType: "meta_analysis",
        journalImpact: "high",
        fullTextOnly: "free_only",
        hasAbstract: "required",
        smartSearch: true,
      }),
      3,
    );
    expect(Object.fromEntries(params)).toEqual({
      q: "x",
      page: "3",
      limit: "500",
      searchProviders: "pubmed",
      dateRange: "custom",
      customDateFrom: "2020-01-01",
      customDateTo: "2024-12-31",
      studyType: "meta_analysis",
      journalImpact: "high",
      fullTextOnly: "free_only",
      hasAbstract: "required",
    });
  });

  it("drops custom dates unless the range is custom, and a custom range with no dates", () => {
    const relative = toApiParams(form({ query: "x", dateRange: "last_5_years", customDateFrom: "2020-01-01" }), 1);
    expect(relative.get("dateRange")).toBe("last_5_years");
    expect(relative.has("customDateFrom")).toBe(false);
    expect(toApiParams(form({ query: "x", dateRange: "custom" }), 1).has("dateRange")).toBe(false);
  });
});

describe("page URL", () => {
  it("round-trips through toPageUrl and fromUrl", () => {
    const state = form({
      query: "statins",
      providers: ["pubmed", "crossref"],
      limit: 100,
      dateRange: "custom",
      customDateFrom: "2020-01-01",
      customDateTo: "",
      studyType: "clinical_trial",
      hasAbstract: "required",
    });
    const url = toPageUrl(state, 2);
    expect(url.startsWith("/search?q=statins&db=pubmed%2Ccrossref&page=2&limit=100")).toBe(true);
    const params = new URL(url, "https://example.org").searchParams;
    expect({ ...DEFAULT_SEARCH_FORM, ...fromUrl(params) }).toEqual(state);
    expect(pageFromUrl(params)).toBe(2);
  });

  it("omits page 1 and the default limit", () => {
    expect(toPageUrl(form({ query: "a b" }), 1)).toBe("/search?q=a+b&db=pubmed");
  });

  it("ignores unknown and invalid values", () => {
    const params = new URLSearchParams(
      "q=x&db=pubmed,nope&limit=30&dateRange=forever&studyType=meta_analysis&customDateFrom=2020-1-1&page=-2",
    );
    expect(fromUrl(params)).toEqual({ query: "x", providers: ["pubmed"], studyType: "meta_analysis" });
    expect(pageFromUrl(params)).toBe(1);
    expect(fromUrl(new URLSearchParams("db=nope"))).toEqual({});
  });
});

describe("activeFilterBadges", () => {
  it("labels narrowing filters", () => {
    expect(
      activeFilterBadges({
        dateRange: "last_5_years",
        studyType: "meta_analysis",
        journalImpact: "high",
        fullTextOnly: "free_only",
        hasAbstract: "required",
      }),
    ).toEqual(["Last 5 years", "Meta-analysis", "Impact > 10", "Free full text", "Has abstract"]);
  });

  it("labels custom ranges and result counts", () => {
    expect(
      activeFilterBadges({
        dateRange: "custom",
        customDateFrom: "2020-01-01",
        customDateTo: "2024-12-31",
        limit: 500,
      }),
    ).toEqual(["From 2020-01-01 to 2024-12-31", "All available"]);
    expect(activeFilterBadges({ dateRange: "custom", customDateTo: "2024-12-31", limit: 50 })).toEqual([
      "Until 2024-12-31",
      "50 results",
    ]);
  });

  it("shows nothing for defaults and accepts boolean flags", () => {
    expect(
      activeFilterBadges({ dateRange: "any", studyType: "all", journalImpact: "any", fullTextOnly: "all" }),
    ).toEqual([]);
    expect(activeFilterBadges({ fullTextOnly: true, hasAbstract: false })).toEqual(["Free full text"]);
  });
});

describe("stored searches", () => {
  it("replaces the query and every filter, keeping databases only when recorded", () => {
    expect(formFromStoredSearch({ query: "zinc", filters: { journalImpact: "low" }, providers: [] })).toEqual({
      query: "zinc",
      dateRange: "any",
      customDateFrom: "",
      customDateTo: "",
      studyType: "all",
      journalImpact: "low",
      fullTextOnly: "all",
      hasAbstract: "all",
    });
    expect(
      formFromStoredSearch({ query: "zinc", filters: { searchProviders: ["crossref"], limit: 50 } }),
    ).toMatchObject({ providers: ["crossref"], limit: 50 });
  });

  it("serialises a form's filters for saving", () => {
    expect(toStoredFilters(form({ query: "x", providers: [], customDateFrom: "2020-01-01" }))).toEqual({
      dateRange: "any",
      studyType: "all",
      journalImpact: "any",
      fullTextOnly: "all",
      hasAbstract: "all",
      customDateFrom: null,
      customDateTo: null,
      limit: 25,
      searchProviders: ["pubmed"],
    });
  });
});

describe("customRangeError", () => {
  it("flags an inverted custom range only", () => {
    expect(
      customRangeError(form({ dateRange: "custom", customDateFrom: "2024-01-02", customDateTo: "2024-01-01" })),
    ).toBe("Start date must be before end date");
    expect(
      customRangeError(form({ dateRange: "custom", customDateFrom: "2024-01-01", customDateTo: "2024-01-01" })),
    ).toBeNull();
    expect(
      customRangeError(form({ dateRange: "any", customDateFrom: "2024-01-02", customDateTo: "2024-01-01" })),
    ).toBeNull();
  });
});
