import { describe, expect, it } from "vitest";
import { extractEffects, parseEffects, tokenize } from "./index";

/** The numbers of every effect found: [estimate, lower, upper]. */
const triples = (text: string) => parseEffects(text).map((e) => [e.estimate.value, e.lower.value, e.upper.value]);

/** Every quoted value slices back out of the text. */
function expectGrounded(text: string) {
  for (const e of parseEffects(text)) {
    expect(text.slice(e.start, e.end)).toBe(e.quote);
    for (const v of [e.estimate, e.lower, e.upper]) expect(text.slice(v.start, v.end)).toBe(v.quote);
    if (e.p) expect(text.slice(e.p.start, e.p.end)).toBe(e.p.quote);
  }
}

describe("tokenize", () => {
  it("reads numbers with decimal points, middle dots, unambiguous decimal commas and thousands", () => {
    const nums = (t: string) =>
      tokenize(t)
        .filter((x) => x.kind === "num")
        .map((x) => x.value);
    expect(nums("1·06 and 0.93")).toEqual([1.06, 0.93]);
    expect(nums("OR 0,85 (0,71-1,02)")).toEqual([0.85, 0.71, 1.02]);
    expect(nums("1,058,466 cases and [1.04, 1.29]")).toEqual([1058466, 1.04, 1.29]);
    expect(nums("aged 40 to 1,200")).toEqual([40, 1200]);
  });
  it("keeps offsets and joins a word hyphenated across a line end", () => {
    const text = "95% confidence inter-\nval 0.5";
    const word = tokenize(text).find((t) => t.norm === "interval")!;
    expect(text.slice(word.start, word.end)).toBe("inter-\nval");
  });
});

