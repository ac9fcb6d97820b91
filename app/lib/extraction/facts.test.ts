import { describe, expect, it } from "vitest";
import { fixtureSuiteName, hasSharedFixtures, readFixture } from "../../../tests/fixtures";
import { normaliseEuropePmcSearch } from "../../.server/search/providers/europepmc";
import { normalisePubmedXml } from "../../.server/search/providers/pubmed";
import {
  excludesNoEffect,
  extractDesign,
  extractEffectSizes,
  extractFollowUps,
  extractOutcomes,
  extractPValues,
  extractSampleSizes,
  extractStudyFacts,
  pickSampleSize,
  type Quote,
  type StudyExtraction,
} from "./facts.ts";

function expectExact(text: string, items: readonly Quote[]) {
  for (const item of items) expect(text.slice(item.start, item.end), item.quote).toBe(item.quote);
}

/** Every quote-bearing item of an extraction slices back to its quote. */
function expectAllExact(x: StudyExtraction) {
  const lists = [
    x.designMentions,
    x.sampleSizes,
    x.outcomes,
    x.outcomes.map((o) => o.outcome),
    x.effects,
    x.effects.flatMap((e) => (e.ci ? [e.ci] : [])),
    x.pValues,
    x.adverseEvents,
    x.followUps,
    x.conclusions,
    x.limitations,
    x.futureResearch,
    x.heterogeneity,
    x.interventions,
    x.doses,
    x.recommendations,
  ];
  for (const list of lists) expectExact(x.text, list);
}

describe("extractDesign", () => {
  it.each([
    ["We randomly assigned 240 adults to vitamin D or placebo.", "rct"],
    ["In this randomised, double-blind, placebo-controlled trial, adults took vitamin D.", "rct"],
    ["This systematic review and meta-analysis of randomized controlled trials pooled 12 RCTs.", "meta-analysis"],
    ["We searched MEDLINE and Embase to June 2023. We included 14 trials.", "systematic-review"],
    ["We conducted a prospective cohort study of 1,234 women.", "cohort"],
    ["In this case-control study, 300 cases were matched to 600 controls.", "case-control"],
    ["This was a cross-sectional survey of 512 nursing students.", "cross-sectional"],
    ["Semi-structured interviews were coded with thematic analysis.", "qualitative"],
    ["A previous meta-analysis suggested a benefit. We randomly assigned 90 patients to yoga.", "rct"],
  ])("%s → %s", (text, design) => {
    const result = extractDesign(text);
    expect(result.design).toBe(design);
    expectExact(text, result.mentions);
  });

  it("ignores designs that are only cited or included", () => {
    expect(extractDesign("Previous meta-analyses and RCTs disagree about statins.").design).toBeNull();
    expect(extractDesign("Statins lowered cholesterol in older adults.").design).toBeNull();
  });

  it("weighs the title", () => {
    const text = "Statins and frailty: a cohort study\n\nWe followed 900 adults; randomized trials are lacking.";
    expect(extractDesign(text, { titleEnd: 35 }).design).toBe("cohort");
  });
});

describe("extractSampleSizes", () => {
  it.each([
    ["The sample (n = 1,234) was large.", 1234],
    ["Survey data (N=5145) were weighted.", 5145],
    ["We enrolled 1234 participants.", 1234],
    ["The trial randomised 240 across three sites.", 240],
    ["Data came from 2,878 children and their parents.", 2878],
    ["We interviewed 48 women.", 48],
    ["A total of 310 men completed the programme.", 310],
    ["Records of 9,773 subjects were pooled.", 9773],
    ["We studied 151\u2009597 vaccinated patients.", 151597],
    ["It included 103 elderly patients with lung cancer.", 103],
  ])("%s → %d", (text, value) => {
    const sizes = extractSampleSizes(text);
    expect(sizes.map((s) => s.value)).toContain(value);
    expectExact(text, sizes);
  });

  it.each([
    ["A population of 3 million adults was screened."],
    ["There were 12 cases of myocarditis."],
    ["Patients aged 65 years or older were eligible."],
    ["Adherence was 87% among adults."],
    ["The meta-analysis randomised 25 trials."],
  ])("finds no sample size in %s", (text) => {
    expect(extractSampleSizes(text)).toEqual([]);
  });

  it("prefers the randomised total over subgroups", () => {
    const text = "We randomly assigned 822 patients. Events occurred in 73 of 411 patients (n = 411) on placebo.";
    const best = pickSampleSize(extractSampleSizes(text));
    expect(best).toMatchObject({ value: 822, cue: "randomised" });
  });

  it("treats 'N patients were included' as the enrolled total, not the breakdown after it", () => {
    const text = "There were 184,216 patients were included in the study, including 101,338 males and 82,878 females.";
    expect(pickSampleSize(extractSampleSizes(text))).toMatchObject({ value: 184216, cue: "enrolled" });
  });
});

