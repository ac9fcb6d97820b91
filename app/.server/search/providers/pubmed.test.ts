import { describe, expect, it } from "vitest";
import {
  fixtureResponse,
  fixtureSuiteName,
  hasSharedFixtures,
  readFixture,
  recordingFetch,
} from "../../../../tests/fixtures";
import { NO_FILTERS, type SearchFilters } from "../filters";
import { ProviderError } from "../types";
import { buildPubmedTerm, normalisePubmedXml, parsePubmedEsearch, pubmed, pubmedEsearchUrl } from "./pubmed";

const suite = hasSharedFixtures() ? describe : describe.skip;
const efetch = (name: string) => normalisePubmedXml(readFixture(`pubmed/${name}`));

suite(fixtureSuiteName("PubMed esearch recordings"), () => {
  it("reads Count and the page of ids", () => {
    const cancer = parsePubmedEsearch(readFixture("pubmed/esearch_pubmed_cancer_reldate60_retmax100_usehistory.xml"));
    expect(cancer.count).toBe(42249);
    expect(cancer.ids).toHaveLength(100);
    expect(cancer.ids[0]).toBe("41297076");

    const biopython = parsePubmedEsearch(readFixture("pubmed/esearch_pubmed_biopython.xml"));
    expect(biopython).toMatchObject({ count: 63 });
    expect(biopython.ids).toHaveLength(20);

    const pnas = parsePubmedEsearch(readFixture("pubmed/esearch_pubmed_PNAS-vol97_retstart6_retmax6.xml"));
    expect(pnas.count).toBe(2651);
    expect(pnas.ids).toEqual(["11121077", "11121076", "11121075", "11121074", "11121073", "11121072"]);
  });

  it("reads the no-results reply (ErrorList/PhraseNotFound) as empty", () => {
    expect(parsePubmedEsearch(readFixture("pubmed/esearch_protein_no-results_abcXYZ.xml"))).toEqual({
      count: 0,
      ids: [],
    });
  });

  it("rejects an HTML page as a parse error", () => {
    expect(() => parsePubmedEsearch(readFixture("pubmed/error_414_esummary_uri-too-large.html"))).toThrowError(
      expect.objectContaining({ name: "ProviderError", kind: "parse", provider: "pubmed" }),
    );
  });
});

describe("PubMed esearch JSON form", () => {
  it("accepts retmode=json and reports esearch ERROR replies", () => {
    expect(parsePubmedEsearch('{"esearchresult":{"count":"2","retmax":"2","idlist":["11700088","11748933"]}}')).toEqual(
      {
        count: 2,
        ids: ["11700088", "11748933"],
      },
    );
    expect(() => parsePubmedEsearch('{"esearchresult":{"ERROR":"Invalid query"}}')).toThrowError(/Invalid query/);
  });
});

