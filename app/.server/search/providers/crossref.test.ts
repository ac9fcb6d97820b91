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
import { crossref, crossrefFilter, crossrefSearchUrl, normaliseCrossrefWorks } from "./crossref";

const suite = hasSharedFixtures() ? describe : describe.skip;
const works = (name: string) => normaliseCrossrefWorks(readJsonFixture(`crossref/${name}`));

suite(fixtureSuiteName("Crossref recordings"), () => {
  it("normalises a 20-item work-list (query=NSF)", () => {
    const { studies, totalCount } = works("search_query-NSF_rows20-default.json");
    expect(totalCount).toBe(94960);
    expect(studies).toHaveLength(20);
    expect(studies[0]).toMatchObject({
      source: "crossref",
      sourceId: "10.1016/j.acha.2016.05.001",
      doi: "10.1016/j.acha.2016.05.001",
      title: "A sharp Balian–Low uncertainty principle for shift-invariant spaces",
      authors: ["Douglas P. Hardin", "Michael C. Northington", "Alexander M. Powell"],
      journal: "Applied and Computational Harmonic Analysis",
      publicationDate: "2018-03",
      citationCount: 10,
      abstract: null,
      pmid: null,
      isOpenAccess: false,
      openAccessUrl: null,
      publicationTypes: ["journal-article"],
      url: "https://doi.org/10.1016/j.acha.2016.05.001",
    });
  });

  it("strips the JATS abstract and derives open access from a CC licence", () => {
    const feline = works("search_query-NSF_rows20-default.json").studies[4];
    expect(feline.title).toBe(
      "Diagnostic Uncertainty and the Epidemiology of Feline Foamy Virus in Pumas (Puma concolor)",
    );
    expect(feline.abstract).toMatch(/^Feline foamy virus \(FFV\) is a contact-dependent retrovirus/);
    expect(feline.abstract).not.toMatch(/jats|<|Abstract Feline/);
    expect(feline.authors).toHaveLength(8);
    expect(feline).toMatchObject({
      publicationDate: "2020-01-31",
      isOpenAccess: true,
      fullTextAvailable: true,
      openAccessUrl: "http://www.nature.com/articles/s41598-020-58350-7.pdf",
      citationCount: 6,
    });
  });

  it("collapses whitespace inside titles", () => {
    const enzyme = works("search_query-NSF_rows20-default.json").studies.find((s) => s.doi === "10.1063/1.4869472");
    expect(enzyme?.title).toBe(
      "Enzyme transient state kinetics in crystal and solution from the perspective of a time-resolved crystallographer",
    );
  });

  it("reads both cursor pages of the ecology search", () => {
    const page1 = works("search_query-ecology_rows30_cursor-page1.json");
    expect(page1.totalCount).toBe(452242);
    expect(page1.studies).toHaveLength(30);
    expect(page1.studies[0]).toMatchObject({
      title: "Communicating Ecology",
      authors: [],
      journal: "Ecology",
      publicationTypes: ["reference-entry"],
    });
    expect(page1.studies[0].abstract).toMatch(/^Communication is perhaps the most important/);

    const page2 = works("search_query-ecology_rows30_cursor-page2.json");
    expect(page2.studies).toHaveLength(30);
    expect(page2.studies[0].title).toBe("Molecular Genetics in Ecology");
    expect(page2.studies.every((s) => !s.title.includes("<"))).toBe(true);
    // Records whose date-parts are [[null]] get no date.
    expect(page2.studies.find((s) => s.doi === "10.1155/8641")?.publicationDate).toBeNull();
  });

  it("skips items without a title", () => {
    const { studies, totalCount } = works("search_query-renear-ontologies.json");
    expect(totalCount).toBe(9268);
    expect(studies).toHaveLength(19);
    expect(studies.some((s) => s.doi === "10.1023/a:1001832310939")).toBe(false);
    expect(studies[0]).toMatchObject({
      doi: "10.1126/science.1157784",
      authors: ["Allen H. Renear", "Carole L. Palmer"],
      citationCount: 95,
    });
  });

  it("returns nothing for the recorded empty searches", () => {
    expect(works("search_empty_query-adfaaf.json")).toEqual({ studies: [], totalCount: 0 });
    expect(works("search_empty_query.title-gibberish_rows1.json")).toEqual({ studies: [], totalCount: 0 });
  });

  it("keeps preprint types and uses the preprint server as journal", () => {
    const [preprint] = works("search_query.title_pooled-prime-editing_rows1.json").studies;
    expect(preprint).toMatchObject({
      doi: "10.1101/2024.04.01.587366",
      publicationTypes: ["posted-content", "preprint"],
      journal: "bioRxiv",
      publicationDate: "2024-04-01",
    });
    expect(preprint.abstract).toMatch(/^Understanding the effects of rare genetic variants/);
  });

  it("accepts a single /works/{doi} message", () => {
    const { studies, totalCount } = works("works_10.1016-j.pediatrneurol.2015.06.002.json");
    expect(totalCount).toBe(1);
    expect(studies[0]).toMatchObject({
      title: "Delay in Diagnosis of Spinal Muscular Atrophy: A Systematic Literature Review",
      studyType: "Systematic Review",
      publicationDate: "2015-10",
      citationCount: 60,
      isOpenAccess: true,
      // Only Elsevier text-mining API links are listed, so the DOI resolver is used.
      openAccessUrl: "https://doi.org/10.1016/j.pediatrneurol.2015.06.002",
    });
    expect(studies[0].authors).toEqual(["Chia-Wei Lin", "Stephanie J. Kalb", "Wei-Shi Yeh"]);

    const [pnas] = works("works_10.1073-pnas.1414271111.json").studies;
    expect(pnas.abstract).toMatch(/^Significance: The inadequate mechanical properties of engineered tissues/);
    expect(pnas.citationCount).toBe(129);
  });

  it("rejects the recorded error bodies as parse errors", () => {
    for (const name of [
      "error_400_query-not-allowed-with-doi.json",
      "error_400_sample-over-100.json",
      "error_404_cursor-invalid.json",
      "error_500_invalid_cursor.json",
    ]) {
      expect(() => works(name), name).toThrowError(expect.objectContaining({ kind: "parse", provider: "crossref" }));
    }
  });
});