describe("extractOutcomes", () => {
  it("finds primary and secondary outcomes with their phrases", () => {
    const text =
      "The primary outcome was all-cause mortality at 90 days. Secondary outcomes included quality of life and hospital admissions; safety was also assessed. Outcomes were assessed by blinded raters.";
    const outcomes = extractOutcomes(text);
    expect(outcomes.map((o) => [o.kind, o.outcome.quote])).toEqual([
      ["primary", "all-cause mortality at 90 days"],
      ["secondary", "quality of life and hospital admissions"],
    ]);
    expectExact(text, outcomes);
    expectExact(
      text,
      outcomes.map((o) => o.outcome),
    );
  });
});

describe("extractPValues", () => {
  it.each([
    ["Scores differed (p < 0.05).", "<", 0.05],
    ["Scores differed (P=0.003).", "=", 0.003],
    ["Scores differed (p ≤ .01).", "≤", 0.01],
    ["Scores differed (P-value = 1.2 × 10−5).", "=", 1.2e-5],
    ["No difference (p=0.880/0.335/0.174 respectively).", "=", 0.88],
    ["Not significant (P > .05).", ">", 0.05],
  ])("%s", (text, comparator, value) => {
    const [p] = extractPValues(text);
    expect(p).toMatchObject({ comparator });
    expect(p!.value).toBeCloseTo(value, 10);
    expectExact(text, [p!]);
  });

  it("does not read letters inside words as p", () => {
    expect(extractPValues("The group = 2 and sp = 3.")).toEqual([]);
  });
});

