import { describe, expect, it } from "vitest";
import {
  fixtureResponse,
  fixtureSuiteName,
  hasSharedFixtures,
  readJsonFixture,
  recordingFetch,
} from "../../../../tests/fixtures";
import { NO_FILTERS, type SearchFilters } from "../filters";
import { ProviderError } from "../types";
import { buildCoreQuery, core, coreSearchUrl, normaliseCoreSearch } from "./core";

const suite = hasSharedFixtures() ? describe : describe.skip;
const recording = (name: string) => normaliseCoreSearch(readJsonFixture(`core/${name}`));

suite(fixtureSuiteName("CORE v2 recordings"), () => {
  it("normalises the v2 search envelope (data[]._source)", () => {
    const { studies, totalCount } = recording("v2_search_ecology_page1_pageSize10.json");
    expect(totalCount).toBe(1326248);
    expect(studies).toHaveLength(10);
    expect(studies[0]).toMatchObject({
      source: "core",
      sourceId: "102353278",
      title: "Dispatch",
      authors: ["Rquantitative Ecology Terrestrial", "Fisheries Ecology"],
      publicationDate: "2015-08-22",
      doi: null,
      isOpenAccess: true,
      fullTextAvailable: true,
      openAccessUrl: "http://www.st-andrews.ac.uk/~perg/Brierley_Current_Biol_17_2007.pdf",
      url: "https://core.ac.uk/display/102353278",
    });
    expect(studies[0].abstract).toMatch(/^ecologists have progressed far beyond this simple duplex/);
    const herbarium = studies.find((s) => s.sourceId === "154520564");
    expect(herbarium).toMatchObject({
      title: "Acanthopanax sieboldianus Makino",
      publicationDate: "1957-09-30",
      journal: "The Keep",
    });
  });

  it("concatenates the batch form (list of envelopes) and sums totals", () => {
    const { studies, totalCount } = recording("v2_search_POST_batch_psychology-doi-german.json");
    expect(totalCount).toBe(97981 + 36 + 0);
    expect(studies).toHaveLength(20);
    expect(studies[0]).toMatchObject({
      sourceId: "105766275",
      title: "Psychology Psychology",
      publicationDate: "2009",
    });
    // The recorded author list repeats "Stephanie R. Graham"; duplicates are dropped.
    expect(studies[0].authors).toEqual([
      "Stephanie R. Graham",
      "Holly Stadler",
      "Jamie Carney",
      "Annette Kluck",
      "George T. Flowers",
    ]);
    const community = studies[10];
    expect(community).toMatchObject({
      sourceId: "254465215",
      title:
        "Community hospitals – the place of local service provision in a modernising NHS: an integrative thematic literature review",
      doi: "10.1186/1471-2458-6-309",
      citationCount: 11,
      publicationDate: "2006",
      openAccessUrl:
        "https://bmcpublichealth.biomedcentral.com/track/pdf/10.1186/1471-2458-6-309?site=bmcpublichealth.biomedcentral.com",
      abstract: null,
    });
    expect(community.authors).toEqual([
      "David Heaney",
      "Corri Black",
      "Catherine A O'Donnell",
      "Cameron Stark",
      "Edwin van Teijlingen",
    ]);
  });

  it("returns nothing for the recorded empty result and skips untitled records", () => {
    expect(recording("v2_search_POST_empty_result.json")).toEqual({ studies: [], totalCount: 0 });
    // The single-article recording has no title field.
    expect(recording("v2_articles_get_21132995.json")).toEqual({ studies: [], totalCount: 0 });
  });
});