suite(fixtureSuiteName("PubMed efetch recordings"), () => {
  it("normalises a two-article set (11748933, 11700088)", () => {
    const { studies, totalCount } = efetch("efetch_pubmed_11748933_11700088.xml");
    expect(totalCount).toBe(2);
    const [cryo, mri] = studies;
    expect(cryo).toMatchObject({
      source: "pubmed",
      sourceId: "11748933",
      pmid: "11748933",
      title:
        "Is cryopreservation a homogeneous process? Ultrastructure and motility of untreated, prefreezing, and postthawed spermatozoa of Diplodus puntazzo (Cetti).",
      journal: "Cryobiology",
      publicationDate: "2001-06",
      doi: "10.1006/cryo.2001.2328",
      pmcid: null,
      isOpenAccess: false,
      openAccessUrl: null,
      studyType: "Research Article",
      publicationTypes: ["Journal Article", "Research Support, Non-U.S. Gov't"],
      url: "https://pubmed.ncbi.nlm.nih.gov/11748933/",
    });
    expect(cryo.authors).toHaveLength(8);
    expect(cryo.authors.slice(0, 2)).toEqual(["Taddei AR", "Barbato F"]);
    expect(cryo.abstract).toContain("(P < 0.001)");
    expect(mri).toMatchObject({ pmid: "11700088", publicationDate: "2001-11", doi: "10.1006/jmre.2001.2429" });
    expect(mri.authors).toEqual(["Casieri C", "Testa C", "Carpinelli G", "Canese R", "Podo F", "De Luca F"]);
  });

  it("handles a missing abstract, a Season date and a full Year/Month/Day date", () => {
    const [aids, chromatium] = efetch("efetch_pubmed_12091962_9997_rettype-abstract.xml").studies;
    expect(aids).toMatchObject({
      pmid: "12091962",
      abstract: null,
      publicationDate: "1990",
      doi: null,
      authors: ["Olivero JM"],
    });
    expect(aids.publicationTypes).toEqual(["Journal Article", "Review"]);
    expect(chromatium).toMatchObject({
      pmid: "9997",
      publicationDate: "1976-09-28",
      doi: "10.1016/0005-2795(76)90109-4",
    });
  });

  it("joins structured abstract sections as 'LABEL: text' paragraphs and decodes numeric entities", () => {
    const [acacia] = efetch("efetch_pubmed_22351513_POST.xml").studies;
    expect(acacia.abstract).toMatch(/^BACKGROUND: The oil content and fatty acid composition/);
    expect(acacia.abstract).toContain("\n\nRESULTS: Oil content varied between 40 and 102 g kg⁻¹.");
    expect(acacia.abstract).toContain("\n\nCONCLUSION: The present study revealed");
    expect(acacia.abstract!.split("\n\n")).toHaveLength(3);
    expect(acacia).toMatchObject({ doi: "10.1002/jsfa.5627", publicationDate: "2012-08-30" });
    expect(acacia.authors.at(-1)).toBe("Mahmooduzzafar");
  });

  it("keeps the CollectiveName author and ignores the InvestigatorList", () => {
    const [aspire] = efetch("efetch_pubmed_23121403_POST.xml").studies;
    expect(aspire.authors).toHaveLength(13);
    expect(aspire.authors[0]).toBe("Brighton TA");
    expect(aspire.authors[12]).toBe("ASPIRE Investigators");
    expect(aspire).toMatchObject({
      title: "Low-dose aspirin for preventing recurrent venous thromboembolism.",
      journal: "The New England journal of medicine",
      doi: "10.1056/nejmoa1210384",
      studyType: "Clinical Trial",
    });
    expect(aspire.abstract).toMatch(/^BACKGROUND: Patients who have had a first episode/);
  });

  it("uses the PMCID for open access and ignores ReferenceList ids", () => {
    const [semaglutide] = efetch("efetch_pubmed_29915538_POST.xml").studies;
    expect(semaglutide).toMatchObject({
      pmid: "29915538",
      pmcid: "PMC5994433",
      doi: "10.3389/fphar.2018.00576",
      isOpenAccess: true,
      fullTextAvailable: true,
      openAccessUrl: "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC5994433/",
      publicationDate: "2018-06-04",
      studyType: "Meta-Analysis",
    });
    expect(semaglutide.abstract).toMatch(/^Background: Semaglutide, a newly once-weekly/);
    expect(semaglutide.abstract).toContain("assessed through I2 test");
    expect(semaglutide.abstract).toContain("95% CI: -1.24 to -0.62, P < 0.001");
    expect(semaglutide.abstract).not.toMatch(/<\/?[bi]>|<sup>/);
  });

  it("flattens MathML inside an abstract", () => {
    const [lung] = efetch("efetch_pubmed_29963580_mathml-in-abstract.xml").studies;
    expect(lung.abstract).toContain("(1) inhaled 3He/129Xe MRI ventilation and apparent diffusion coefficients");
    expect(lung.abstract).toContain("(3) ultrashort echo-time 1H MRI proton density measurements");
    expect(lung.abstract).not.toMatch(/mml|<|xmlns/);
    expect(lung).toMatchObject({ publicationDate: "2018-04", pmcid: "PMC6022861", doi: "10.1117/1.jmi.5.2.026002" });
    expect(lung.authors).toHaveLength(9);
    expect(lung.authors.at(-1)).toBe("Canadian Respiratory Research Network");
  });

  it("normalises a record without abstract (1234567)", () => {
    const [record] = efetch("efetch_pubmed_1234567_POST.xml").studies;
    expect(record).toMatchObject({
      pmid: "1234567",
      abstract: null,
      publicationDate: "1975",
      doi: "10.1159/000398269",
    });
    expect(record.authors).toEqual(["Rauramo L", "Lagerspetz K", "Engblom P", "Punnonen R"]);
  });

  it("rejects bodies that are not a PubmedArticleSet", () => {
    expect(() => normalisePubmedXml(readFixture("pubmed/error_414_esummary_uri-too-large.html"))).toThrowError(
      ProviderError,
    );
    expect(() => normalisePubmedXml("garbage")).toThrowError(expect.objectContaining({ kind: "parse" }));
  });
});

