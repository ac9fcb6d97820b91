import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import type { ReviewRecordRow } from "../../../db/schema";
import { criteriaTerms, highlightParts } from "~/lib/reviews";
import { prismaSvg, recordsToCsv, recordsToRis } from "./review";
import { parseRis } from "../reviews/parse";

const row = (over: Partial<ReviewRecordRow>): ReviewRecordRow => ({
  id: 1,
  reviewId: "r",
  userId: "u",
  sourceId: "s",
  position: 0,
  origin: "PubMed",
  title: "Exercise for depression: a randomised trial",
  abstract: "Adults were randomised.",
  authors: ["Smith, John", "Doe, A"],
  year: 2020,
  journal: "BMJ",
  doi: "10.1000/xyz",
  pmid: "123456",
  keywords: "exercise; depression",
  url: null,
  studyId: null,
  uploadedStudyId: null,
  duplicateOf: null,
  duplicateReason: null,
  notDuplicate: false,
  taDecision: null,
  taReason: null,
  taDecidedAt: null,
  ftDecision: null,
  ftReason: null,
  ftDecidedAt: null,
  fullTextKey: null,
  fullTextUrl: null,
  fullText: null,
  suggestion: null,
  createdAt: 0,
  ...over,
});

describe("review exports", () => {
  const rows = [
    row({ id: 1, taDecision: "include", ftDecision: "exclude", ftReason: "Wrong outcome" }),
    row({
      id: 2,
      title: '=HYPERLINK("x") soil study',
      taDecision: "exclude",
      taReason: "Wrong population",
      doi: null,
      pmid: null,
    }),
    row({ id: 3, duplicateOf: 1, duplicateReason: "doi" }),
  ];

  it("RIS carries the decisions and reads back with the bibliographic fields", () => {
    const ris = recordsToRis(rows);
    expect(ris).toContain("LB  - excluded: Wrong outcome");
    expect(ris).toContain("LB  - duplicate");
    const back = parseRis(ris);
    expect(back).toHaveLength(3);
    expect(back[0]).toMatchObject({
      title: rows[0]!.title,
      year: 2020,
      doi: "10.1000/xyz",
      pmid: "123456",
      journal: "BMJ",
      abstract: "Adults were randomised.",
    });
    expect(back[0]!.authors).toEqual(["Smith, John", "Doe, A"]);
  });

  it("CSV has one formula-safe row per record with both stages' decisions", () => {
    const parsed = Papa.parse<Record<string, string>>(recordsToCsv(rows), { header: true, skipEmptyLines: true });
    expect(parsed.data).toHaveLength(3);
    expect(parsed.data[0]).toMatchObject({
      title_abstract_decision: "include",
      full_text_decision: "exclude",
      full_text_reason: "Wrong outcome",
    });
    expect(parsed.data[1]!.title.startsWith("'=")).toBe(true);
    expect(parsed.data[2]!.duplicate_of).toBe("1");
  });

  it("the PRISMA SVG is a standalone document with the review's counts", () => {
    const svg = prismaSvg({
      identified: { PubMed: 10, "embase.ris": 5 },
      duplicatesRemoved: 3,
      screened: 12,
      excluded: 8,
      awaitingScreening: 0,
      maybe: 0,
      soughtForRetrieval: 4,
      notRetrieved: 1,
      assessed: 3,
      awaitingFullText: 0,
      fullTextMaybe: 0,
      excludedWithReasons: { "Wrong outcome": 2 },
      included: 1,
    });
    expect(svg.startsWith("<?xml")).toBe(true);
    expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
    for (const text of [
      "embase.ris (n = 5)",
      "Duplicate records removed (n = 3)",
      "Records screened (n = 12)",
      "Reports sought for retrieval (n = 4)",
      "Reports not retrieved (n = 1)",
      "Wrong outcome (n = 2)",
      "Studies included in review (n = 1)",
    ]) {
      expect(svg).toContain(text);
    }
  });
});

describe("criteria highlighting", () => {
  it("takes the question's and criteria's content words and marks words starting with them", () => {
    const terms = criteriaTerms(["Adults with depression", "randomised controlled trial"]);
    expect(terms).toEqual(expect.arrayContaining(["depression", "randomised", "controlled", "trial", "adults"]));
    expect(terms).not.toContain("with");
    // Words of any abstract are no evidence of the topic, even when the criteria use them.
    expect(criteriaTerms(["Every adult taking 20 mg per day", "patients in any study"])).toEqual(["taking", "adult"]);
    const parts = highlightParts("Randomised trials in depressed adults", ["randomised", "trial", "adults"]);
    expect(parts.filter((p) => p.hit).map((p) => p.text)).toEqual(["Randomised", "trials", "adults"]);
    expect(parts.map((p) => p.text).join("")).toBe("Randomised trials in depressed adults");
    expect(highlightParts("no terms", [])).toEqual([{ text: "no terms", hit: false }]);
  });
});

describe("second-screener quotes", () => {
  it("keeps only quotes found verbatim (case and spacing aside) in the named text", async () => {
    const { groundedReasons } = await import("../reviews/suggestion");
    const kept = groundedReasons(
      [
        { quote: "randomised to aerobic   exercise", from: "abstract" },
        { quote: "Adults with depression", from: "criteria" },
        { quote: "a sentence the model made up", from: "abstract" },
        { quote: "RANDOMISED TO AEROBIC EXERCISE", from: "abstract" },
        { quote: "aerobic exercise", from: "criteria" },
      ],
      {
        record: "Adults were randomised to aerobic exercise or usual care.",
        criteria: "Include: Adults with depression",
      },
    );
    expect(kept).toEqual([
      { quote: "randomised to aerobic   exercise", from: "abstract" },
      { quote: "Adults with depression", from: "criteria" },
    ]);
  });
});
