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
import { buildEuropePmcQuery, europepmc, europePmcSearchUrl, normaliseEuropePmcSearch } from "./europepmc";

const suite = hasSharedFixtures() ? describe : describe.skip;
const search = (name: string) => normaliseEuropePmcSearch(readJsonFixture(`europepmc/${name}`));

suite(fixtureSuiteName("Europe PMC recordings"), () => {
  it("normalises a core page (COVID-19)", () => {
    const { studies, totalCount } = search("search_core_COVID-19_pageSize25.json");
    expect(totalCount).toBe(767814);
    expect(studies).toHaveLength(25);
    expect(studies[0]).toMatchObject({
      source: "europepmc",
      sourceId: "AGR/IND607549052",
      title: "The Influence of Covid-19 on Perceived Health Effects of Wetland Parks in China",
      pmid: null,
      doi: null,
      publicationDate: "2024-12-01",
      url: "https://europepmc.org/article/AGR/IND607549052",
    });
    expect(studies[0].authors).toHaveLength(2);
  });

  it("maps ids, journal, dates and the OA pdf of a PMC record", () => {
    const diabetes = search("search_core_COVID-19_pageSize25.json").studies[2];
    expect(diabetes).toMatchObject({
      sourceId: "MED/38654371",
      title: "Severity of COVID-19 infection in patients with COVID-19 combined with diabetes.",
      pmid: "38654371",
      pmcid: "PMC11040919",
      doi: "10.1186/s41043-024-00548-w",
      journal: "Journal of health, population, and nutrition",
      publicationDate: "2024-04-23",
      isOpenAccess: true,
      fullTextAvailable: true,
      openAccessUrl: "https://jhpn.biomedcentral.com/counter/pdf/10.1186/s41043-024-00548-w",
      citationCount: 0,
    });
    expect(diabetes.authors).toEqual(["Lu D", "Liu Y", "Ma P", "Hou R", "Wang J"]);
  });

  it("turns <h4> abstract sections into 'Heading: text'", () => {
    const diabetes = search("search_core_COVID-19_pageSize25.json").studies[2];
    expect(diabetes.abstract).toMatch(/^Purpose: This study aimed to analyse the correlation/);
    expect(diabetes.abstract).toContain(". Methods: Clinical and imaging data of a total of 146 patients");
    expect(diabetes.abstract).toContain("Conclusion: Blood glucose control is significantly correlated");
    const storm = search("search_core_Cytokine-Storm_pageSize100.json");
    expect(storm.totalCount).toBe(53980);
    expect(storm.studies).toHaveLength(100);
    expect(storm.studies.every((s) => !/<\/?h4>/.test(s.abstract ?? ""))).toBe(true);
  });

  it("treats a record with an OA-coded link as open access even when the flag is N", () => {
    const studies = search("search_core_COVID-19_pageSize25.json").studies;
    const preprint = studies.find((s) => s.sourceId === "PPR/PPR838108")!;
    expect(preprint).toMatchObject({
      isOpenAccess: true,
      pmid: null,
      publicationTypes: ["Preprint"],
      doi: "10.12688/f1000research.130610.4",
    });
    const letter = studies.find((s) => s.sourceId === "MED/38302164")!;
    expect(letter).toMatchObject({
      isOpenAccess: false,
      fullTextAvailable: true,
      openAccessUrl: "https://www.jrheum.org/content/jrheum/early/2024/01/25/jrheum.2023-0864.full.pdf",
    });
  });

  it("classifies from pubTypeList", () => {
    const studies = search("search_core_COVID-19_pageSize25.json").studies;
    expect(studies.find((s) => s.pmid === "38314855")?.studyType).toBe("Systematic Review");
    expect(studies.find((s) => s.pmid === "38553067")?.studyType).toBe("Observational Study");
    expect(studies.find((s) => s.pmid === "38339786")?.studyType).toBe("Research Article");
  });

  it("reads lite results (authorString, journalTitle, pubType string)", () => {
    const { studies, totalCount } = search("search_lite_cancer_json.json");
    expect(totalCount).toBe(5059039);
    expect(studies).toHaveLength(25);
    expect(studies[0]).toMatchObject({
      pmid: "39709209",
      title: "Abscopal response in a patient with fibrolamellar hepatocellular carcinoma following radiotherapy.",
      authors: ["Schoenfeld JD", "Haas-Kogan DA", "O'Neill AF"],
      journal: "Lancet",
      publicationTypes: ["journal article"],
      doi: "10.1016/s0140-6736(24)02600-x",
    });
    expect(search("searchPOST_lite_cancer_synonym-true.json").totalCount).toBe(5933343);
  });

  it("returns nothing for the recorded empty result and for idlist pages", () => {
    expect(search("search_empty_result_set.json")).toEqual({ studies: [], totalCount: 0 });
    expect(search("search_idlist_cancer_json.json")).toEqual({ studies: [], totalCount: 5059039 });
  });

  it("rejects other bodies", () => {
    expect(() => normaliseEuropePmcSearch({ error: "x" })).toThrowError(
      expect.objectContaining({ kind: "parse", provider: "europepmc" }),
    );
    expect(() => normaliseEuropePmcSearch("nope")).toThrowError(ProviderError);
  });
});