suite(fixtureSuiteName("pubmed.search with a fake fetch"), () => {
  const deps = (fetch: typeof globalThis.fetch, extra: Partial<Parameters<typeof pubmed.search>[0]> = {}) => ({
    fetch,
    baseUrl: "https://eutils.example/entrez/eutils/",
    email: "team@metamind.test",
    tool: "metamind-test",
    apiKey: "ncbi-key",
    ...extra,
  });

  it("calls esearch then POSTs efetch with tool, email and api_key on both", async () => {
    const controller = new AbortController();
    const fake = recordingFetch((call) =>
      call.url.includes("/esearch.fcgi")
        ? fixtureResponse("pubmed/esearch_pubmed_cancer_reldate60_retmax100_usehistory.xml")
        : fixtureResponse("pubmed/efetch_pubmed_11748933_11700088.xml"),
    );
    const result = await pubmed.search(deps(fake.fetch, { signal: controller.signal }), {
      query: "cancer therapy",
      page: 2,
      limit: 20,
    });

    expect(fake.calls).toHaveLength(2);
    const [search, fetchCall] = fake.calls;
    const searchUrl = new URL(search.url);
    expect(searchUrl.origin + searchUrl.pathname).toBe("https://eutils.example/entrez/eutils/esearch.fcgi");
    expect(Object.fromEntries(searchUrl.searchParams)).toEqual({
      db: "pubmed",
      term: "cancer therapy",
      retstart: "20",
      retmax: "20",
      retmode: "xml",
      tool: "metamind-test",
      email: "team@metamind.test",
      api_key: "ncbi-key",
    });
    expect(search.method).toBe("GET");
    expect(search.signal).toBe(controller.signal);

    expect(fetchCall.method).toBe("POST");
    expect(fetchCall.url).toBe("https://eutils.example/entrez/eutils/efetch.fcgi");
    expect(fetchCall.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    const form = new URLSearchParams(fetchCall.body ?? "");
    expect(form.get("db")).toBe("pubmed");
    expect(form.get("retmode")).toBe("xml");
    expect(form.get("id")!.split(",")).toHaveLength(100);
    expect(form.get("id")!.startsWith("41297076,41297074,")).toBe(true);
    expect([form.get("tool"), form.get("email"), form.get("api_key")]).toEqual([
      "metamind-test",
      "team@metamind.test",
      "ncbi-key",
    ]);
    expect(fetchCall.signal).toBe(controller.signal);

    expect(result.totalCount).toBe(42249);
    expect(result.studies.map((s) => s.pmid)).toEqual(["11748933", "11700088"]);
  });

  it("omits api_key when absent and defaults tool to metamind", async () => {
    const fake = recordingFetch(() => fixtureResponse("pubmed/esearch_protein_no-results_abcXYZ.xml"));
    await pubmed.search(deps(fake.fetch, { apiKey: undefined, tool: undefined }), {
      query: "abcXYZ",
      page: 1,
      limit: 25,
    });
    const params = new URL(fake.calls[0].url).searchParams;
    expect(params.has("api_key")).toBe(false);
    expect(params.get("tool")).toBe("metamind");
    expect(params.get("retstart")).toBe("0");
  });

  it("returns an empty result without calling efetch when esearch finds nothing", async () => {
    const fake = recordingFetch(() => fixtureResponse("pubmed/esearch_protein_no-results_abcXYZ.xml"));
    const result = await pubmed.search(deps(fake.fetch), { query: "abcXYZ", page: 1, limit: 25 });
    expect(result).toEqual({ studies: [], totalCount: 0 });
    expect(fake.calls).toHaveLength(1);
  });

  it("keeps esearch's order", async () => {
    const fake = recordingFetch((call) =>
      call.url.includes("/esearch.fcgi")
        ? new Response('{"esearchresult":{"count":"2","idlist":["11700088","11748933"]}}', {
            headers: { "content-type": "application/json" },
          })
        : fixtureResponse("pubmed/efetch_pubmed_11748933_11700088.xml"),
    );
    const result = await pubmed.search(deps(fake.fetch), { query: "q", page: 1, limit: 2 });
    expect(result.studies.map((s) => s.pmid)).toEqual(["11700088", "11748933"]);
  });

  it("turns the recorded 414 HTML page into an http ProviderError", async () => {
    const fake = recordingFetch((call) =>
      call.url.includes("/esearch.fcgi")
        ? fixtureResponse("pubmed/esearch_pubmed_biopython.xml")
        : fixtureResponse("pubmed/error_414_esummary_uri-too-large.html", 414),
    );
    const error = await pubmed
      .search(deps(fake.fetch), { query: "biopython", page: 1, limit: 20 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: "pubmed", kind: "http", status: 414 });
    expect((error as Error).message).toMatch(/^414: Submitted URI too large!/);
    expect((error as Error).message.length).toBeLessThanOrEqual(205);
  });

  it("reports an HTML page served with 200 as a parse error", async () => {
    const fake = recordingFetch(() => fixtureResponse("pubmed/error_414_esummary_uri-too-large.html", 200));
    await expect(pubmed.search(deps(fake.fetch), { query: "x", page: 1, limit: 20 })).rejects.toMatchObject({
      kind: "parse",
    });
  });

  it("re-throws aborts unchanged and wraps network failures", async () => {
    const abort = new DOMException("The operation was aborted.", "AbortError");
    const aborted = recordingFetch(() => Promise.reject(abort));
    await expect(pubmed.search(deps(aborted.fetch), { query: "x", page: 1, limit: 20 })).rejects.toBe(abort);

    const offline = recordingFetch(() => Promise.reject(new TypeError("fetch failed")));
    await expect(pubmed.search(deps(offline.fetch), { query: "x", page: 1, limit: 20 })).rejects.toMatchObject({
      kind: "http",
      message: "network error: fetch failed",
    });
  });
});

suite(fixtureSuiteName("pubmed filters → esearch term"), () => {
  const filters = (overrides: Partial<SearchFilters>): SearchFilters => ({ ...NO_FILTERS, ...overrides });
  const cases: Array<[string, Partial<SearchFilters>, string]> = [
    ["no filters: the query as typed", {}, "heart failure"],
    [
      "date window",
      { dateRange: "custom", dateFrom: "2020-01-01", dateTo: "2024-12-31" },
      '(heart failure) AND ("2020/01/01"[dp] : "2024/12/31"[dp])',
    ],
    [
      "date window open at the start",
      { dateRange: "custom", dateTo: "2019-06-30" },
      '(heart failure) AND ("1000/01/01"[dp] : "2019/06/30"[dp])',
    ],
    [
      "date window open at the end",
      { dateRange: "custom", dateFrom: "2021-03-01" },
      '(heart failure) AND ("2021/03/01"[dp] : "3000/12/31"[dp])',
    ],
    [
      "studyType clinical_trial",
      { studyType: "clinical_trial" },
      "(heart failure) AND (clinical trial[pt] OR randomized controlled trial[pt])",
    ],
    ["studyType meta_analysis", { studyType: "meta_analysis" }, "(heart failure) AND meta-analysis[pt]"],
    ["studyType systematic_review", { studyType: "systematic_review" }, "(heart failure) AND systematic review[pt]"],
    ["studyType observational", { studyType: "observational" }, "(heart failure) AND observational study[pt]"],
    ["fullTextOnly", { fullTextOnly: true }, "(heart failure) AND free full text[sb]"],
    ["hasAbstract", { hasAbstract: true }, "(heart failure) AND hasabstract"],
    ["journalImpact high (post-filter only)", { journalImpact: "high" }, "heart failure"],
    ["journalImpact medium (post-filter only)", { journalImpact: "medium" }, "heart failure"],
    ["journalImpact low (post-filter only)", { journalImpact: "low" }, "heart failure"],
    [
      "every filter at once",
      {
        dateRange: "last_5_years",
        dateFrom: "2020-03-15",
        dateTo: "2025-03-15",
        studyType: "meta_analysis",
        journalImpact: "high",
        fullTextOnly: true,
        hasAbstract: true,
      },
      '(heart failure) AND ("2020/03/15"[dp] : "2025/03/15"[dp]) AND meta-analysis[pt] AND free full text[sb] AND hasabstract',
    ],
  ];

  for (const [name, overrides, term] of cases) {
    it(name, async () => {
      const fake = recordingFetch((call) =>
        call.url.includes("/esearch.fcgi")
          ? fixtureResponse("pubmed/esearch_pubmed_biopython.xml")
          : fixtureResponse("pubmed/efetch_pubmed_11748933_11700088.xml"),
      );
      const params = { query: "heart failure", page: 1, limit: 20, filters: filters(overrides) };
      const result = await pubmed.search(
        { fetch: fake.fetch, baseUrl: "https://eutils.example/entrez/eutils" },
        params,
      );
      const sent = new URL(fake.calls[0].url).searchParams;
      expect(sent.get("term")).toBe(term);
      expect([sent.get("db"), sent.get("retstart"), sent.get("retmax"), sent.get("retmode")]).toEqual([
        "pubmed",
        "0",
        "20",
        "xml",
      ]);
      expect(fake.calls[0].url).toBe(
        pubmedEsearchUrl({ fetch: fake.fetch, baseUrl: "https://eutils.example/entrez/eutils" }, params),
      );
      expect(buildPubmedTerm("heart failure", filters(overrides))).toBe(term);
      expect(fake.calls[1].body).not.toContain("term");
      expect(result).toMatchObject({ totalCount: 63 });
      expect(result.studies).toHaveLength(2);
    });
  }

  it("wraps a boolean query so the filters apply to all of it", () => {
    expect(buildPubmedTerm("aspirin OR clopidogrel", filters({ hasAbstract: true }))).toBe(
      "(aspirin OR clopidogrel) AND hasabstract",
    );
    expect(buildPubmedTerm("aspirin OR clopidogrel")).toBe("aspirin OR clopidogrel");
  });
});