describe("extractEffectSizes", () => {
  it.each([
    ["Fractures fell (RR 0.75 (95% CI 0.60 to 0.93)).", "RR", 0.75, 0.6, 0.93, 95],
    ["Smokers had higher odds (OR = 1.8; 95% CI, 1.2–2.6).", "OR", 1.8, 1.2, 2.6, 95],
    ["Death was less likely (hazard ratio, 0.67; 95% CI, 0.49 to 0.91; P=0.01).", "HR", 0.67, 0.49, 0.91, 95],
    ["Weight fell (mean difference −2.1 kg, 95% CI −3.0 to −1.2).", "MD", -2.1, -3, -1.2, 95],
    ["Pain improved (standardised mean difference 0.42, 95% CI 0.10 to 0.74).", "SMD", 0.42, 0.1, 0.74, 95],
    ["Risk rose (risk difference 3.2%, 90% CI 1.1 to 5.3).", "RD", 3.2, 1.1, 5.3, 90],
    ["HbA1c fell (WMD: -0.93%, 95% CI: -1.24 to -0.62, P < 0.001).", "WMD", -0.93, -1.24, -0.62, 95],
    ["Lancet style: HR 0·74 (95% CI 0·52–1·05).", "HR", 0.74, 0.52, 1.05, 95],
    ["Rates fell (adjusted incidence rate ratio 0.81, 95% CI 0.70-0.94).", "IRR", 0.81, 0.7, 0.94, 95],
  ])("%s", (text, measure, value, lower, upper, level) => {
    const effects = extractEffectSizes(text);
    expect(effects).toHaveLength(1);
    expect(effects[0]).toMatchObject({ measure, value, ci: { lower, upper, level } });
    expectExact(text, effects);
    expectExact(text, [effects[0]!.ci!]);
  });

  it("attaches the p-value that follows the interval", () => {
    const text =
      "Recurrence fell (hazard ratio with aspirin, 0.74; 95% confidence interval [CI], 0.52 to 1.05; P=0.09).";
    const [effect] = extractEffectSizes(text);
    expect(effect!.quote).toBe("hazard ratio with aspirin, 0.74; 95% confidence interval [CI], 0.52 to 1.05; P=0.09");
    expect(effect!.pValue).toMatchObject({ comparator: "=", value: 0.09 });
  });

  it("takes a bare bracketed range as the interval only when it brackets the value", () => {
    expect(extractEffectSizes("The risk ratio was 1.20 (1.05–1.37).")[0]).toMatchObject({
      value: 1.2,
      ci: { lower: 1.05, upper: 1.37, level: null },
    });
    // An estimate without an interval is not an effect size the grammar reports.
    expect(extractEffectSizes("The risk ratio was 1.20 (3–7 days).")).toEqual([]);
  });

  it("skips measures named without a value, and the CI level", () => {
    expect(extractEffectSizes("Odds ratios (ORs) and 95% confidence intervals were estimated.")).toEqual([]);
    expect(extractEffectSizes("Hazard ratios for COVID-19 were estimated with Cox models.")).toEqual([]);
  });

  it("keeps the nearer of two names for one value", () => {
    const [effect] = extractEffectSizes(
      "Glucose fell (weight mean difference, WMD: -1.15 mmol/L, 95% CI: -1.67 to -0.63).",
    );
    expect(effect).toMatchObject({ measure: "WMD", label: "WMD", value: -1.15, unit: "mmol/L" });
  });

  it("tells whether an interval excludes no effect", () => {
    const [a, b, c] = extractEffectSizes(
      "Results: RR 0.75 (95% CI 0.60 to 0.93); OR 1.10 (95% CI 0.90 to 1.30); MD -2.0 (95% CI -3.0 to -1.0).",
    );
    expect([a, b, c].map((e) => excludesNoEffect(e!))).toEqual([true, false, true]);
  });
});

describe("extractFollowUps", () => {
  it.each([
    ["Participants trained for 12 weeks.", "duration", 12, "week", "for 12 weeks"],
    ["After a 5-year follow-up, rates were similar.", "follow-up", 5, "year", "5-year follow-up"],
    [
      "During a median follow-up period of 37.2 months, 57 events occurred.",
      "follow-up",
      37.2,
      "month",
      "follow-up period of 37.2 months",
    ],
    ["Patients were followed for two years.", "follow-up", 2, "year", "followed for two years"],
    ["A 6-month intervention improved sleep.", "duration", 6, "month", "6-month intervention"],
  ])("%s", (text, kind, value, unit, quote) => {
    const [f] = extractFollowUps(text);
    expect(f).toMatchObject({ kind, value, unit, quote });
    expectExact(text, [f!]);
  });

  it("ignores time points and survival horizons", () => {
    expect(extractFollowUps("Mortality at 30 days and 5-year survival were reported.")).toEqual([]);
  });
});

describe("extractStudyFacts", () => {
  it("classifies sentences of a structured abstract", () => {
    const title = "Vitamin D and falls";
    const text = `${title}\n\nBACKGROUND: Falls are common; the role of vitamin D remains unclear. METHODS: We randomly assigned 400 adults to vitamin D 800 IU daily or placebo for 2 years. RESULTS: Serious adverse events were similar (p = 0.41). Heterogeneity was low (I2 = 12%). CONCLUSIONS: Vitamin D did not prevent falls. Our sample was small, a limitation. Further trials are needed. Funded by the Example Council.`;
    const x = extractStudyFacts(text, { titleEnd: title.length });
    expectAllExact(x);
    expect(x.design).toBe("rct");
    expect(x.sampleSize?.value).toBe(400);
    expect(x.followUps.map((f) => f.quote)).toEqual(["for 2 years"]);
    expect(x.adverseEvents.map((s) => s.quote)).toEqual(["Serious adverse events were similar (p = 0.41)."]);
    expect(x.heterogeneity.map((s) => s.quote)).toEqual(["Heterogeneity was low (I2 = 12%)."]);
    expect(x.doses[0]?.quote).toContain("800 IU daily");
    expect(x.interventions[0]?.quote).toContain("randomly assigned 400 adults");
    expect(x.conclusions.map((s) => s.quote)).toEqual([
      "Vitamin D did not prevent falls.",
      "Our sample was small, a limitation.",
      "Further trials are needed.",
    ]);
    expect(x.limitations.map((s) => s.quote)).toEqual(["Our sample was small, a limitation."]);
    expect(x.futureResearch.map((s) => s.quote)).toEqual(["Further trials are needed."]);
  });
});