suite(fixtureSuiteName("europepmc.search with a fake fetch"), () => {
  const base = "https://www.ebi.ac.uk/europepmc/webservices/rest/";

  it("asks for one core page with cursorMark=* on page 1", async () => {
    const fake = recordingFetch(() => fixtureResponse("europepmc/search_core_COVID-19_pageSize25.json"));
    const result = await europepmc.search(
      { fetch: fake.fetch, baseUrl: base, email: "team@metamind.test" },
      { query: "COVID-19", page: 1, limit: 25 },
    );
    expect(fake.calls).toHaveLength(1);
    const url = new URL(fake.calls[0].url);
    expect(url.origin + url.pathname).toBe("https://www.ebi.ac.uk/europepmc/webservices/rest/search");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      query: "COVID-19",
      resultType: "core",
      format: "json",
      pageSize: "25",
      cursorMark: "*",
      email: "team@metamind.test",
    });
    expect(result.totalCount).toBe(767814);
    expect(result.studies).toHaveLength(25);
  });

  it("walks the cursor with an idlist request before fetching page 2", async () => {
    const fake = recordingFetch((call) =>
      new URL(call.url).searchParams.get("resultType") === "idlist"
        ? fixtureResponse("europepmc/search_idlist_cancer_json.json")
        : fixtureResponse("europepmc/search_core_cancer_json.json"),
    );
    const result = await europepmc.search(
      { fetch: fake.fetch, baseUrl: base },
      { query: "cancer", page: 2, limit: 25 },
    );
    expect(fake.calls).toHaveLength(2);
    const [skip, page] = fake.calls.map((c) => new URL(c.url).searchParams);
    expect([skip.get("resultType"), skip.get("pageSize"), skip.get("cursorMark")]).toEqual(["idlist", "25", "*"]);
    expect([page.get("resultType"), page.get("pageSize"), page.get("cursorMark")]).toEqual([
      "core",
      "25",
      "AoIIP4ZawSg1MzEyODI1MA==",
    ]);
    expect(page.has("email")).toBe(false);
    expect(result.totalCount).toBe(5059039);
    expect(result.studies[0].pmid).toBe("39709209");
  });

  it("stops when the skip request comes back short (past the last hit)", async () => {
    const fake = recordingFetch(() => fixtureResponse("europepmc/search_idlist_cancer_json.json"));
    const result = await europepmc.search(
      { fetch: fake.fetch, baseUrl: base },
      { query: "cancer", page: 3, limit: 25 },
    );
    expect(new URL(fake.calls[0].url).searchParams.get("pageSize")).toBe("50");
    expect(fake.calls).toHaveLength(1);
    expect(result).toEqual({ studies: [], totalCount: 5059039 });
  });

  it("gives up after 10 skip requests", async () => {
    const fake = recordingFetch((_call, index) =>
      Response.json({
        hitCount: 900000,
        nextCursorMark: `cursor-${index + 1}`,
        resultList: { result: Array.from({ length: 1000 }, (_, i) => ({ id: String(i), source: "MED" })) },
      }),
    );
    await expect(
      europepmc.search({ fetch: fake.fetch, baseUrl: base }, { query: "q", page: 22, limit: 500 }),
    ).rejects.toMatchObject({
      kind: "unavailable",
      provider: "europepmc",
    });
    expect(fake.calls).toHaveLength(10);
    expect(new URL(fake.calls[9].url).searchParams.get("cursorMark")).toBe("cursor-9");
  });

  it("maps HTTP failures to ProviderError", async () => {
    const fake = recordingFetch(
      () => new Response("Internal Server Error", { status: 500, statusText: "Internal Server Error" }),
    );
    await expect(
      europepmc.search({ fetch: fake.fetch, baseUrl: base }, { query: "q", page: 1, limit: 25 }),
    ).rejects.toMatchObject({
      kind: "http",
      status: 500,
      message: "500: Internal Server Error",
    });
  });
});

