import { describe, expect, it } from "vitest";
import {
  fixtureResponse,
  fixtureSuiteName,
  hasSharedFixtures,
  readJsonFixture,
  recordingFetch,
} from "../../../../tests/fixtures";
import { NO_FILTERS, type SearchFilters } from "../filters";
import { buildDoajQuery, doaj, doajSearchUrl, normaliseDoajSearch } from "./doaj";

const suite = hasSharedFixtures() ? describe : describe.skip;
const recording = (name: string) => normaliseDoajSearch(readJsonFixture(`doaj/${name}`));

suite(fixtureSuiteName("DOAJ recordings"), () => {
  it("normalises an article search page", () => {
    const { studies, totalCount } = recording("v2_search_articles_license-CC-BY_pageSize10.json");
    expect(totalCount).toBe(5412874);
    expect(studies).toHaveLength(10);
    expect(studies[0]).toMatchObject({
      source: "doaj",
      sourceId: "00000b689df5492bb15d3ec8927a4f6d",
      title: "Brain insulin sensitivity is linked to adiposity and body fat distribution",
      doi: "10.1038/s41467-020-15686-y",
      journal: "Nature Communications",
      publicationDate: "2020-04",
      isOpenAccess: true,
      fullTextAvailable: true,
      openAccessUrl: "http://link.springer.com/article/10.1038/s41467-020-15686-y",
      url: "https://doaj.org/article/00000b689df5492bb15d3ec8927a4f6d",
      publicationTypes: [],
      pmid: null,
    });
    expect(studies[0].authors).toHaveLength(9);
    expect(studies[0].authors[4]).toBe("Jürgen Machann");
    expect(studies[0].abstract).toMatch(
      /^Brain insulin action regulates eating behavior and whole-body energy fluxes, however the impact/,
    );
  });

  it("reads month names and numbers, and records without DOI", () => {
    const byId = new Map(
      recording("v2_search_articles_license-CC-BY_pageSize10.json").studies.map((s) => [s.sourceId, s]),
    );
    expect(byId.get("00001149f7964522953b91582f289cfc")?.publicationDate).toBe("2017-03");
    expect(byId.get("0000133165664ede897e8c33fd51e8a4")?.publicationDate).toBe("2019-11");
    expect(byId.get("00001cb7350c4c5ba3cefe297098f736")?.publicationDate).toBe("2013");
    expect(byId.get("00000d914fd04a18adf84e756444ec98")).toMatchObject({
      doi: null,
      journal: "Letras de Hoje",
      publicationDate: "2013-01",
    });
  });

  it("reads the two-record page and single article records", () => {
    const two = recording("v2_search_articles_license-CC-BY_pageSize2.json");
    expect(two.totalCount).toBe(5412874);
    expect(two.studies.map((s) => s.sourceId)).toEqual([
      "00000b689df5492bb15d3ec8927a4f6d",
      "00000d914fd04a18adf84e756444ec98",
    ]);
    const single = recording("v2_articles_0005e11ec616453f854070069385e057.json");
    expect(single.studies[0]).toMatchObject({
      title: "Where in the brain are the genes expressed",
      journal: "Frontiers in Neuroinformatics",
      publicationDate: "2008-04",
    });
  });

  it("accepts the shared search envelope and rejects other bodies", () => {
    expect(recording("v2_search_journals_bibjson.keywords-heritage.json").totalCount).toBe(112);
    expect(() => normaliseDoajSearch({ error: "bad query" })).toThrowError(
      expect.objectContaining({ kind: "parse", provider: "doaj" }),
    );
  });
});

suite(fixtureSuiteName("doaj.search with a fake fetch"), () => {
  it("puts the encoded query in the path with page and pageSize", async () => {
    const fake = recordingFetch(() => fixtureResponse("doaj/v2_search_articles_license-CC-BY_pageSize10.json"));
    const result = await doaj.search(
      { fetch: fake.fetch, baseUrl: "https://doaj.org/api/" },
      { query: "license:CC-BY heart/lung", page: 3, limit: 10 },
    );
    const url = new URL(fake.calls[0].url);
    expect(url.pathname).toBe("/api/search/articles/license%3ACC-BY%20heart%2Flung");
    expect(Object.fromEntries(url.searchParams)).toEqual({ page: "3", pageSize: "10" });
    expect(result.totalCount).toBe(5412874);
    expect(result.studies).toHaveLength(10);
  });

  it("covers windows over 100 with fixed 100-record pages", async () => {
    const fake = recordingFetch((call) => {
      const page = Number(new URL(call.url).searchParams.get("page"));
      return Response.json({
        total: 5000,
        page,
        pageSize: 100,
        results: Array.from({ length: 100 }, (_, i) => ({
          id: `p${page}-${i}`,
          bibjson: { title: `Article ${page}-${i}` },
        })),
      });
    });
    const result = await doaj.search(
      { fetch: fake.fetch, baseUrl: "https://doaj.org/api" },
      { query: "q", page: 2, limit: 250 },
    );
    // Records 250–499 live on 100-record pages 3, 4 and 5.
    expect(fake.calls.map((c) => new URL(c.url).searchParams.get("page"))).toEqual(["3", "4", "5"]);
    expect(result.studies).toHaveLength(250);
    expect(result.studies[0].sourceId).toBe("p3-50");
    expect(result.studies.at(-1)!.sourceId).toBe("p5-99");
  });

  it("refuses pages beyond DOAJ's first 1,000 records", async () => {
    const fake = recordingFetch(() => fixtureResponse("doaj/v2_search_articles_license-CC-BY_pageSize10.json"));
    await expect(
      doaj.search({ fetch: fake.fetch, baseUrl: "https://doaj.org/api" }, { query: "q", page: 3, limit: 500 }),
    ).rejects.toMatchObject({
      kind: "unavailable",
    });
    expect(fake.calls).toHaveLength(0);
  });

  it("maps HTTP and parse failures", async () => {
    const failing = recordingFetch(() => new Response('{"error": "Query syntax error"}', { status: 400 }));
    await expect(
      doaj.search({ fetch: failing.fetch, baseUrl: "https://doaj.org/api" }, { query: "a:(", page: 1, limit: 10 }),
    ).rejects.toMatchObject({
      kind: "http",
      status: 400,
    });
    const html = recordingFetch(
      () => new Response("<!DOCTYPE html><html><body>Maintenance</body></html>", { status: 200 }),
    );
    await expect(
      doaj.search({ fetch: html.fetch, baseUrl: "https://doaj.org/api" }, { query: "q", page: 1, limit: 10 }),
    ).rejects.toMatchObject({
      kind: "parse",
      message: expect.stringContaining("Maintenance"),
    });
  });
});

