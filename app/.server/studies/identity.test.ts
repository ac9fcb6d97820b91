import { describe, expect, it } from "vitest";
import { DERIVED_ID_MIN, studyIdFor, studyKey } from "./identity";

const base = {
  doi: null,
  pmid: null,
  title: "A randomised trial of exercise in older adults",
  source: "pubmed",
  sourceId: "1",
} as const;

describe("deterministic study ids", () => {
  it("keys on the normalised DOI, then the PMID, then a long enough title, else the provider's id", () => {
    expect(studyKey({ ...base, doi: "https://doi.org/10.1000/ABC", pmid: "123" })).toBe("doi:10.1000/abc");
    expect(studyKey({ ...base, pmid: "123" })).toBe("pmid:123");
    expect(
      studyKey({ ...base, title: "A Randomised Trial of Exercise in Older Adults.", publicationDate: "2021-03" }),
    ).toBe("title:a randomised trial of exercise in older adults:2021");
    expect(studyKey({ ...base, title: "Editorial", source: "doaj", sourceId: "x9" })).toBe("source:doaj:x9");
  });

  it("gives the same DOI the same id from any database, and different papers different ids", () => {
    const a = studyIdFor({ ...base, doi: "10.1000/abc", source: "crossref", sourceId: "10.1000/abc" });
    const b = studyIdFor({
      ...base,
      doi: "doi:10.1000/ABC",
      source: "semanticscholar",
      sourceId: "s2-1",
      title: "Other title",
    });
    expect(a).toBe(b);
    expect(studyIdFor({ ...base, doi: "10.1000/abd" })).not.toBe(a);
    const ids = new Set(
      Array.from({ length: 20_000 }, (_, i) => studyIdFor({ ...base, pmid: String(30_000_000 + i) })),
    );
    expect(ids.size).toBe(20_000);
    for (const id of ids) {
      expect(Number.isSafeInteger(id)).toBe(true);
      expect(id).toBeGreaterThanOrEqual(DERIVED_ID_MIN);
      expect(String(id).length).toBeLessThanOrEqual(15);
    }
  });
});
