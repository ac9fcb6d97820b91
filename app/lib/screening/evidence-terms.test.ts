import { describe, expect, it } from "vitest";
import { buildScreeningCorpus, rankScreening, type ScreeningLabel } from "./index.ts";
import { explanationTerms, isEvidenceTerm, MAX_EXPLANATION_TERMS } from "./evidence-terms.ts";

describe("isEvidenceTerm", () => {
  it("refuses units, statistics, quantifiers and reporting or funding words; keeps topic words", () => {
    for (const t of [
      "every",
      "mg",
      "ci",
      "per",
      "study",
      "patient",
      "funded",
      "95",
      "2019",
      "a",
      "every day",
      "mg dose",
    ])
      expect(isEvidenceTerm(t), t).toBe(false);
    for (const t of ["depression", "exercise", "statin", "placebo controlled", "covid-19", "myocardial infarction"])
      expect(isEvidenceTerm(t), t).toBe(true);
  });
});

describe("explanationTerms", () => {
  it("shows a handful of the strongest evidence terms, not weak hangers-on", () => {
    const terms = explanationTerms([
      ["every", 9],
      ["depression", 5],
      ["aerobic", 4],
      ["exercise", 4.5],
      ["pfizer", 0.4],
      ["mg", 3],
      ["adult", 1.3],
      ["supervised", 2],
      ["symptom", 1.5],
      ["walking", 1.26],
    ]);
    expect(terms).toEqual(["depression", "exercise", "aerobic", "supervised", "symptom"]);
    expect(terms.length).toBeLessThanOrEqual(MAX_EXPLANATION_TERMS);
    expect(
      explanationTerms([
        ["depression", 5],
        ["pfizer", 1],
      ]),
    ).toEqual(["depression"]);
    expect(
      explanationTerms([
        ["ci", 3],
        ["per", 2],
      ]),
    ).toEqual([]);
  });
});

describe("the ranking's explanations", () => {
  it("name no unit, statistic, quantifier or sponsor seen once, though every included abstract has them", () => {
    const boiler =
      "Every participant took 20 mg per day; odds ratio 0.8 (95% CI 0.6 to 0.9). Funded by Acme Pharmaceuticals Inc.";
    const records = [
      ...Array.from({ length: 6 }, (_, i) => ({
        id: `d${i}`,
        title: `Aerobic exercise for depression in adults, trial ${i}`,
        abstract: `Depression symptoms fell with supervised aerobic exercise. ${boiler}`,
      })),
      ...Array.from({ length: 6 }, (_, i) => ({
        id: `s${i}`,
        title: `Soil nitrogen in alpine grassland, site ${i}`,
        abstract: "Nitrogen mineralisation was measured in alpine soils.",
      })),
    ];
    const corpus = buildScreeningCorpus(records);
    const labels = new Map<string, ScreeningLabel>([
      ["d0", "include"],
      ["d1", "include"],
      ["s0", "exclude"],
      ["s1", "exclude"],
    ]);
    const ranked = rankScreening(corpus, labels).ranked;
    const top = ranked.find((r) => r.id.startsWith("d"))!;
    expect(top.terms.length).toBeGreaterThan(0);
    expect(top.terms.length).toBeLessThanOrEqual(MAX_EXPLANATION_TERMS);
    expect(top.terms.some((t) => /depression|aerobic|exercise|symptom/.test(t))).toBe(true);
    for (const r of ranked) for (const t of r.terms) expect(isEvidenceTerm(t), `${r.id}: ${t}`).toBe(true);
    for (const r of ranked) for (const t of r.terms) expect(t).not.toMatch(/\b(every|mg|per|ci|funded|inc|acme)\b/);
  });
});
