import { describe, expect, it } from "vitest";
import { findThemes, phrasesOf, roleAt } from "./themes";

const sentences = (text: string) => text.split(/(?<=\.)\s+/);

describe("phrasesOf", () => {
  it("splits at stop words, numbers and punctuation, and folds plurals", () => {
    const keys = phrasesOf("Tea and coffee consumption, plus 3 cups of green teas daily.").map((p) => p.key);
    expect(keys).toContain("coffee consumption");
    expect(keys).toContain("green tea");
    expect(keys).not.toContain("tea coffee");
    expect(keys).not.toContain("plus");
    expect(keys.some((k) => /\d/.test(k))).toBe(false);
  });

  it("keeps acronyms of conditions but never statistics", () => {
    const keys = phrasesOf("COPD exacerbations fell (RR 0.8, 95% CI 0.7 to 0.9; OR 1.2).").map((p) => p.key);
    expect(keys).toContain("copd exacerbation");
    expect(keys).not.toContain("rr");
    expect(keys).not.toContain("ci");
  });
});

describe("roleAt", () => {
  const role = (sentence: string, phrase: string) => {
    const start = sentence.indexOf(phrase);
    return roleAt(sentence, start, start + phrase.length, phrase.toLowerCase());
  };
  it("reads outcomes and interventions from the words around a phrase", () => {
    expect(role("Tea was associated with a decreased risk of brain tumours.", "brain tumours")).toBe("outcome");
    expect(role("We randomly assigned 1,204 adults to atorvastatin or placebo.", "atorvastatin")).toBe("intervention");
    expect(role("The effect of walking on frailty is unclear.", "walking")).toBe("intervention");
    expect(role("The effect of walking on frailty is unclear.", "frailty")).toBe("outcome");
    expect(role("Coffee consumption was common.", "coffee consumption")).toBe("intervention");
    expect(role("Smoking cessation was validated by cotinine.", "smoking cessation")).toBe("outcome");
    expect(role("Participants lived in rural areas.", "rural areas")).toBeNull();
  });
});

describe("findThemes", () => {
  const trial = {
    number: 1,
    sentences: sentences(
      "Physical activity for smoking cessation in pregnancy: a randomised trial. Women were randomly assigned to usual care plus a physical activity intervention. The primary outcome was smoking cessation at the end of pregnancy. Physical activity did not increase smoking cessation.",
    ),
  };
  const review = {
    number: 2,
    sentences: sentences(
      "Exercise interventions for smoking cessation: a systematic review. Exercise plus counselling did not improve smoking cessation at 6 months. Trials of physical activity were small.",
    ),
  };
  const coffee = {
    number: 3,
    sentences: sentences(
      "Coffee consumption and brain cancer risk: a cohort study. Coffee consumption was not associated with the risk of brain cancer. Tea plus coffee drinkers had no excess risk of brain cancer.",
    ),
  };

  it("gives the phrases two or more studies share, with their roles, never filler words", () => {
    const themes = findThemes([trial, review, coffee]);
    expect(themes.map((t) => [t.phrase, t.role, [...t.studies.keys()]])).toEqual([
      ["smoking cessation", "outcome", [1, 2]],
      ["physical activity", "intervention", [1, 2]],
    ]);
    expect(themes.some((t) => t.key === "plus")).toBe(false);
    // The first sentence of each study that uses it (for the citation).
    expect(themes[0]!.studies.get(2)).toBe(0);
  });

  it("prefers the phrase to its words and skips a word inside a chosen phrase", () => {
    const other = {
      number: 2,
      sentences: ["Brain cancer in adults.", "The incidence of brain cancer rose; cancer registries were used."],
    };
    const themes = findThemes([coffee, other]);
    expect(themes[0]).toMatchObject({ phrase: "brain cancer", role: "outcome" });
    expect(themes.some((t) => t.key === "cancer")).toBe(false);
  });

  it("finds nothing shared when the studies share only filler", () => {
    expect(findThemes([trial, { number: 2, sentences: ["Plus and also, however."] }])).toEqual([]);
  });

  it("with one study: the phrases it uses at least twice, most used first", () => {
    const themes = findThemes([coffee]);
    expect(themes.map((t) => t.phrase)).toEqual(["brain cancer", "coffee consumption"]);
    expect(themes.every((t) => t.count >= 2)).toBe(true);
  });
});
