import { describe, expect, it } from "vitest";
import { combinedReportSections, reportPlainText, reportSections, sourceLine, sourcesByTitle } from "./report-sections";

const STUDIES = [
  { title: "Physical activity for smoking cessation in pregnancy" },
  { title: "Tea and coffee consumption and brain cancer risk" },
];

/** A combined summary as the server returns it (only the fields the report reads). */
const SUMMARY = {
  executiveSummary: "This offline summary quotes 2 studies.\nStudy 1: “Exercise did not help.”",
  quantitativeFindings: {
    pooledEffectSize: "Not pooled: no outcome was reported by at least 2 of these studies.",
    statisticalHeterogeneity: "Not assessed.",
    sampleSizeTotal: "789: the sum of the sample sizes.",
    keyOutcomes: ["Study 1, primary outcome: “smoking abstinence”", "Study 2: “RR 0.86”"],
  },
  commonThemes: [
    "Smoking cessation (outcome): in 2 of 2 studies — “Physical activity for smoking cessation in pregnancy”; “Tea and coffee consumption and brain cancer risk”",
  ],
  gradeAssessment: "Not a formal GRADE rating. ⟦unverified: 12⟧ trials.",
  citations: {
    executiveSummary: ["T1.S4", "T1.S2", "T2.S3", "T9.S1"],
    quantitativeFindings: [],
    commonThemes: ["T1.S1", "T2.S1"],
  },
};

describe("combinedReportSections", () => {
  it("keeps the summary's structure: sections, fields as sub-headings, lists; markup removed", () => {
    const sections = combinedReportSections(SUMMARY, STUDIES);
    expect(sections.map((s) => s.title)).toEqual([
      "Executive summary",
      "Quantitative findings",
      "Common themes",
      "GRADE assessment",
    ]);
    expect(sections[1]!.blocks.map((b) => b.heading)).toEqual([
      "Pooled effect size",
      "Statistical heterogeneity",
      "Total sample size",
      "Key outcomes",
    ]);
    expect(sections[1]!.blocks[3]!.items).toHaveLength(2);
    expect(sections[3]!.blocks[0]!.text).toBe("Not a formal GRADE rating. 12 trials.");
  });

  it("names sources by study title with their sentence numbers and quotes, never as ids", () => {
    const quotes = { "T1.S2": { quote: "We randomised 789 women." }, "T1.S4": { quote: "Exercise did not help." } };
    const [executive] = combinedReportSections(SUMMARY, STUDIES, quotes);
    expect(executive!.sources).toEqual([
      {
        study: 1,
        title: STUDIES[0]!.title,
        sentences: [2, 4],
        quotes: ["We randomised 789 women.", "Exercise did not help."],
      },
      { study: 2, title: STUDIES[1]!.title, sentences: [3], quotes: [] },
    ]);
    const text = reportPlainText(combinedReportSections(SUMMARY, STUDIES, quotes));
    expect(text).toContain(
      "Sources: “Physical activity for smoking cessation in pregnancy” (sentences 2 and 4); “Tea and coffee consumption and brain cancer risk” (sentence 3)",
    );
    expect(text).toContain("Pooled effect size:\nNot pooled");
    expect(text).not.toMatch(/\bT\d+\.S\d+\b/);
  });

  it("skips ids of unknown studies", () => {
    expect(sourcesByTitle(["T9.S1", "bad"], STUDIES)).toEqual([]);
    expect(sourceLine({ study: 1, title: "A", sentences: [1, 2, 5], quotes: [] })).toBe("“A” (sentences 1, 2 and 5)");
  });
});

describe("reportSections", () => {
  it("splits a text at its Markdown headings and reads structured analyses", () => {
    const sections = reportSections(
      "Intro line.\n## Methods\nWe did things.\n# Results ##\n**Bold** finding.",
      [],
      "Summary",
    );
    expect(sections.map((s) => [s.title, s.blocks[0]!.text])).toEqual([
      ["Summary", "Intro line."],
      ["Methods", "We did things."],
      ["Results", "**Bold** finding."],
    ]);
    const structured = reportSections(
      { executiveSummary: "E", commonThemes: ["Frailty (outcome)"] },
      [],
      "Executive Summary",
    );
    expect(structured.map((s) => s.title)).toEqual(["Executive Summary", "Common Themes"]);
  });
});