describe("CORE v3 shape", () => {
  it("normalises results[] with authors[{name}], journals and links", () => {
    const { studies, totalCount } = normaliseCoreSearch({
      totalHits: 2,
      limit: 10,
      offset: 0,
      results: [
        {
          id: 4815162,
          title: "Physical activity and depression: a <i>systematic review</i>",
          abstract: "Background &amp; aims.",
          authors: [{ name: "Smith, Jane" }, { name: "Doe, John" }],
          doi: "https://doi.org/10.1000/XYZ.1",
          yearPublished: 2021,
          publishedDate: "2021-03-04T00:00:00",
          journals: [{ title: "Journal of Things", identifiers: ["issn:1234-5678"] }],
          links: [
            { type: "display", url: "https://core.ac.uk/works/4815162" },
            { type: "download", url: "https://core.ac.uk/download/4815162.pdf" },
          ],
          citationCount: null,
          documentType: "research",
          pubmedId: "33333333",
        },
        { id: 2, title: "" },
      ],
    });
    expect(totalCount).toBe(2);
    expect(studies).toHaveLength(1);
    expect(studies[0]).toMatchObject({
      sourceId: "4815162",
      title: "Physical activity and depression: a systematic review",
      abstract: "Background & aims.",
      authors: ["Smith, Jane", "Doe, John"],
      doi: "10.1000/xyz.1",
      pmid: "33333333",
      journal: "Journal of Things",
      publicationDate: "2021-03-04",
      openAccessUrl: "https://core.ac.uk/download/4815162.pdf",
      studyType: "Systematic Review",
      url: "https://core.ac.uk/works/4815162",
    });
  });

  it("rejects other shapes", () => {
    expect(() => normaliseCoreSearch({ message: "Unauthorized" })).toThrowError(
      expect.objectContaining({ kind: "parse", provider: "core" }),
    );
    expect(() => normaliseCoreSearch([])).toThrowError(ProviderError);
  });
});

suite(fixtureSuiteName("core.search with a fake fetch"), () => {
  it("refuses to run without an API key", async () => {
    const fake = recordingFetch(() => fixtureResponse("core/v2_search_ecology_page1_pageSize10.json"));
    for (const apiKey of [undefined, "", "  "]) {
      await expect(
        core.search(
          { fetch: fake.fetch, baseUrl: "https://api.core.ac.uk/v3", apiKey },
          { query: "ecology", page: 1, limit: 10 },
        ),
      ).rejects.toMatchObject({
        name: "ProviderError",
        kind: "unavailable",
        message: "CORE_API_KEY is not configured",
      });
    }
    expect(fake.calls).toHaveLength(0);
  });

  it("sends q/limit/offset with a Bearer token to search/works/", async () => {
    const fake = recordingFetch(() => fixtureResponse("core/v2_search_ecology_page1_pageSize10.json"));
    const result = await core.search(
      { fetch: fake.fetch, baseUrl: "https://api.core.ac.uk/v3/", apiKey: "core-key" },
      { query: "ecology", page: 2, limit: 10 },
    );
    const url = new URL(fake.calls[0].url);
    expect(url.origin + url.pathname).toBe("https://api.core.ac.uk/v3/search/works/");
    expect(Object.fromEntries(url.searchParams)).toEqual({ q: "ecology", limit: "10", offset: "10" });
    expect(fake.calls[0].headers.get("authorization")).toBe("Bearer core-key");
    expect(result.totalCount).toBe(1326248);
    expect(result.studies).toHaveLength(10);
  });

  it("splits windows over 100 into sequential requests", async () => {
    const fake = recordingFetch(() => fixtureResponse("core/v2_search_ecology_page1_pageSize10.json"));
    await core.search(
      { fetch: fake.fetch, baseUrl: "https://api.core.ac.uk/v3", apiKey: "k" },
      { query: "ecology", page: 1, limit: 250 },
    );
    expect(
      fake.calls.map((c) => [new URL(c.url).searchParams.get("offset"), new URL(c.url).searchParams.get("limit")]),
    ).toEqual([
      ["0", "100"],
      ["100", "100"],
      ["200", "50"],
    ]);
  });

  it("stops after the first request when the total is reached", async () => {
    const fake = recordingFetch(() => fixtureResponse("core/v2_search_POST_empty_result.json"));
    await expect(
      core.search(
        { fetch: fake.fetch, baseUrl: "https://api.core.ac.uk/v3", apiKey: "k" },
        { query: "none", page: 1, limit: 500 },
      ),
    ).resolves.toEqual({ studies: [], totalCount: 0 });
    expect(fake.calls).toHaveLength(1);
  });

  it("maps HTTP errors", async () => {
    const fake = recordingFetch(() => new Response('{"message":"Invalid API key"}', { status: 401 }));
    await expect(
      core.search(
        { fetch: fake.fetch, baseUrl: "https://api.core.ac.uk/v3", apiKey: "bad" },
        { query: "q", page: 1, limit: 10 },
      ),
    ).rejects.toMatchObject({
      kind: "http",
      status: 401,
      message: '401: {"message":"Invalid API key"}',
    });
  });
});

