import { beforeAll, describe, expect, it } from "vitest";
import { fixtureSuiteName, hasSharedFixtures, readFixture, readJsonFixture } from "../../../tests/fixtures";
import { AppError } from "../http/errors";
import { applyPostFilters, NO_FILTERS, parseFilters, STUDY_TYPE_FILTER_LABELS, type SearchFilters } from "./filters";
import { normaliseCrossrefWorks } from "./providers/crossref";
import { normaliseEuropePmcSearch } from "./providers/europepmc";
import { normalisePubmedXml } from "./providers/pubmed";
import type { NormalisedStudy } from "./types";

const TODAY = new Date("2025-03-15T10:30:00Z");
const parse = (query: string) => parseFilters(new URLSearchParams(query), TODAY);
const filters = (overrides: Partial<SearchFilters>): SearchFilters => ({ ...NO_FILTERS, ...overrides });

function invalid(query: string): AppError {
  try {
    parse(query);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "INVALID_FILTER", status: 400 });
    return error as AppError;
  }
  throw new Error(`parseFilters accepted ${query}`);
}

describe("parseFilters", () => {
  it("defaults every filter when the query string has none (or only empty values)", () => {
    expect(parse("")).toEqual(NO_FILTERS);
    expect(parse("dateRange=&studyType=%20&journalImpact=&fullTextOnly=&hasAbstract=")).toEqual(NO_FILTERS);
    expect(parse("q=anything&page=2")).toEqual(NO_FILTERS);
  });

  it("resolves the relative date ranges from the given today (inclusive ISO dates)", () => {
    expect(parse("dateRange=any")).toMatchObject({ dateRange: "any", dateFrom: null, dateTo: null });
    expect(parse("dateRange=last_year")).toMatchObject({
      dateRange: "last_year",
      dateFrom: "2024-03-15",
      dateTo: "2025-03-15",
    });
    expect(parse("dateRange=last_5_years")).toMatchObject({ dateFrom: "2020-03-15", dateTo: "2025-03-15" });
    expect(parse("dateRange=last_10_years")).toMatchObject({ dateFrom: "2015-03-15", dateTo: "2025-03-15" });
  });

  it("takes custom dates as given, with either end open", () => {
    expect(parse("dateRange=custom&customDateFrom=2020-01-01&customDateTo=2020-12-31")).toMatchObject({
      dateRange: "custom",
      dateFrom: "2020-01-01",
      dateTo: "2020-12-31",
    });
    expect(parse("dateRange=custom&customDateFrom=2024-02-29")).toMatchObject({ dateFrom: "2024-02-29", dateTo: null });
    expect(parse("dateRange=custom&customDateTo=1999-12-31")).toMatchObject({ dateFrom: null, dateTo: "1999-12-31" });
    expect(parse("dateRange=custom&customDateFrom=2021-05-05&customDateTo=2021-05-05")).toMatchObject({
      dateFrom: "2021-05-05",
      dateTo: "2021-05-05",
    });
  });

  it("ignores custom dates unless dateRange is custom", () => {
    expect(parse("dateRange=any&customDateFrom=2020-01-01")).toMatchObject({ dateFrom: null, dateTo: null });
    expect(parse("dateRange=last_year&customDateFrom=2000-01-01&customDateTo=2000-12-31")).toMatchObject({
      dateFrom: "2024-03-15",
    });
  });

  it("accepts every studyType and journalImpact value", () => {
    for (const studyType of ["all", "clinical_trial", "meta_analysis", "systematic_review", "observational"]) {
      expect(parse(`studyType=${studyType}`).studyType).toBe(studyType);
    }
    for (const journalImpact of ["any", "high", "medium", "low"]) {
      expect(parse(`journalImpact=${journalImpact}`).journalImpact).toBe(journalImpact);
    }
  });

  it("reads fullTextOnly (all/free_only/true/false) and hasAbstract (all/required/true/false)", () => {
    expect(
      [
        parse("fullTextOnly=all"),
        parse("fullTextOnly=free_only"),
        parse("fullTextOnly=true"),
        parse("fullTextOnly=false"),
      ].map((f) => f.fullTextOnly),
    ).toEqual([false, true, true, false]);
    expect(
      [
        parse("hasAbstract=all"),
        parse("hasAbstract=required"),
        parse("hasAbstract=true"),
        parse("hasAbstract=false"),
      ].map((f) => f.hasAbstract),
    ).toEqual([false, true, true, false]);
  });

  it("rejects unknown values with INVALID_FILTER 400 naming the field", () => {
    expect(invalid("dateRange=last_month").message).toMatch(/^dateRange must be one of any, last_year/);
    expect(invalid("studyType=rct").message).toMatch(/^studyType must be one of all, clinical_trial/);
    expect(invalid("journalImpact=huge").message).toMatch(/^journalImpact must be one of any, high, medium, low/);
    expect(invalid("fullTextOnly=yes").message).toBe("fullTextOnly must be all or free_only");
    expect(invalid("hasAbstract=1").message).toBe("hasAbstract must be all or required");
    expect(invalid("studyType=Clinical_Trial").code).toBe("INVALID_FILTER");
  });

  it("rejects a custom range without dates or with from after to", () => {
    expect(invalid("dateRange=custom").message).toMatch(/needs customDateFrom or customDateTo/);
    expect(invalid("dateRange=custom&customDateFrom=2021-01-02&customDateTo=2021-01-01").message).toBe(
      "customDateFrom must not be after customDateTo",
    );
  });

  it("rejects malformed and non-real calendar dates", () => {
    expect(invalid("dateRange=custom&customDateFrom=2024-02-30").message).toMatch(
      /^customDateFrom is not a real calendar date/,
    );
    expect(invalid("dateRange=custom&customDateTo=2023-02-29").message).toMatch(
      /^customDateTo is not a real calendar date/,
    );
    expect(invalid("dateRange=custom&customDateFrom=2021-13-01").message).toMatch(/not a real calendar date/);
    expect(invalid("dateRange=custom&customDateFrom=2021/01/01").message).toMatch(
      /^customDateFrom must be a date as YYYY-MM-DD/,
    );
    expect(invalid("dateRange=custom&customDateTo=21-01-01").message).toMatch(/YYYY-MM-DD/);
  });
});