suite(fixtureSuiteName("crossref.search with a fake fetch"), () => {
  it("sends query, rows, offset and mailto to /works", async () => {
    const controller = new AbortController();
    const fake = recordingFetch(() => fixtureResponse("crossref/search_query-ecology_rows30_cursor-page1.json"));
    const result = await crossref.search(
      {
        fetch: fake.fetch,
        baseUrl: "https://api.crossref.org/",
        email: "team@metamind.test",
        signal: controller.signal,
      },
      { query: "ecology", page: 3, limit: 30 },
    );
    const url = new URL(fake.calls[0].url);
    expect(url.origin + url.pathname).toBe("https://api.crossref.org/works");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      query: "ecology",
      rows: "30",
      offset: "60",
      mailto: "team@metamind.test",
    });
    expect(fake.calls[0].signal).toBe(controller.signal);
    expect(result.totalCount).toBe(452242);
    expect(result.studies).toHaveLength(30);
  });

  it("omits mailto without an e-mail", async () => {
    const fake = recordingFetch(() => fixtureResponse("crossref/search_empty_query-adfaaf.json"));
    await expect(
      crossref.search(
        { fetch: fake.fetch, baseUrl: "https://api.crossref.org" },
        { query: "adfaaf", page: 1, limit: 25 },
      ),
    ).resolves.toEqual({
      studies: [],
      totalCount: 0,
    });
    expect(new URL(fake.calls[0].url).searchParams.has("mailto")).toBe(false);
  });

  it("maps recorded error responses to http ProviderErrors with a body snippet", async () => {
    const cases: Array<[string, number, RegExp]> = [
      ["crossref/error_400_sample-over-100.json", 400, /^400: \{"status":"failed","message-type":"validation-failure"/],
      ["crossref/error_404_works_blblbl.txt", 404, /^404: Resource not found\.$/],
      ["crossref/error_500_invalid_cursor.json", 500, /^500: \{"status":"error","message-type":"exception"/],
    ];
    for (const [fixture, status, message] of cases) {
      const fake = recordingFetch(() => fixtureResponse(fixture, status));
      const error = await crossref
        .search({ fetch: fake.fetch, baseUrl: "https://api.crossref.org" }, { query: "q", page: 1, limit: 5 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ kind: "http", status });
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message.length).toBeLessThanOrEqual(205);
    }
  });

  it("reports a non-JSON 200 body as a parse error", async () => {
    const fake = recordingFetch(() => new Response("<html><body>Service Unavailable</body></html>", { status: 200 }));
    await expect(
      crossref.search({ fetch: fake.fetch, baseUrl: "https://api.crossref.org" }, { query: "q", page: 1, limit: 5 }),
    ).rejects.toMatchObject({
      kind: "parse",
      provider: "crossref",
    });
  });
});