suite(fixtureSuiteName("europepmc filters → search query"), () => {
  const base = "https://www.ebi.ac.uk/europepmc/webservices/rest";
  const filters = (overrides: Partial<SearchFilters>): SearchFilters => ({ ...NO_FILTERS, ...overrides });
  const cases: Array<[string, Partial<SearchFilters>, string]> = [
    ["no filters: the query as typed", {}, "heart failure"],
    [
      "date window",
      { dateRange: "custom", dateFrom: "2020-01-01", dateTo: "2024-12-31" },
      "(heart failure) AND FIRST_PDATE:[2020-01-01 TO 2024-12-31]",
    ],
    [
      "date window open at the start",
      { dateRange: "custom", dateTo: "2019-06-30" },
      "(heart failure) AND FIRST_PDATE:[1000-01-01 TO 2019-06-30]",
    ],
    [
      "date window open at the end",
      { dateRange: "custom", dateFrom: "2021-03-01" },
      "(heart failure) AND FIRST_PDATE:[2021-03-01 TO 3000-12-31]",
    ],
    [
      "studyType clinical_trial",
      { studyType: "clinical_trial" },
      '(heart failure) AND (PUB_TYPE:"clinical trial" OR PUB_TYPE:"randomized controlled trial")',
    ],
    ["studyType meta_analysis", { studyType: "meta_analysis" }, '(heart failure) AND PUB_TYPE:"meta-analysis"'],
    [
      "studyType systematic_review",
      { studyType: "systematic_review" },
      '(heart failure) AND (PUB_TYPE:"systematic review" OR PUB_TYPE:"systematic-review")',
    ],
    ["studyType observational", { studyType: "observational" }, '(heart failure) AND PUB_TYPE:"observational study"'],
    ["fullTextOnly", { fullTextOnly: true }, "(heart failure) AND OPEN_ACCESS:Y"],
    ["hasAbstract", { hasAbstract: true }, "(heart failure) AND HAS_ABSTRACT:Y"],
    ["journalImpact high (post-filter only)", { journalImpact: "high" }, "heart failure"],
    ["journalImpact medium (post-filter only)", { journalImpact: "medium" }, "heart failure"],
    ["journalImpact low (post-filter only)", { journalImpact: "low" }, "heart failure"],
    [
      "every filter at once",
      {
        dateRange: "last_10_years",
        dateFrom: "2015-03-15",
        dateTo: "2025-03-15",
        studyType: "observational",
        journalImpact: "medium",
        fullTextOnly: true,
        hasAbstract: true,
      },
      '(heart failure) AND FIRST_PDATE:[2015-03-15 TO 2025-03-15] AND PUB_TYPE:"observational study" AND OPEN_ACCESS:Y AND HAS_ABSTRACT:Y',
    ],
  ];

  for (const [name, overrides, query] of cases) {
    it(name, async () => {
      const fake = recordingFetch(() => fixtureResponse("europepmc/search_core_COVID-19_pageSize25.json"));
      const params = { query: "heart failure", page: 1, limit: 25, filters: filters(overrides) };
      const result = await europepmc.search({ fetch: fake.fetch, baseUrl: base }, params);
      const url = new URL(fake.calls[0].url);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        query,
        resultType: "core",
        format: "json",
        pageSize: "25",
        cursorMark: "*",
      });
      expect(fake.calls[0].url).toBe(europePmcSearchUrl({ baseUrl: base }, params, "core", 25, "*"));
      expect(buildEuropePmcQuery("heart failure", filters(overrides))).toBe(query);
      expect(result.studies).toHaveLength(25);
    });
  }

  it("sends the same filtered query on the cursor walk and the page request", async () => {
    const fake = recordingFetch((call) =>
      new URL(call.url).searchParams.get("resultType") === "idlist"
        ? fixtureResponse("europepmc/search_idlist_cancer_json.json")
        : fixtureResponse("europepmc/search_core_cancer_json.json"),
    );
    await europepmc.search(
      { fetch: fake.fetch, baseUrl: base },
      { query: "cancer", page: 2, limit: 25, filters: filters({ fullTextOnly: true }) },
    );
    expect(fake.calls.map((c) => new URL(c.url).searchParams.get("query"))).toEqual([
      "(cancer) AND OPEN_ACCESS:Y",
      "(cancer) AND OPEN_ACCESS:Y",
    ]);
  });
});