describe("parseEffects: notation forms", () => {
  it.each([
    ["Mortality fell (OR 0.75, 95% CI 0.60 to 0.93).", [[0.75, 0.6, 0.93]]],
    ["SMD, 0.42; 95% CI, -0.10 to 0.94", [[0.42, -0.1, 0.94]]],
    ["MD = 2.1, 95% CI [0.8, 3.4]", [[2.1, 0.8, 3.4]]],
    ["the incidence was 0.15 (95% CI:0.11-0.19)", [[0.15, 0.11, 0.19]]],
    ["difference 0.44, 95% CI = -0.03, 0.91", [[0.44, -0.03, 0.91]]],
    ["β = −2.9, 95% CI −5.0 to −0.8", [[-2.9, -5, -0.8]]],
    ["prevalence 0.07 (95% CI: 0.05-0.09)", [[0.07, 0.05, 0.09]]],
    ["an absolute reduction of 1.4% (95% CI 0.2 to 2.6)", [[1.4, 0.2, 2.6]]],
    ["RR 0·82 (95% CI 0·71–0·94)", [[0.82, 0.71, 0.94]]],
    ["MD − 3.1 (95% CI − 4.2 to − 2.0)", [[-3.1, -4.2, -2]]],
    ["MD\u2009−3.1 (95%\u00a0CI −4.2\u2009to\u2009−2.0)", [[-3.1, -4.2, -2]]],
    ["difference –0·68 (95% CI –3·27 to 1·91)", [[-0.68, -3.27, 1.91]]],
    ["WMD-5.27, 95%CI −8.14, −2.39", [[-5.27, -8.14, -2.39]]],
    ["hazard ratio, 0.67; 95% confidence interval [CI], 0.49 to 0.91; P=0.01", [[0.67, 0.49, 0.91]]],
    ["IRR 1.16 (CI: [1.04, 1.29])", [[1.16, 1.04, 1.29]]],
    ["OR 1.77 (CI: [1.48,\\ 2.1])", [[1.77, 1.48, 2.1]]],
    ["RR 1.20 (95% credible interval 0.90–1.60)", [[1.2, 0.9, 1.6]]],
    ["aHR 0.81 [95% CI 0.70; 0.94]", [[0.81, 0.7, 0.94]]],
    ["Hedges' g = 0.45 (95% CI 0.20 to 0.70)", [[0.45, 0.2, 0.7]]],
    ["Cohen's d of 0.31 (95% CI 0.05–0.57)", [[0.31, 0.05, 0.57]]],
    ["sensitivity was 87% (95% CI 80%–92%)", [[87, 80, 92]]],
    ["AUC 0.82 (0.72–0.91)", [[0.82, 0.72, 0.91]]],
    ["r = 0.41 (95% CI 0.20 to 0.58)", [[0.41, 0.2, 0.58]]],
    ["an odds ratio of 2.3 (95% confi-\ndence interval 1.1 to 4.6)", [[2.3, 1.1, 4.6]]],
    ["OR 2.1, p < 0.001, 95% CI 1.5 to 2.9", [[2.1, 1.5, 2.9]]],
    ["HR 0.75 (0.60, 0.93)", [[0.75, 0.6, 0.93]]],
    ["OR: 1.5 [1.2; 1.9]", [[1.5, 1.2, 1.9]]],
    ["HR=0.80 (95%CI:0.70–0.92, p = .003)", [[0.8, 0.7, 0.92]]],
  ])("%s", (text, expected) => {
    expect(triples(text)).toEqual(expected);
    expectGrounded(text);
  });

  it("reads every effect of a sentence, each with its own p-value", () => {
    const text = "A vs. B: OR = 1.3, 95%CI = 1.05–1.6, p = 0.02; AB vs. BB: OR = 1.2, 95%CI = 0.9–1.7, p = 0.31";
    const effects = parseEffects(text);
    expect(effects.map((e) => [e.estimate.value, e.lower.value, e.upper.value])).toEqual([
      [1.3, 1.05, 1.6],
      [1.2, 0.9, 1.7],
    ]);
    expect(effects.map((e) => e.p?.value)).toEqual([0.02, 0.31]);
    expect(effects.every((e) => e.measure === "OR")).toBe(true);
    expectGrounded(text);
  });

  it("applies a measure named once to the bracketed values that follow", () => {
    const text = "adjusted mean difference (95% CI): sleep 12.0 (3.5 to 20.4), mood 0.7 (0.2 to 1.2)";
    const effects = parseEffects(text);
    expect(effects.map((e) => [e.measure, e.estimate.value, e.lower.value, e.upper.value, e.level])).toEqual([
      ["MD", 12, 3.5, 20.4, 95],
      ["MD", 0.7, 0.2, 1.2, 95],
    ]);
  });

  it("reads words for the measure: 'adjusted difference in means 2.4; 95% CI 1.1 to 3.7'", () => {
    const [e] = parseEffects("adjusted difference in means 2.4; 95% CI 1.1 to 3.7");
    expect(e).toMatchObject({
      measure: "MD",
      estimate: { value: 2.4 },
      lower: { value: 1.1 },
      upper: { value: 3.7 },
      level: 95,
    });
  });

  it("applies a ratio named once to bare 'estimate, lower–upper' pairs that follow", () => {
    const text = "primary outcome (RR 1·06, 95% CI 0·89–1·27; p=0·49) and secondary outcome (1·06, 0·93–1·22; p=0·37)";
    expect(
      parseEffects(text).map((e) => [e.measure, e.estimate.value, e.lower.value, e.upper.value, e.p?.quote]),
    ).toEqual([
      ["RR", 1.06, 0.89, 1.27, "p=0·49"],
      ["RR", 1.06, 0.93, 1.22, "p=0·37"],
    ]);
  });

  it("keeps the confidence level and ignores a heterogeneity p-value", () => {
    const [e] = parseEffects("RR = 0.785, 90% CI = 0.580–0.984, I2 = 65.6%, P for heterogeneity = 0.001");
    expect(e).toMatchObject({ level: 90, p: null });
  });

  it("maps table columns to the measures of the header", () => {
    const text = "Relative risk (95% CI) Odds ratio (95% CI)\nHigh SES 0·95 (0·77 to 1·17) 0·94 (0·74 to 1·19) 0·61";
    expect(parseEffects(text).map((e) => e.measure)).toEqual(["RR", "OR"]);
  });
});

describe("parseEffects: what is not an effect", () => {
  it.each([
    "The median age was 54 (IQR 45-63) years.",
    "Participants were aged 18-65 (range 18 to 65).",
    "Mean PEDro score of 6.7 (4–9/10).",
    "Other medications (2-19, 0.41-3.9%) were reported.",
    "Between 1998-2002 and 2013-2017 rates rose.",
    "The odds ratio was 1.585 (p < 0.05).",
    "Scores were 5.2 (1.1) and 6.0 (1.3).",
    "The study ran from 2004 (2001–2006) onwards.",
    "Mortality ranged from 4.5% to 59.9% (median 18.2%; IQR 14.7%-23.7%).",
    "Heterogeneity was high (I2 = 98.6%, p < 0.001).",
    "Weight was 70.1 (65.2–74.9) kg in the control group.",
    "We cite two trials (12, 15) and a cohort (3, 9).",
    "Adherence was 5.2 (4.1, 6.3) days in the intervention group, with OR reported elsewhere.",
  ])("%s", (text) => {
    expect(triples(text)).toEqual([]);
  });
});

