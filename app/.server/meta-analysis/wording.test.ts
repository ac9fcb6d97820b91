import { describe, expect, it } from "vitest";
import type { ExcludedStudy, ExtractedStudyData } from "~/lib/meta-analysis/types";
import { agree, counted, withArticle } from "~/lib/wording";
import { readableOutcome } from "./group";
import { runMetaAnalysis } from "./run";

describe("readableOutcome", () => {
  it("keeps the study's words: no stemming, acronyms kept, a sentence-case first word lower-cased", () => {
    expect(
      ["Precerebral arteries.", "Stroke", "HbA1c", "COVID-19 infection", "  major   bleeding ;"].map(readableOutcome),
    ).toEqual(["precerebral arteries", "stroke", "HbA1c", "COVID-19 infection", "major bleeding"]);
  });
});

describe("agreement helpers", () => {
  it("count nouns and verbs for 0, 1 and many, and choose a or an by sound", () => {
    expect([0, 1, 2].map((n) => counted(n, "study"))).toEqual(["0 studies", "1 study", "2 studies"]);
    expect([0, 1, 1200].map((n) => counted(n, "participant"))).toEqual([
      "0 participants",
      "1 participant",
      "1200 participants",
    ]);
    expect([0, 1, 5].map((n) => agree(n, "was"))).toEqual(["were", "was", "were"]);
    expect(agree(1, "reports", "report")).toBe("reports");
    expect(
      [
        "odds ratio",
        "risk ratio",
        "incidence rate ratio",
        "hazard ratio",
        "HR",
        "SMD",
        "unit change",
        "mean difference",
      ].map(withArticle),
    ).toEqual([
      "an odds ratio",
      "a risk ratio",
      "an incidence rate ratio",
      "a hazard ratio",
      "an HR",
      "an SMD",
      "a unit change",
      "a mean difference",
    ]);
  });
});

const counts = (
  studyId: string,
  outcome: string,
  events1: number,
  n1: number,
  events2: number,
  n2: number,
  design = "cohort",
): ExtractedStudyData => ({
  studyId,
  title: `Study ${studyId}`,
  outcome,
  measure: "OR",
  data: { kind: "counts", events1, n1, events2, n2 },
  quotes: [],
  extractedBy: "offline-rules",
  design,
  totalN: n1 + n2,
});
const left = (n: number): ExcludedStudy[] =>
  Array.from({ length: n }, (_, i) => ({
    studyId: `x${i}`,
    title: `Excluded ${i}`,
    reason: "No effect estimate with a confidence interval found",
  }));

/** Every string of a job result (narrative, reasons, notes, GRADE judgements). */
function texts(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) texts(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) texts(v, out);
  return out;
}

/** Disagreements a reader would spot: "1 studies", "2 study", "1 were", "a odds ratio". */
function disagreements(text: string): string[] {
  const bad = [
    /\b1 (?:studies|participants|outcomes|were|have|are)\b/g,
    /\b(?:0|[2-9]|\d{2,}) (?:study|participant|outcome)(?![-\w])/g,
    /\bof which 1 were\b/g,
    /\b(?:was|were) (?:pooled|left out)\b.*\b1 studies\b/g,
    /\ba (?=[aeio]\w)(?!one\b)/gi,
    /\ban (?=[bcdfgjkpqtvwz][a-z])/gi,
  ];
  return bad.flatMap((re) => [...text.matchAll(re)].map((m) => `${m[0]} in "${text}"`));
}

const scenarios: [string, ExtractedStudyData[], number][] = [
  ["no study, none left out", [], 0],
  ["one study, one left out (nothing pooled)", [counts("1", "precerebral arteries", 5, 100, 10, 100, "RCT")], 1],
  [
    "many studies, many left out, one randomised, an unpooled single and a group with one usable study",
    [
      counts("1", "precerebral arteries", 5, 100, 10, 100, "RCT"),
      counts("2", "precerebral arteries", 7, 120, 12, 118),
      counts("3", "precerebral arteries", 9, 150, 15, 149),
      counts("4", "stroke", 4, 80, 9, 82),
      counts("5", "major bleeding", 3, 60, 6, 61),
      counts("6", "major bleeding", 70, 60, 6, 61),
    ],
    3,
  ],
  [
    "two studies pooled, both randomised, none left out",
    [
      counts("1", "all-cause mortality", 5, 100, 10, 100, "RCT"),
      counts("2", "all-cause mortality", 6, 90, 11, 95, "RCT"),
    ],
    0,
  ],
];

describe("generated text agrees in number and article (0, 1 and many)", () => {
  for (const [name, extracted, excluded] of scenarios) {
    it(name, () => {
      const result = runMetaAnalysis({
        studyCount: extracted.length + excluded,
        extracted,
        excluded: left(excluded),
        model: "test",
      });
      const all = texts({
        narrative: result.narrative,
        unpooled: result.unpooled,
        analyses: result.analyses.map((a) => ({ notes: a.notes, grade: a.grade, outcome: a.outcome })),
      });
      expect(all.length).toBeGreaterThan(5);
      expect(all.flatMap(disagreements)).toEqual([]);
    });
  }

  it("says what happened in plain agreeing English, and names outcomes as the studies word them", () => {
    const one = runMetaAnalysis({
      studyCount: 2,
      extracted: [counts("1", "precerebral arteries", 5, 100, 10, 100)],
      excluded: left(1),
      model: "test",
    });
    const summary = (one.narrative as { executiveSummary: string }).executiveSummary;
    expect(summary).toContain("1 study had usable effect data and 1 was left out.");
    expect(one.unpooled![0]!.reason).toContain("reports precerebral arteries as an odds ratio");
    const many = runMetaAnalysis({ studyCount: 6, extracted: scenarios[2]![1], excluded: left(3), model: "test" });
    expect(JSON.stringify(many)).not.toContain("arterie ");
    expect(many.analyses[0]!.outcome).toBe("precerebral arteries");
    expect((many.narrative as { executiveSummary: string }).executiveSummary).toMatch(
      /^6 studies had usable effect data and 3 were left out\. 1 outcome was pooled\./,
    );
    expect(many.unpooled!.map((u) => u.reason).join(" ")).toContain(
      "Only 1 of the 2 studies reporting major bleeding as an odds ratio has usable numbers",
    );
    const grade = many.analyses[0]!.grade.judgements.map((j) => j.reason).join(" ");
    expect(grade).toContain("Only 1 of 3 studies is randomised (1 RCT, 2 cohort), so certainty starts at low");
  });
});