suite(fixtureSuiteName("core filters → q"), () => {
  const filters = (overrides: Partial<SearchFilters>): SearchFilters => ({ ...NO_FILTERS, ...overrides });
  const cases: Array<[string, Partial<SearchFilters>, string]> = [
    ["no filters: the query as typed", {}, "heart failure"],
    [
      "date window (whole years)",
      { dateRange: "custom", dateFrom: "2020-06-01", dateTo: "2024-02-29" },
      "(heart failure) AND yearPublished>=2020 AND yearPublished<=2024",
    ],
    [
      "date window open at the start",
      { dateRange: "custom", dateTo: "2019-06-30" },
      "(heart failure) AND yearPublished<=2019",
    ],
    [
      "date window open at the end",
      { dateRange: "custom", dateFrom: "2021-03-01" },
      "(heart failure) AND yearPublished>=2021",
    ],
    ["studyType clinical_trial (post-filter only)", { studyType: "clinical_trial" }, "heart failure"],
    ["studyType meta_analysis (post-filter only)", { studyType: "meta_analysis" }, "heart failure"],
    ["studyType systematic_review (post-filter only)", { studyType: "systematic_review" }, "heart failure"],
    ["studyType observational (post-filter only)", { studyType: "observational" }, "heart failure"],
    ["fullTextOnly (post-filter only: CORE is all open access)", { fullTextOnly: true }, "heart failure"],
    ["hasAbstract", { hasAbstract: true }, "(heart failure) AND _exists_:abstract"],
    ["journalImpact high (post-filter only)", { journalImpact: "high" }, "heart failure"],
    ["journalImpact medium (post-filter only)", { journalImpact: "medium" }, "heart failure"],
    ["journalImpact low (post-filter only)", { journalImpact: "low" }, "heart failure"],
    [
      "every filter at once",
      {
        dateRange: "last_year",
        dateFrom: "2024-03-15",
        dateTo: "2025-03-15",
        studyType: "systematic_review",
        journalImpact: "any",
        fullTextOnly: true,
        hasAbstract: true,
      },
      "(heart failure) AND yearPublished>=2024 AND yearPublished<=2025 AND _exists_:abstract",
    ],
  ];

  for (const [name, overrides, q] of cases) {
    it(name, async () => {
      const fake = recordingFetch(() => fixtureResponse("core/v2_search_ecology_page1_pageSize10.json"));
      const params = { query: "heart failure", page: 1, limit: 10, filters: filters(overrides) };
      const result = await core.search(
        { fetch: fake.fetch, baseUrl: "https://api.core.ac.uk/v3", apiKey: "core-key" },
        params,
      );
      const url = new URL(fake.calls[0].url);
      expect(url.pathname).toBe("/v3/search/works/");
      expect(Object.fromEntries(url.searchParams)).toEqual({ q, limit: "10", offset: "0" });
      expect(fake.calls[0].url).toBe(coreSearchUrl("https://api.core.ac.uk/v3", params, 0, 10));
      expect(buildCoreQuery("heart failure", filters(overrides))).toBe(q);
      expect(result.studies).toHaveLength(10);
    });
  }
});
