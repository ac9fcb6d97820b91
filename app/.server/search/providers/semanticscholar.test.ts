import { describe, expect, it } from "vitest";
import {
  fixtureResponse,
  fixtureSuiteName,
  hasSharedFixtures,
  readJsonFixture,
  recordingFetch,
} from "../../../../tests/fixtures";
import { NO_FILTERS, type SearchFilters } from "../filters";
import {
  normaliseSemanticScholar,
  S2_FIELDS,
  semanticScholarFilterParams,
  semanticscholar,
  semanticScholarSearchUrl,
} from "./semanticscholar";

const suite = hasSharedFixtures() ? describe : describe.skip;
const s2 = (name: string) => normaliseSemanticScholar(readJsonFixture(`semanticscholar/${name}`));
const BASE = "https://api.semanticscholar.org/graph/v1";

suite(fixtureSuiteName("Semantic Scholar recordings"), () => {
  it("normalises a /paper/search page (fields=title)", () => {
    const { studies, totalCount } = s2("search_kubernetes.json");
    expect(totalCount).toBe(3028);
    expect(studies).toHaveLength(100);
    expect(studies[0]).toMatchObject({
      source: "semanticscholar",
      sourceId: "61020665f9134e56009b6e10606fc21348f59d53",
      title: "Security Misconfigurations in Open Source Kubernetes Manifests: An Empirical Study",
      abstract: null,
      authors: [],
      doi: null,
      url: "https://www.semanticscholar.org/paper/61020665f9134e56009b6e10606fc21348f59d53",
    });
    const offset100 = s2("search_turing_offset100.json");
    expect(offset100.totalCount).toBe(70498);
    expect(offset100.studies[0].title).toBe("How to Run Turing Machines on Encrypted Data");
  });

  it("reads the empty search (no data key) and the empty match", () => {
    expect(s2("search_empty_result_set.json")).toEqual({ studies: [], totalCount: 0 });
    expect(s2("search_match_empty_data.json")).toEqual({ studies: [], totalCount: 0 });
  });

  it("accepts the batch array and skips its null entries", () => {
    const { studies, totalCount } = s2("paper_batch_POST_allfields_with_null.json");
    expect(totalCount).toBe(3);
    expect(studies.map((s) => s.doi)).toEqual(["10.2139/ssrn.288970", "10.2139/ssrn.2250500", "10.1257/rct.1355"]);
    expect(studies[0]).toMatchObject({
      title: "How Much Should We Trust Differences-in-Differences Estimates?",
      authors: ["Marianne Bertrand", "E. Duflo", "S. Mullainathan"],
      journal: "Experimental & Empirical Studies eJournal",
      publicationDate: "2001-10-01",
      citationCount: 10670,
      isOpenAccess: true,
      openAccessUrl: "http://papers.nber.org/papers/w8841.pdf",
      publicationTypes: ["Review"],
      studyType: "Research Article",
    });
    expect(studies[0].abstract).toMatch(/^Most Difference-in-Difference \(DD\) papers rely on many years of data/);
    // isOpenAccess without an openAccessPdf: open, but no URL; year-only date; empty venue → no journal.
    expect(studies[2]).toMatchObject({
      isOpenAccess: true,
      openAccessUrl: null,
      fullTextAvailable: false,
      publicationDate: "2023",
      journal: null,
    });
  });

  it("reads single paper objects with external ids", () => {
    const [addr] = s2("paper_DOI_10.1016-j.addr.2015.01.008.json").studies;
    expect(addr).toMatchObject({
      title: "Pharmacokinetics, biodistribution and cell uptake of antisense oligonucleotides.",
      doi: "10.1016/j.addr.2015.01.008",
      pmid: "25666165",
      pmcid: null,
      journal: "Advanced drug delivery reviews",
      publicationDate: "2015-06-29",
      publicationTypes: ["Review", "JournalArticle"],
      openAccessUrl: "https://doi.org/10.1016/j.addr.2015.01.008",
      citationCount: 689,
      abstract: null,
    });
    expect(addr.authors).toEqual(["R. Geary", "D. Norris", "R. Yu", "C. Bennett"]);

    const [xgen] = s2("paper_DOI_10.1016-j.xgen.2025.100814.json").studies;
    expect(xgen).toMatchObject({
      pmid: "40120586",
      pmcid: "PMC12008803",
      doi: "10.1016/j.xgen.2025.100814",
      journal: "Cell Genomics",
    });

    const [reactions] = s2("paper_DOI_10.1007-s40278-023-41815-2.json").studies;
    expect(reactions).toMatchObject({
      isOpenAccess: false,
      openAccessUrl: null,
      authors: [],
      journal: "Reactions Weekly",
      studyType: "Research Article",
    });

    expect(s2("paper_get_10.1093-mind-lix.236.433_fields-title.json").studies[0].title).toBe(
      "Computing Machinery and Intelligence",
    );
    expect(s2("search_match_pooled-prime-editing.json").studies[0].doi).toBe("10.1016/j.xgen.2025.100814");
  });

  it("rejects the recorded error bodies as parse errors", () => {
    expect(() => s2("error_400_unrecognized_fields.json")).toThrowError(
      /Unrecognized or unsupported fields: \[unknown\]/,
    );
    for (const name of [
      "error_403_forbidden_batch.json",
      "error_404_paper_not_found.json",
      "error_404_title_match_not_found.json",
      "error_404_paper_DOI_not_found.json",
    ]) {
      expect(() => s2(name), name).toThrowError(
        expect.objectContaining({ kind: "parse", provider: "semanticscholar" }),
      );
    }
  });
});

