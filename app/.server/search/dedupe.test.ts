import { describe, expect, it } from "vitest";
import { fixtureSuiteName, hasSharedFixtures, readJsonFixture } from "../../../tests/fixtures";
import { dedupeStudies } from "./dedupe";
import { normaliseCoreSearch } from "./providers/core";
import { normaliseCrossrefWorks } from "./providers/crossref";
import { normaliseSemanticScholar } from "./providers/semanticscholar";
import type { NormalisedStudy, ProviderId } from "./types";

function study(overrides: Partial<NormalisedStudy> & { sourceId: string }): NormalisedStudy {
  return {
    source: "pubmed" as ProviderId,
    title: `Untitled record ${overrides.sourceId} about something specific`,
    abstract: null,
    authors: [],
    journal: null,
    publicationDate: null,
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
    ...overrides,
  };
}

describe("dedupeStudies", () => {
  it("merges by DOI (case/prefix-insensitive) and keeps the first position", () => {
    const a = study({ sourceId: "a", doi: "10.1000/abc" });
    const b = study({ sourceId: "b", doi: "10.1000/other" });
    const c = study({ source: "crossref", sourceId: "c", doi: "https://doi.org/10.1000/ABC" });
    const { studies, duplicatesRemoved } = dedupeStudies([[a, b], [c]]);
    expect(studies.map((s) => s.sourceId)).toEqual(["a", "b"]);
    expect(duplicatesRemoved).toBe(1);
  });

  it("merges transitively across DOI, PMID and title links", () => {
    const title = "Semaglutide for type 2 diabetes: a randomised trial";
    const a = study({ source: "crossref", sourceId: "a", doi: "10.1/x" });
    const b = study({ source: "pubmed", sourceId: "b", doi: "10.1/x", pmid: "111" });
    const c = study({ source: "europepmc", sourceId: "c", pmid: "111", title });
    const d = study({ source: "core", sourceId: "d", title: `${title.toUpperCase()}.` });
    const e = study({ source: "doaj", sourceId: "e", title: "Something else entirely, long enough" });
    const { studies, duplicatesRemoved } = dedupeStudies([[a], [b, e], [c], [d]]);
    expect(studies.map((s) => s.sourceId)).toEqual(["a", "e"]);
    expect(duplicatesRemoved).toBe(3);
    expect(studies[0]).toMatchObject({ doi: "10.1/x", pmid: "111" });
  });

  it("links a title group that later gains a PMID (order independent closure)", () => {
    const title = "Long enough title to be used as a key for linking";
    const a = study({ sourceId: "a", title });
    const b = study({ sourceId: "b", pmid: "42" });
    const c = study({ sourceId: "c", pmid: "42", title });
    const { studies } = dedupeStudies([[a, b, c]]);
    expect(studies).toHaveLength(1);
    expect(studies[0]).toMatchObject({ sourceId: "a", pmid: "42" });
  });

  it("merges the richer fields", () => {
    const a = study({
      source: "crossref",
      sourceId: "a",
      doi: "10.5/m",
      abstract: "Short.",
      authors: ["Smith J"],
      publicationDate: "2020",
      citationCount: 3,
      publicationTypes: ["journal-article"],
      url: "https://doi.org/10.5/m",
    });
    const b = study({
      source: "pubmed",
      sourceId: "b",
      doi: "10.5/M",
      pmid: "99",
      pmcid: "PMC9",
      abstract: "A much longer abstract that should win the merge.",
      authors: ["Smith J", "Doe A", "Roe B"],
      journal: "The Journal",
      publicationDate: "2020-05-17",
      citationCount: null,
      publicationTypes: ["Randomized Controlled Trial"],
      isOpenAccess: true,
      fullTextAvailable: true,
      openAccessUrl: "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC9/",
    });
    const c = study({
      source: "semanticscholar",
      sourceId: "c",
      doi: "10.5/m",
      citationCount: 12,
      openAccessUrl: "https://other.example/pdf",
      impactFactor: 4.2,
    });
    const before = JSON.stringify([a, b, c]);
    const [merged] = dedupeStudies([[a], [b], [c]]).studies;
    expect(merged).toMatchObject({
      source: "crossref",
      sourceId: "a",
      abstract: "A much longer abstract that should win the merge.",
      authors: ["Smith J", "Doe A", "Roe B"],
      journal: "The Journal",
      publicationDate: "2020-05-17",
      pmid: "99",
      pmcid: "PMC9",
      citationCount: 12,
      impactFactor: 4.2,
      isOpenAccess: true,
      fullTextAvailable: true,
      openAccessUrl: "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC9/",
      url: "https://doi.org/10.5/m",
      publicationTypes: ["journal-article", "Randomized Controlled Trial"],
      studyType: "Clinical Trial",
    });
    expect(JSON.stringify([a, b, c])).toBe(before);
  });

  it("does not merge by title across different DOIs, distant years or short titles", () => {
    const title = "Leveraging Uncertainty Quantification to Design Ocean Climate Observing Systems";
    const v1 = study({ sourceId: "v1", doi: "10.1002/essoar.10504562.1", title });
    const v2 = study({ sourceId: "v2", doi: "10.1002/essoar.10504562.2", title });
    const old = study({ sourceId: "old", title: "Smut Ecology and related matters", publicationDate: "1957-10" });
    const recent = study({ sourceId: "recent", title: "Smut ecology and related matters", publicationDate: "2017" });
    const e1 = study({ sourceId: "e1", title: "Editorial" });
    const e2 = study({ sourceId: "e2", title: "Editorial" });
    const { studies, duplicatesRemoved } = dedupeStudies([
      [v1, old, e1],
      [v2, recent, e2],
    ]);
    expect(duplicatesRemoved).toBe(0);
    expect(studies).toHaveLength(6);
  });

  it("merges same-title records a year apart when no identifiers conflict", () => {
    const a = study({ sourceId: "a", title: "Psychology Express: Sport Psychology", publicationDate: "2014" });
    const b = study({
      sourceId: "b",
      title: "Psychology express — sport psychology",
      publicationDate: "2015",
      doi: "10.9/p",
    });
    expect(dedupeStudies([[a], [b]]).studies).toEqual([expect.objectContaining({ sourceId: "a", doi: "10.9/p" })]);
  });

  it("handles empty input", () => {
    expect(dedupeStudies([])).toEqual({ studies: [], duplicatesRemoved: 0 });
    expect(dedupeStudies([[], []])).toEqual({ studies: [], duplicatesRemoved: 0 });
  });

  it("de-duplicates 3,000 records from six providers (speed is measured in bench/)", () => {
    const providers: ProviderId[] = ["pubmed", "crossref", "europepmc", "core", "semanticscholar", "doaj"];
    const lists = providers.map((source, p) =>
      Array.from({ length: 500 }, (_, i) => {
        // Every provider returns works 0–399 plus 100 of its own; ids vary by provider.
        const work = i < 400 ? i : 1000 + p * 100 + i;
        return study({
          source,
          sourceId: `${source}-${i}`,
          title: `Randomised evaluation number ${work} of a treatment — ${p % 2 ? "Cohort" : "cohort"} data`,
          doi: p % 3 === 0 ? `10.1234/work.${work}` : null,
          pmid: p % 3 === 1 ? String(100000 + work) : null,
          abstract: `Abstract ${work} `.repeat(p + 1),
          authors: Array.from({ length: (i % 5) + 1 }, (_, k) => `Author ${k}`),
          publicationDate: "2021-02",
        });
      }),
    );
    const result = dedupeStudies(lists);
    expect(result.studies).toHaveLength(400 + 6 * 100);
    expect(result.duplicatesRemoved).toBe(3000 - 1000);
  });
});