describe("STUDY_TYPE_FILTER_LABELS", () => {
  it("maps each filter value to the spec classification", () => {
    expect(STUDY_TYPE_FILTER_LABELS).toEqual({
      clinical_trial: "Clinical Trial",
      meta_analysis: "Meta-Analysis",
      systematic_review: "Systematic Review",
      observational: "Observational Study",
    });
  });
});

const suite = hasSharedFixtures() ? describe : describe.skip;

suite(fixtureSuiteName("applyPostFilters on recorded provider responses"), () => {
  const epmc = (name: string) => normaliseEuropePmcSearch(readJsonFixture(`europepmc/${name}`)).studies;
  let covid: NormalisedStudy[];
  let cancer: NormalisedStudy[];
  let cytokine: NormalisedStudy[];
  let pubmed: NormalisedStudy[];
  let crossrefNsf: NormalisedStudy[];
  let crossrefEcology: NormalisedStudy[];
  beforeAll(() => {
    covid = epmc("search_core_COVID-19_pageSize25.json");
    cancer = epmc("search_core_cancer_json.json");
    cytokine = epmc("search_core_Cytokine-Storm_pageSize100.json");
    pubmed = [
      "efetch_pubmed_11748933_11700088.xml",
      "efetch_pubmed_12091962_9997_rettype-abstract.xml",
      "efetch_pubmed_1234567_POST.xml",
      "efetch_pubmed_22351513_POST.xml",
      "efetch_pubmed_23121403_POST.xml",
      "efetch_pubmed_29915538_POST.xml",
      "efetch_pubmed_29963580_mathml-in-abstract.xml",
    ].flatMap((name) => normalisePubmedXml(readFixture(`pubmed/${name}`)).studies);
    crossrefNsf = normaliseCrossrefWorks(readJsonFixture("crossref/search_query-NSF_rows20-default.json")).studies;
    crossrefEcology = normaliseCrossrefWorks(
      readJsonFixture("crossref/search_query-ecology_rows30_cursor-page1.json"),
    ).studies;
  });
  const ids = (studies: NormalisedStudy[]) => studies.map((s) => s.sourceId);
  const byId = (studies: NormalisedStudy[], id: string) => studies.find((s) => s.sourceId === id)!;

  it("leaves everything (as a new array) without filters", () => {
    const kept = applyPostFilters(covid, NO_FILTERS);
    expect(kept).toEqual(covid);
    expect(kept).not.toBe(covid);
  });

  it("date window on full dates: PubMed efetch records", () => {
    const kept = applyPostFilters(
      pubmed,
      filters({ dateRange: "custom", dateFrom: "2012-01-01", dateTo: "2018-06-03" }),
    );
    // 22351513 (2012-08-30) and 23121403 (2012-11-22) and 29963580 (2018-04) are inside;
    // 29915538 (2018-06-04) is one day late, 9997 (1976-09-28) and 11748933 (2001-06) are early.
    expect(ids(kept)).toEqual(["22351513", "23121403", "29963580"]);
    expect(byId(pubmed, "29915538").publicationDate).toBe("2018-06-04");
    expect(ids(applyPostFilters(pubmed, filters({ dateFrom: "2018-06-04", dateTo: null })))).toEqual(["29915538"]);
  });

  it("date window keeps year-only and month-only dates whose span overlaps", () => {
    // PubMed 12091962 is dated "1990" (Season date), 11748933 "2001-06".
    expect(byId(pubmed, "12091962").publicationDate).toBe("1990");
    expect(ids(applyPostFilters(pubmed, filters({ dateFrom: "1990-12-31", dateTo: "1991-06-30" })))).toEqual([
      "12091962",
    ]);
    expect(ids(applyPostFilters(pubmed, filters({ dateFrom: "1991-01-01", dateTo: "1999-12-31" })))).toEqual([]);
    expect(ids(applyPostFilters(pubmed, filters({ dateFrom: null, dateTo: "2001-06-01" })))).toEqual([
      "11748933",
      "12091962",
      "9997",
      "1234567",
    ]);
    expect(ids(applyPostFilters(pubmed, filters({ dateFrom: "2001-06-30", dateTo: "2001-06-30" })))).toEqual([
      "11748933",
    ]);

    // Crossref NSF: 10.1016/j.arcontrol.2022.05.002 is "2022"; 10.1016/j.acha.2016.05.001 is "2018-03".
    expect(byId(crossrefNsf, "10.1016/j.arcontrol.2022.05.002").publicationDate).toBe("2022");
    expect(ids(applyPostFilters(crossrefNsf, filters({ dateFrom: "2022-06-01", dateTo: "2022-06-30" })))).toEqual([
      "10.1016/j.arcontrol.2022.05.002",
    ]);
    expect(ids(applyPostFilters(crossrefNsf, filters({ dateFrom: "2018-03-31", dateTo: "2018-04-30" })))).toEqual([
      "10.1016/j.acha.2016.05.001",
    ]);
  });

  it("drops records without a date whenever a bound is set", () => {
    const undated = byId(crossrefEcology, "10.1007/springerreference_29611");
    expect(undated.publicationDate).toBeNull();
    const kept = applyPostFilters(crossrefEcology, filters({ dateFrom: "1000-01-01", dateTo: null }));
    expect(kept).toHaveLength(crossrefEcology.length - 1);
    expect(ids(kept)).not.toContain("10.1007/springerreference_29611");
    expect(ids(applyPostFilters(crossrefEcology, filters({ dateFrom: null, dateTo: "2002-12-31" })))).toEqual([
      "10.4324/9780203414989-29",
    ]);
  });

  it("studyType keeps exactly the spec classification: Europe PMC COVID-19 page", () => {
    expect(ids(applyPostFilters(covid, filters({ studyType: "systematic_review" })))).toEqual(["MED/38314855"]);
    expect(byId(covid, "MED/38314855").publicationTypes).toEqual([
      "Systematic Review",
      "systematic-review",
      "Review",
      "Journal Article",
    ]);
    // One labelled "Observational Study", one classified from its title ("… a cross-sectional …").
    const observational = applyPostFilters(covid, filters({ studyType: "observational" }));
    expect(ids(observational)).toEqual(["MED/38553067", "MED/38597643"]);
    expect(observational[1].publicationTypes).toEqual(["Journal Article"]);
    expect(applyPostFilters(covid, filters({ studyType: "meta_analysis" }))).toEqual([]);
    expect(applyPostFilters(covid, filters({ studyType: "clinical_trial" }))).toEqual([]);
  });

  it("studyType on the Europe PMC cancer page and PubMed records", () => {
    const meta = applyPostFilters(cancer, filters({ studyType: "meta_analysis" }));
    expect(ids(meta)).toEqual(["MED/40536077"]);
    expect(meta[0].title).toMatch(/meta-analysis/i);
    expect(ids(applyPostFilters(cancer, filters({ studyType: "systematic_review" })))).toEqual(["MED/39212676"]);
    expect(ids(applyPostFilters(pubmed, filters({ studyType: "clinical_trial" })))).toEqual(["23121403"]);
    expect(byId(pubmed, "23121403").publicationTypes).toContain("Randomized Controlled Trial");
    expect(ids(applyPostFilters(pubmed, filters({ studyType: "meta_analysis" })))).toEqual(["29915538"]);
  });

  it("fullTextOnly needs the OA flag and a link: Europe PMC preprint PPR807612 has a link but is not OA", () => {
    const preprint = byId(covid, "PPR/PPR807612");
    expect([preprint.isOpenAccess, preprint.openAccessUrl !== null]).toEqual([false, true]);
    const kept = applyPostFilters(covid, filters({ fullTextOnly: true }));
    expect(kept.every((s) => s.isOpenAccess && s.openAccessUrl)).toBe(true);
    expect(ids(kept)).toContain("MED/38314855");
    expect(ids(kept)).not.toContain("PPR/PPR807612");
    expect(ids(kept)).not.toContain("MED/38729568");
    expect(kept).toHaveLength(12);
    // PubMed: only PMC records (29915538, 29963580) have a free full-text link.
    expect(ids(applyPostFilters(pubmed, filters({ fullTextOnly: true })))).toEqual(["29915538", "29963580"]);
  });

  it("hasAbstract drops records without one: PubMed 12091962/1234567, Europe PMC PMC11081734", () => {
    expect(ids(applyPostFilters(pubmed, filters({ hasAbstract: true })))).toEqual([
      "11748933",
      "11700088",
      "9997",
      "22351513",
      "23121403",
      "29915538",
      "29963580",
    ]);
    const kept = applyPostFilters(covid, filters({ hasAbstract: true }));
    expect(ids(kept)).not.toContain("PMC/PMC11081734");
    expect(ids(kept)).not.toContain("MED/38302164");
    expect(kept).toHaveLength(22);
  });

  it("journalImpact: no provider reports an impact factor, so any level other than 'any' drops everything", () => {
    expect(cytokine.every((s) => s.impactFactor === null)).toBe(true);
    for (const journalImpact of ["high", "medium", "low"] as const) {
      expect(applyPostFilters(cytokine, filters({ journalImpact }))).toEqual([]);
    }
    expect(applyPostFilters(cytokine, filters({ journalImpact: "any" }))).toHaveLength(100);
  });

  it("combines filters with AND", () => {
    const kept = applyPostFilters(
      cytokine,
      filters({
        dateRange: "custom",
        dateFrom: "2024-01-01",
        dateTo: "2024-03-31",
        fullTextOnly: true,
        hasAbstract: true,
        studyType: "observational",
      }),
    );
    expect(ids(kept)).toEqual(["MED/38633444"]);
    expect(kept[0].publicationDate).toBe("2024-03-08");
  });
});