suite(fixtureSuiteName("semanticscholar.search with a fake fetch"), () => {
  it("calls /paper/search with query, offset, limit, fields and x-api-key", async () => {
    const fake = recordingFetch(() => fixtureResponse("semanticscholar/search_kubernetes.json"));
    const result = await semanticscholar.search(
      { fetch: fake.fetch, baseUrl: `${BASE}/`, apiKey: "s2-key" },
      { query: "kubernetes", page: 2, limit: 25 },
    );
    const url = new URL(fake.calls[0].url);
    expect(url.origin + url.pathname).toBe(`${BASE}/paper/search`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      query: "kubernetes",
      offset: "25",
      limit: "25",
      fields: S2_FIELDS,
    });
    expect(S2_FIELDS.split(",")).toEqual(
      expect.arrayContaining(["title", "abstract", "authors", "externalIds", "openAccessPdf", "publicationTypes"]),
    );
    expect(fake.calls[0].headers.get("x-api-key")).toBe("s2-key");
    expect(result.totalCount).toBe(3028);
  });

  it("sends no x-api-key without a key", async () => {
    const fake = recordingFetch(() => fixtureResponse("semanticscholar/search_empty_result_set.json"));
    await expect(
      semanticscholar.search({ fetch: fake.fetch, baseUrl: BASE }, { query: "n0 r3sult", page: 1, limit: 25 }),
    ).resolves.toEqual({
      studies: [],
      totalCount: 0,
    });
    expect(fake.calls[0].headers.has("x-api-key")).toBe(false);
  });

  it("keeps offset + limit below 1000 and chunks by 100", async () => {
    const fake = recordingFetch(() => fixtureResponse("semanticscholar/search_kubernetes.json"));
    await semanticscholar.search({ fetch: fake.fetch, baseUrl: BASE }, { query: "k", page: 2, limit: 500 });
    expect(
      fake.calls.map((c) => [new URL(c.url).searchParams.get("offset"), new URL(c.url).searchParams.get("limit")]),
    ).toEqual([
      ["500", "100"],
      ["600", "100"],
      ["700", "100"],
      ["800", "100"],
      ["900", "99"],
    ]);
  });

  it("refuses pages starting at or past result 1,000", async () => {
    const fake = recordingFetch(() => fixtureResponse("semanticscholar/search_kubernetes.json"));
    await expect(
      semanticscholar.search({ fetch: fake.fetch, baseUrl: BASE }, { query: "k", page: 3, limit: 500 }),
    ).rejects.toMatchObject({
      kind: "unavailable",
      message: expect.stringContaining("first 1,000 results"),
    });
    expect(fake.calls).toHaveLength(0);
  });

  it("maps the recorded 400 and 403 replies to http errors", async () => {
    for (const [fixture, status] of [
      ["semanticscholar/error_400_unrecognized_fields.json", 400],
      ["semanticscholar/error_403_forbidden_batch.json", 403],
    ] as const) {
      const fake = recordingFetch(() => fixtureResponse(fixture, status));
      await expect(
        semanticscholar.search({ fetch: fake.fetch, baseUrl: BASE }, { query: "q", page: 1, limit: 10 }),
      ).rejects.toMatchObject({
        kind: "http",
        status,
        message:
          status === 403
            ? '403: {"message":"Forbidden"}'
            : '400: {"error":"Unrecognized or unsupported fields: [unknown]"}',
      });
    }
  });
});