suite(fixtureSuiteName("doaj filters → search_query path"), () => {
  const filters = (overrides: Partial<SearchFilters>): SearchFilters => ({ ...NO_FILTERS, ...overrides });
  const cases: Array<[string, Partial<SearchFilters>, string]> = [
    ["no filters: the query as typed", {}, "heart failure"],
    [
      "date window (whole years)",
      { dateRange: "custom", dateFrom: "2020-06-01", dateTo: "2024-12-31" },
      "(heart failure) AND bibjson.year:[2020 TO 2024]",
    ],
    [
      "date window open at the start",
      { dateRange: "custom", dateTo: "2019-06-30" },
      "(heart failure) AND bibjson.year:[* TO 2019]",
    ],
    [
      "date window open at the end",
      { dateRange: "custom", dateFrom: "2021-03-01" },
      "(heart failure) AND bibjson.year:[2021 TO *]",
    ],
    ["studyType clinical_trial (post-filter only)", { studyType: "clinical_trial" }, "heart failure"],
    ["studyType meta_analysis (post-filter only)", { studyType: "meta_analysis" }, "heart failure"],
    ["studyType systematic_review (post-filter only)", { studyType: "systematic_review" }, "heart failure"],
    ["studyType observational (post-filter only)", { studyType: "observational" }, "heart failure"],
    ["fullTextOnly (post-filter only: DOAJ is all open access)", { fullTextOnly: true }, "heart failure"],
    ["hasAbstract (post-filter only)", { hasAbstract: true }, "heart failure"],
    ["journalImpact high (post-filter only)", { journalImpact: "high" }, "heart failure"],
    ["journalImpact medium (post-filter only)", { journalImpact: "medium" }, "heart failure"],
    ["journalImpact low (post-filter only)", { journalImpact: "low" }, "heart failure"],
    [
      "every filter at once",
      {
        dateRange: "last_5_years",
        dateFrom: "2020-03-15",
        dateTo: "2025-03-15",
        studyType: "observational",
        journalImpact: "low",
        fullTextOnly: true,
        hasAbstract: true,
      },
      "(heart failure) AND bibjson.year:[2020 TO 2025]",
    ],
  ];

  for (const [name, overrides, query] of cases) {
    it(name, async () => {
      const fake = recordingFetch(() => fixtureResponse("doaj/v2_search_articles_license-CC-BY_pageSize10.json"));
      const params = { query: "heart failure", page: 1, limit: 10, filters: filters(overrides) };
      const result = await doaj.search({ fetch: fake.fetch, baseUrl: "https://doaj.org/api" }, params);
      const url = new URL(fake.calls[0].url);
      expect(url.pathname).toBe(`/api/search/articles/${encodeURIComponent(query)}`);
      expect(decodeURIComponent(url.pathname.slice("/api/search/articles/".length))).toBe(query);
      expect(Object.fromEntries(url.searchParams)).toEqual({ page: "1", pageSize: "10" });
      expect(fake.calls[0].url).toBe(doajSearchUrl("https://doaj.org/api", params, 1, 10));
      expect(buildDoajQuery("heart failure", filters(overrides))).toBe(query);
      expect(result.studies).toHaveLength(10);
    });
  }

  it("percent-encodes the range brackets and colon in the path", () => {
    expect(
      doajSearchUrl(
        "https://doaj.org/api/",
        { query: "malaria", filters: filters({ dateFrom: "2020-01-01", dateTo: "2021-12-31" }) },
        2,
        50,
      ),
    ).toBe(
      "https://doaj.org/api/search/articles/(malaria)%20AND%20bibjson.year%3A%5B2020%20TO%202021%5D?page=2&pageSize=50",
    );
  });
});