describe("applyPostFilters edge cases", () => {
  const base: NormalisedStudy = {
    source: "europepmc",
    sourceId: "x",
    title: "A record",
    abstract: "An abstract that is long enough.",
    authors: [],
    journal: null,
    publicationDate: "2020-02",
    pmid: null,
    pmcid: null,
    doi: null,
    studyType: "Research Article",
    publicationTypes: [],
    fullTextAvailable: false,
    isOpenAccess: false,
    openAccessUrl: null,
    citationCount: null,
    impactFactor: null,
    url: null,
  };
  const make = (sourceId: string, overrides: Partial<NormalisedStudy>): NormalisedStudy => ({
    ...base,
    sourceId,
    ...overrides,
  });

  it("journalImpact thresholds: high > 10, medium 5–10 inclusive, low < 5", () => {
    const studies = [0, 4.99, 5, 7.5, 10, 10.01, 42].map((impactFactor) =>
      make(String(impactFactor), { impactFactor }),
    );
    const level = (journalImpact: SearchFilters["journalImpact"]) =>
      applyPostFilters(studies, filters({ journalImpact })).map((s) => s.sourceId);
    expect(level("high")).toEqual(["10.01", "42"]);
    expect(level("medium")).toEqual(["5", "7.5", "10"]);
    expect(level("low")).toEqual(["0", "4.99"]);
    expect(level("any")).toHaveLength(7);
  });

  it("hasAbstract counts characters after collapsing whitespace (SPEC §5: longer than 10)", () => {
    const studies = [
      make("ten", { abstract: "0123456789" }),
      make("eleven", { abstract: "0123456789A" }),
      make("spaced", { abstract: "  short \n\n\t text  " }),
      make("spaced-long", { abstract: "short \n\n\t texts" }),
      make("null", { abstract: null }),
    ];
    expect(applyPostFilters(studies, filters({ hasAbstract: true })).map((s) => s.sourceId)).toEqual([
      "eleven",
      "spaced-long",
    ]);
  });

  it("fullTextOnly rejects an empty link and a link without the OA flag", () => {
    const studies = [
      make("oa", { isOpenAccess: true, openAccessUrl: "https://example.org/a.pdf" }),
      make("oa-no-link", { isOpenAccess: true, openAccessUrl: null }),
      make("oa-blank-link", { isOpenAccess: true, openAccessUrl: " " }),
      make("closed-link", { isOpenAccess: false, openAccessUrl: "https://example.org/b.pdf" }),
    ];
    expect(applyPostFilters(studies, filters({ fullTextOnly: true })).map((s) => s.sourceId)).toEqual(["oa"]);
  });

  it("month spans know month lengths and leap years; unreadable dates are dropped", () => {
    const studies = [
      make("feb-2020", { publicationDate: "2020-02" }),
      make("junk", { publicationDate: "spring 2020" }),
    ];
    expect(applyPostFilters(studies, filters({ dateFrom: "2020-02-29", dateTo: null })).map((s) => s.sourceId)).toEqual(
      ["feb-2020"],
    );
    expect(applyPostFilters(studies, filters({ dateFrom: "2020-03-01", dateTo: null }))).toEqual([]);
    expect(applyPostFilters(studies, filters({ dateFrom: null, dateTo: "2020-02-01" })).map((s) => s.sourceId)).toEqual(
      ["feb-2020"],
    );
  });
});