suite(fixtureSuiteName("semanticscholar filters → /paper/search parameters"), () => {
  const filters = (overrides: Partial<SearchFilters>): SearchFilters => ({ ...NO_FILTERS, ...overrides });
  const cases: Array<[string, Partial<SearchFilters>, Record<string, string>]> = [
    ["no filters: no filter parameters", {}, {}],
    [
      "date window",
      { dateRange: "custom", dateFrom: "2020-01-01", dateTo: "2024-12-31" },
      { publicationDateOrYear: "2020-01-01:2024-12-31" },
    ],
    [
      "date window open at the start",
      { dateRange: "custom", dateTo: "2019-06-30" },
      { publicationDateOrYear: ":2019-06-30" },
    ],
    [
      "date window open at the end",
      { dateRange: "custom", dateFrom: "2021-03-01" },
      { publicationDateOrYear: "2021-03-01:" },
    ],
    ["studyType clinical_trial", { studyType: "clinical_trial" }, { publicationTypes: "ClinicalTrial" }],
    ["studyType meta_analysis", { studyType: "meta_analysis" }, { publicationTypes: "MetaAnalysis" }],
    [
      "studyType systematic_review (Review, narrowed afterwards)",
      { studyType: "systematic_review" },
      { publicationTypes: "Review" },
    ],
    ["studyType observational (post-filter only)", { studyType: "observational" }, {}],
    ["fullTextOnly", { fullTextOnly: true }, { openAccessPdf: "" }],
    ["hasAbstract (post-filter only)", { hasAbstract: true }, {}],
    ["journalImpact high (post-filter only)", { journalImpact: "high" }, {}],
    ["journalImpact medium (post-filter only)", { journalImpact: "medium" }, {}],
    ["journalImpact low (post-filter only)", { journalImpact: "low" }, {}],
    [
      "every filter at once",
      {
        dateRange: "custom",
        dateFrom: "2018-01-01",
        dateTo: "2018-12-31",
        studyType: "clinical_trial",
        journalImpact: "high",
        fullTextOnly: true,
        hasAbstract: true,
      },
      { publicationDateOrYear: "2018-01-01:2018-12-31", publicationTypes: "ClinicalTrial", openAccessPdf: "" },
    ],
  ];

  for (const [name, overrides, extra] of cases) {
    it(name, async () => {
      const fake = recordingFetch(() => fixtureResponse("semanticscholar/search_kubernetes.json"));
      const params = { query: "heart failure", page: 1, limit: 25, filters: filters(overrides) };
      const result = await semanticscholar.search({ fetch: fake.fetch, baseUrl: BASE }, params);
      const url = new URL(fake.calls[0].url);
      expect(url.origin + url.pathname).toBe(`${BASE}/paper/search`);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        query: "heart failure",
        ...extra,
        offset: "0",
        limit: "25",
        fields: S2_FIELDS,
      });
      expect(fake.calls[0].url).toBe(semanticScholarSearchUrl(BASE, params, 0, 25));
      expect(Object.fromEntries(semanticScholarFilterParams(filters(overrides)))).toEqual(extra);
      expect(result.totalCount).toBe(3028);
    });
  }

  it("sends openAccessPdf with an empty value, as in the recorded openAccessPdf search", async () => {
    const fake = recordingFetch(() => fixtureResponse("semanticscholar/search_turing_openAccessPdf-filter.json"));
    const result = semanticscholar.search(
      { fetch: fake.fetch, baseUrl: BASE },
      { query: "turing", page: 1, limit: 100, filters: filters({ fullTextOnly: true }) },
    );
    await result.catch(() => undefined);
    expect(fake.calls[0].url).toBe(
      `${BASE}/paper/search?query=turing&openAccessPdf=&offset=0&limit=100&fields=${encodeURIComponent(S2_FIELDS)}`,
    );
    // The recording asked only for fields=openAccessPdf (no titles): 100 records none of which can be
    // read is garbage for a search that asked for full records, reported failed, not "ok, 0 results".
    await expect(result).rejects.toMatchObject({
      kind: "parse",
      message: "none of the 100 records in the answer could be read",
    });
  });

  it("repeats the filters on every chunk of a large window", async () => {
    const fake = recordingFetch(() => fixtureResponse("semanticscholar/search_kubernetes.json"));
    await semanticscholar.search(
      { fetch: fake.fetch, baseUrl: BASE },
      { query: "k", page: 1, limit: 250, filters: filters({ studyType: "meta_analysis" }) },
    );
    expect(fake.calls.map((c) => new URL(c.url).searchParams.get("publicationTypes"))).toEqual([
      "MetaAnalysis",
      "MetaAnalysis",
      "MetaAnalysis",
    ]);
  });
});