const suite = hasSharedFixtures() ? describe : describe.skip;

suite(fixtureSuiteName("dedupeStudies on recorded provider results"), () => {
  it("merges Crossref and Semantic Scholar records of the same DOI", () => {
    const crossref = normaliseCrossrefWorks(readJsonFixture("crossref/works_10.1016-j.addr.2015.01.008.json")).studies;
    const s2 = normaliseSemanticScholar(
      readJsonFixture("semanticscholar/paper_DOI_10.1016-j.addr.2015.01.008.json"),
    ).studies;
    const { studies, duplicatesRemoved } = dedupeStudies([crossref, s2]);
    expect(duplicatesRemoved).toBe(1);
    expect(studies[0]).toMatchObject({
      source: "crossref",
      title: "Pharmacokinetics, biodistribution and cell uptake of antisense oligonucleotides",
      doi: "10.1016/j.addr.2015.01.008",
      pmid: "25666165",
      citationCount: 724,
      publicationDate: "2015-06-29",
      isOpenAccess: true,
      publicationTypes: ["journal-article", "Review", "JournalArticle"],
    });
  });

  it("keeps the bioRxiv preprint apart from the journal version it shares a title with", () => {
    const preprint = normaliseCrossrefWorks(
      readJsonFixture("crossref/search_query.title_pooled-prime-editing_rows1.json"),
    ).studies;
    const journal = normaliseCrossrefWorks(readJsonFixture("crossref/works_10.1016-j.xgen.2025.100814.json")).studies;
    const s2 = normaliseSemanticScholar(
      readJsonFixture("semanticscholar/paper_DOI_10.1016-j.xgen.2025.100814.json"),
    ).studies;
    const { studies, duplicatesRemoved } = dedupeStudies([preprint, journal, s2]);
    expect(duplicatesRemoved).toBe(1);
    expect(studies.map((s) => s.doi)).toEqual(["10.1101/2024.04.01.587366", "10.1016/j.xgen.2025.100814"]);
    expect(studies[1]).toMatchObject({ pmid: "40120586", pmcid: "PMC12008803" });
  });

  it("collapses CORE's ten copies of one DOI and its same-title duplicates", () => {
    const batch = normaliseCoreSearch(readJsonFixture("core/v2_search_POST_batch_psychology-doi-german.json")).studies;
    const { studies, duplicatesRemoved } = dedupeStudies([batch]);
    // 10 copies of 10.1186/1471-2458-6-309 → 1; two "Psychology Express: Sport Psychology" (2014) → 1.
    expect(duplicatesRemoved).toBe(9 + 1);
    expect(studies.filter((s) => s.doi === "10.1186/1471-2458-6-309")).toHaveLength(1);
    expect(studies.filter((s) => s.title === "Psychology Express: Sport Psychology")).toHaveLength(1);
  });
});