// ---------------------------------------------------------------------------------------------
// Real abstracts

function pubmedStudy(file: string) {
  const study = normalisePubmedXml(readFixture(`pubmed/${file}`)).studies[0]!;
  return { title: study.title, abstract: study.abstract! };
}

function europePmcStudy(file: string, sourceId: string) {
  const study = normaliseEuropePmcSearch(JSON.parse(readFixture(`europepmc/${file}`)) as unknown).studies.find(
    (s) => s.sourceId === sourceId,
  );
  if (!study?.abstract) throw new Error(`fixture ${file} has no abstract for ${sourceId}`);
  return { title: study.title, abstract: study.abstract };
}

function facts(study: { title: string; abstract: string }) {
  const text = `${study.title}\n\n${study.abstract}`;
  const x = extractStudyFacts(text, { titleEnd: study.title.length });
  expectAllExact(x);
  return x;
}

describe.skipIf(!hasSharedFixtures())(fixtureSuiteName("on real abstracts"), () => {
  it("low-dose aspirin trial (PubMed 23121403): design, sample, outcome, three hazard ratios, follow-up, harms", () => {
    const x = facts(pubmedStudy("efetch_pubmed_23121403_POST.xml"));
    expect(x.design).toBe("rct");
    expect(x.sampleSize).toMatchObject({ value: 822, cue: "randomised", quote: "822 patients" });
    expect(x.outcomes.find((o) => o.kind === "primary")?.outcome.quote).toBe("a recurrence of venous thromboembolism");
    expect(x.effects.map((e) => [e.measure, e.value, e.ci?.lower, e.ci?.upper, e.pValue?.value])).toEqual([
      ["HR", 0.74, 0.52, 1.05, 0.09],
      ["HR", 0.66, 0.48, 0.92, 0.01],
      ["HR", 0.67, 0.49, 0.91, 0.01],
    ]);
    expect(x.effects.map((e) => excludesNoEffect(e))).toEqual([false, true, true]);
    expect(x.followUps.map((f) => f.quote)).toEqual(["for up to 4 years", "follow-up period of 37.2 months"]);
    expect(x.adverseEvents.some((s) => s.quote.includes("serious adverse events"))).toBe(true);
    expect(x.doses[0]?.quote).toContain("at a dose of 100 mg daily");
    expect(x.conclusions.some((s) => s.quote.startsWith("In this study, aspirin"))).toBe(true);
    expect(x.conclusions.some((s) => s.quote.includes("Funded by"))).toBe(false);
    expect(x.pValues.map((p) => p.quote)).toEqual(["P=0.09", "P=0.01", "P=0.01", "P=0.22"]);
  });

  it("semaglutide meta-analysis (PubMed 29915538): a meta-analysis of RCTs, 9,773 subjects, nine effects", () => {
    const x = facts(pubmedStudy("efetch_pubmed_29915538_POST.xml"));
    expect(x.design).toBe("meta-analysis");
    expect(x.sampleSize).toMatchObject({ value: 9773, quote: "9,773 subjects" });
    expect(x.effects).toHaveLength(9);
    expect(x.effects[0]).toMatchObject({ measure: "WMD", value: -0.93, unit: "%", ci: { lower: -1.24, upper: -0.62 } });
    expect(x.effects[3]).toMatchObject({ measure: "WMD", value: -3.47, unit: "kg" });
    expect(x.effects[8]).toMatchObject({ measure: "RR", value: 1.98, ci: { lower: 1.49, upper: 2.62 } });
    expect(x.effects[8]!.quote).toBe("RR: 1.98, 95%CI: 1.49 to 2.62, P < 0.001");
    expect(x.adverseEvents.map((s) => s.quote)).toEqual([
      expect.stringContaining("semaglutide did not increase the risk of any adverse events"),
    ]);
  });

  it("COVID-19 vaccination and cerebrovascular risk (Europe PMC MED/38727032): a cohort with seven hazard ratios", () => {
    const x = facts(europePmcStudy("search_core_COVID-19_pageSize25.json", "MED/38727032"));
    expect(x.design).toBe("cohort");
    expect(x.effects.map((e) => e.quote)).toContain("HR: 0.66, 95% CI: 0.56-0.77");
    expect(x.effects.map((e) => [e.value, e.ci?.lower, e.ci?.upper])).toContainEqual([0.39, 0.23, 0.68]);
    expect(x.effects).toHaveLength(7);
    expect(x.outcomes[0]?.outcome.quote).toMatch(/^incident cerebrovascular diseases/);
    expect(x.recommendations[0]?.quote).toContain("clinicians are recommended to monitor");
  });

  it("subacute thyroiditis (Europe PMC MED/38729568): 3,221 patients in total, p-values", () => {
    const x = facts(europePmcStudy("search_core_COVID-19_pageSize25.json", "MED/38729568"));
    expect(x.sampleSize).toMatchObject({ value: 3221, cue: "total" });
    expect(x.sampleSizes.map((s) => s.value)).toContain(32210);
    expect(x.sampleSizes.map((s) => s.value)).not.toContain(3); // "3 million adults" is a population, not a count
    expect(x.pValues[0]).toMatchObject({ quote: "p=0.880", value: 0.88 });
  });

  it("favipiravir Cochrane review (Europe PMC MED/38314855): a systematic review that randomised 5750 adults", () => {
    const x = facts(europePmcStudy("search_core_COVID-19_pageSize25.json", "MED/38314855"));
    expect(x.design).toBe("systematic-review");
    expect(x.sampleSize).toMatchObject({ value: 5750, cue: "randomised" });
    expect(x.effects[0]).toMatchObject({ measure: "RR", value: 0.84, ci: { lower: 0.49, upper: 1.46 } });
    expect(x.doses[0]?.quote).toContain("1600 mg or 1800 mg twice daily");
  });

  it("second-hand smoke and bladder cancer (Europe PMC MED/40536077): pooled RR with I²", () => {
    const x = facts(europePmcStudy("search_core_cancer_json.json", "MED/40536077"));
    expect(x.design).toBe("meta-analysis");
    expect(x.effects[0]).toMatchObject({ measure: "RR", value: 1.16, ci: { lower: 0.95, upper: 1.43 } });
    expect(x.effects[0]!.quote).toBe(
      "RR of bladder cancer for SHS exposure was 1.16 [95% confidence interval (CI): 0.95-1.43]",
    );
    expect(x.heterogeneity.map((s) => s.quote)).toEqual([
      "Results show a low/moderate heterogeneity (I2 = 38%, P = 0.09).",
    ]);
    expect(x.sampleSize?.value).toBe(1200);
    expect(x.futureResearch[0]?.quote).toContain("further research with greater statistical power");
  });

  it("slices every item of every abstract back exactly", () => {
    const studies = [
      ...[
        "efetch_pubmed_23121403_POST.xml",
        "efetch_pubmed_29915538_POST.xml",
        "efetch_pubmed_22351513_POST.xml",
        "efetch_pubmed_11748933_11700088.xml",
      ].flatMap((f) => normalisePubmedXml(readFixture(`pubmed/${f}`)).studies),
      ...[
        "search_core_COVID-19_pageSize25.json",
        "search_core_cancer_json.json",
        "search_core_Metabolomics_pageSize25.json",
      ].flatMap((f) => normaliseEuropePmcSearch(JSON.parse(readFixture(`europepmc/${f}`)) as unknown).studies),
    ].filter((s) => (s.abstract ?? "").length > 100);
    expect(studies.length).toBeGreaterThan(30);
    let effects = 0;
    for (const s of studies) effects += facts({ title: s.title, abstract: s.abstract! }).effects.length;
    expect(effects).toBeGreaterThan(30);
  });
});
