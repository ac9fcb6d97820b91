import { describe, expect, it } from "vitest";
import { matchStudy, parseAuthorYear, parseMeasure, parseStudyDataCsv, suggestMapping } from "./study-data-import";

describe("study-data CSV import (pure core)", () => {
  it("suggests columns from RevMan / Cochrane data-package and Covidence headers", () => {
    expect(
      suggestMapping([
        "Study",
        "Study ID",
        "Study year",
        "Experimental cases",
        "Experimental N",
        "Control cases",
        "Control N",
        "Mean",
        "CI start",
        "CI end",
        "Effect measure",
        "Analysis name",
      ]),
    ).toEqual({
      study: "Study",
      studyId: "Study ID",
      year: "Study year",
      outcome: "Analysis name",
      interventionEvents: "Experimental cases",
      interventionN: "Experimental N",
      comparatorEvents: "Control cases",
      comparatorN: "Control N",
      measure: "Effect measure",
      estimate: "Mean",
      lower: "CI start",
      upper: "CI end",
    });
    expect(
      suggestMapping([
        "Covidence #",
        "Study ID",
        "Intervention Mean",
        "Intervention SD",
        "Intervention Total",
        "Comparator Mean",
        "Comparator SD",
        "Comparator Total",
      ]),
    ).toMatchObject({
      study: "Study ID",
      studyId: "Covidence #",
      interventionMean: "Intervention Mean",
      interventionSd: "Intervention SD",
      interventionN: "Intervention Total",
      comparatorN: "Comparator Total",
    });
  });

  it("names measures and author-year labels as reviewers write them", () => {
    expect(
      [
        "Hazard Ratio",
        "Odds Ratio (M-H, Random, 95% CI)",
        "Std. Mean Difference (IV, Random, 95% CI)",
        "rr",
        "Rate ratio",
        "odds",
      ].map(parseMeasure),
    ).toEqual(["HR", "OR", "SMD", "RR", "IRR", null]);
    expect(parseAuthorYear("Smith et al. (2019a)")).toEqual({ surname: "smith", year: 2019 });
    expect(parseAuthorYear("van der Berg 2020")).toEqual({ surname: "van der berg", year: 2020 });
    expect(parseAuthorYear("A randomised trial of aspirin in stroke patients 2020")).toBeNull();
  });

  it("reads a formula-guarded negative number and skips blank lines; a lone cell error names line and column", () => {
    const parsed = parseStudyDataCsv(
      "Study,Experimental mean,Experimental SD,Experimental N,Control mean,Control SD,Control N\r\nA 2001,'-1.5,1,10,0.2,1.1,12\r\n\r\nB 2002,1,1.2,n/a,1,1,9\r\n",
    );
    expect(parsed.lines).toEqual([
      {
        line: 2,
        labels: ["A 2001"],
        year: null,
        doi: null,
        pmid: null,
        outcome: null,
        data: { kind: "means", mean1: -1.5, sd1: 1, n1: 10, mean2: 0.2, sd2: 1.1, n2: 12 },
      },
    ]);
    expect(parsed.errors).toEqual([
      { line: 4, column: "Experimental N", message: 'Intervention N: "n/a" is not a number.' },
    ]);
  });

  it("matches by DOI first, then a shortened title, then first author and year", () => {
    const records = [
      {
        recordId: 1,
        title: "Alpha trial of zelmoxan in sepsis",
        authors: ["Smith, John"],
        year: 2011,
        doi: "10.1/a",
        pmid: null,
      },
      {
        recordId: 2,
        title: "Alpha trial of zelmoxan in septic shock",
        authors: ["Smith, Jane"],
        year: 2011,
        doi: null,
        pmid: "123",
      },
    ];
    const line = (labels: string[], extra: { doi?: string; pmid?: string; year?: number } = {}) => ({
      labels,
      year: extra.year ?? null,
      doi: extra.doi ?? null,
      pmid: extra.pmid ?? null,
    });
    expect(matchStudy(line(["Smith 2011"], { doi: "10.1/a" }), records).map((r) => r.recordId)).toEqual([1]);
    expect(matchStudy(line(["x"], { pmid: "123" }), records).map((r) => r.recordId)).toEqual([2]);
    expect(matchStudy(line(["Alpha trial of zelmoxan in sep…"]), records).map((r) => r.recordId)).toEqual([1, 2]);
    expect(matchStudy(line(["Alpha trial of zelmoxan in septic…"]), records).map((r) => r.recordId)).toEqual([2]);
    expect(matchStudy(line(["Smith 2011"]), records)).toHaveLength(2);
    expect(matchStudy(line(["Smith"], { year: 2012 }), records)).toHaveLength(0);
  });
});