suite(fixtureSuiteName("crossref filters → /works filter="), () => {
  const filters = (overrides: Partial<SearchFilters>): SearchFilters => ({ ...NO_FILTERS, ...overrides });
  const cases: Array<[string, Partial<SearchFilters>, string | null]> = [
    ["no filters: no filter parameter", {}, null],
    [
      "date window",
      { dateRange: "custom", dateFrom: "2020-01-01", dateTo: "2024-12-31" },
      "from-pub-date:2020-01-01,until-pub-date:2024-12-31",
    ],
    ["date window open at the start", { dateRange: "custom", dateTo: "2019-06-30" }, "until-pub-date:2019-06-30"],
    ["date window open at the end", { dateRange: "custom", dateFrom: "2021-03-01" }, "from-pub-date:2021-03-01"],
    ["studyType clinical_trial (post-filter only)", { studyType: "clinical_trial" }, null],
    ["studyType meta_analysis (post-filter only)", { studyType: "meta_analysis" }, null],
    ["studyType systematic_review (post-filter only)", { studyType: "systematic_review" }, null],
    ["studyType observational (post-filter only)", { studyType: "observational" }, null],
    ["fullTextOnly: a licence is required, CC is checked afterwards", { fullTextOnly: true }, "has-license:true"],
    ["hasAbstract", { hasAbstract: true }, "has-abstract:true"],
    ["journalImpact high (post-filter only)", { journalImpact: "high" }, null],
    ["journalImpact medium (post-filter only)", { journalImpact: "medium" }, null],
    ["journalImpact low (post-filter only)", { journalImpact: "low" }, null],
    [
      "every filter at once",
      {
        dateRange: "last_year",
        dateFrom: "2024-03-15",
        dateTo: "2025-03-15",
        studyType: "clinical_trial",
        journalImpact: "low",
        fullTextOnly: true,
        hasAbstract: true,
      },
      "from-pub-date:2024-03-15,until-pub-date:2025-03-15,has-license:true,has-abstract:true",
    ],
  ];

  for (const [name, overrides, filter] of cases) {
    it(name, async () => {
      const fake = recordingFetch(() => fixtureResponse("crossref/search_query-ecology_rows30_cursor-page1.json"));
      const params = { query: "heart failure", page: 2, limit: 30, filters: filters(overrides) };
      const result = await crossref.search(
        { fetch: fake.fetch, baseUrl: "https://api.crossref.org", email: "team@metamind.test" },
        params,
      );
      const url = new URL(fake.calls[0].url);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        query: "heart failure",
        ...(filter === null ? {} : { filter }),
        rows: "30",
        offset: "30",
        mailto: "team@metamind.test",
      });
      expect(fake.calls[0].url).toBe(crossrefSearchUrl("https://api.crossref.org", params, "team@metamind.test"));
      expect(crossrefFilter(filters(overrides))).toBe(filter);
      expect(result.studies).toHaveLength(30);
    });
  }

  it("encodes the filter list as one form-encoded parameter", () => {
    expect(
      crossrefSearchUrl("https://api.crossref.org/", {
        query: "a b",
        page: 1,
        limit: 5,
        filters: filters({ dateFrom: "2020-01-01", hasAbstract: true }),
      }),
    ).toBe(
      "https://api.crossref.org/works?query=a+b&filter=from-pub-date%3A2020-01-01%2Chas-abstract%3Atrue&rows=5&offset=0",
    );
  });
});