describe("extractEffects: context", () => {
  it("takes the outcome, comparison and timepoint from the effect's own sentence", () => {
    const [e] = extractEffects(
      "At 12 weeks, body weight was lower in the intervention group than in the control group (MD −2.1 kg, 95% CI −3.0 to −1.2).",
    );
    expect(e).toMatchObject({
      outcome: "body weight",
      comparison: "intervention vs control",
      timepoint: "At 12 weeks",
    });
  });

  it("names the outcome after 'risk of' and the comparison after 'compared with'", () => {
    const [e] = extractEffects(
      "Compared with placebo, aspirin reduced the risk of venous thromboembolism (HR 0.68, 95% CI 0.51 to 0.90).",
    );
    expect(e!.outcome).toBe("venous thromboembolism");
    expect(e!.comparison).toBe("aspirin vs placebo");
  });

  it("gives each outcome of a list its own phrase", () => {
    const effects = extractEffects(
      "Semaglutide reduced fasting plasma glucose (WMD: -1.15 mmol/L, 95% CI: -1.67 to -0.63) and body weight (WMD: -3.47 kg, 95% CI: -3.96 to -2.98).",
    );
    expect(effects.map((e) => e.outcome)).toEqual(["fasting plasma glucose", "body weight"]);
  });

  it("gives the k-th timepoint of a 'respectively' list to the k-th effect", () => {
    const effects = extractEffects(
      "Activity rose by 40% (95% CI 13% to 73%), 34% (6% to 69%) and 46% (12% to 91%) at one week, four weeks, and six weeks, respectively.",
    );
    expect(effects.map((e) => e.timepoint)).toEqual(["one week", "four weeks", "six weeks"]);
  });

  it("marks a meta-analysis' own pooled result, not a single trial's", () => {
    const text =
      "We pooled 12 trials. The pooled RR of stroke was 0.80 (95% CI 0.70 to 0.91; I2 = 20%). One trial reported an OR of 2.0 (95% CI 0.1 to 44.3) in men.";
    const [pooled, single] = extractEffects(text, { title: "Statins and stroke: a meta-analysis" });
    expect(pooled!.isPooledEstimate).toBe(true);
    expect(single!.isPooledEstimate).toBe(false);
  });

  it("a trial's results are not pooled estimates", () => {
    const [e] = extractEffects(
      "In this randomised trial, mortality was lower with drug A (HR 0.80, 95% CI 0.70 to 0.92).",
      { title: "Drug A in sepsis: a randomised trial" },
    );
    expect(e!.isPooledEstimate).toBe(false);
  });
});

describe("parseEffects: column layouts", () => {
  it("does not join a number to the bracket of another table cell", () => {
    const text = "Incidence (95% CI)    13.4            22.9\n                       (9.5-18.4)      (18.4-28.2)";
    expect(triples(text)).toEqual([]);
  });
});

describe("extractEffects: outcomes the text defines", () => {
  it("'the primary outcome' becomes the outcome the text names as primary", () => {
    const text =
      "The primary outcome was 6 month sustained abstinence. The secondary outcome was point prevalence abstinence. Quit rates were similar for the primary outcome (RR 1.06, 95% CI 0.89 to 1.27) and the secondary outcome (RR 1.02, 95% CI 0.90 to 1.15).";
    expect(extractEffects(text).map((e) => e.outcome)).toEqual([
      "6 month sustained abstinence",
      "point prevalence abstinence",
    ]);
  });
  it("a subgroup ('in Asian populations') is not an outcome", () => {
    const effects = extractEffects(
      "Coffee lowered the risk of glioma (RR 0.76, 95% CI 0.55 to 0.97), especially in Asian populations (RR 0.22, 95% CI 0.04 to 0.90).",
    );
    expect(effects.map((e) => e.outcome)).toEqual(["glioma", "glioma"]);
  });
});

describe("measure names", () => {
  it("reads abbreviations by their own keys only: Object's property names are words, not measures", async () => {
    const { measureAt } = await import("./measures");
    for (const word of ["constructor", "toString", "valueOf", "hasOwnProperty", "__proto__"])
      expect(measureAt(tokenize(`${word} = 1.5`), 0)).toBeNull();
    expect(measureAt(tokenize("OR = 1.5"), 0)?.code).toBe("OR");
    expect(measureAt(tokenize("adjusted odds ratio 1.5"), 0)).toMatchObject({ code: "OR", from: 0, to: 3 });
  });
});
