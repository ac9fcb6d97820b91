import { describe, expect, it } from "vitest";
import { pipeTable } from "../../../tests/arm-reports";
import {
  CORRECTIONS_ON,
  DEFINITIONAL_CORRECTIONS,
  HARD_GATES,
  HARD_GATES_ON,
  extractArms,
  parseReport,
  reportNotation,
} from "./index.ts";

/**
 * Round 15's definitional audit of statistic notation (docs/methods/arm-extraction.md "Round 15"): for each family where
 * a number could be given as a statistic it is not, invented reports of that family. Families the core already
 * handled keep their tests here as guards; the ones it got wrong are the rules report-se (DEFINITIONAL_CORRECTIONS),
 * median-not-mean and range-not-ci (HARD_GATES), each shown off and on. `abstainBelow: 0` is the reading itself (the
 * bench's raw reading); a small positive threshold shows what a rule withholds whatever the probability.
 */

const OLD_CORRECTIONS = ["sentence-se", "pooled-sd-offer"] as const;
const OLD_GATES = ["timepoint-other"] as const;
const question = (outcome: string) => ({ intervention: "velatrin", comparator: "placebo", outcome });
function ask(
  text: string,
  outcome = "pain score",
  options: { abstainBelow?: number; off?: boolean } = {},
): ReturnType<typeof extractArms> {
  return extractArms(parseReport(text, "markdown"), question(outcome), {
    abstainBelow: options.abstainBelow ?? 0,
    ...(options.off ? { corrections: OLD_CORRECTIONS, hardGates: OLD_GATES } : {}),
  });
}
/** One outcome table, arms as columns (n = 48 and 50), optional caption notation and row label. */
const table = (caption: string, a: string, b: string, row = "Pain score (0-10)") =>
  pipeTable(caption, ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)"], [[row, a, b]]);
/** A methods section with a statistics paragraph, then a results paragraph. */
const methods = (statistics: string, results = "Pain improved in both groups.") =>
  `# Methods\n\n## Statistical analysis\n\n${statistics}\n\n# Results\n\n${results}\n\n`;
const AT12 = "Table 2. Outcomes at 12 weeks";

describe("round 15: the switches", () => {
  it("report-se is a definitional correction, median-not-mean and range-not-ci hard rules, all on in the product", () => {
    expect([...DEFINITIONAL_CORRECTIONS]).toEqual(["sentence-se", "pooled-sd-offer", "report-se"]);
    expect([...CORRECTIONS_ON]).toEqual([...DEFINITIONAL_CORRECTIONS]);
    expect([...HARD_GATES].slice(0, 3)).toEqual(["timepoint-other", "median-not-mean", "range-not-ci"]);
    expect([...HARD_GATES_ON].slice(0, 3)).toEqual([...HARD_GATES].slice(0, 3));
  });
});

// Family 1: the statistics paragraph declares the notation once; the table cells or sentences carry none of their own.
describe("family 1, report-se: a report-level SE declaration (Cochrane Handbook 6.5.2.2)", () => {
  it("finds the declaration outside the tables, and not in sentences about figures or giving values", () => {
    const notation = (s: string) => reportNotation(parseReport(methods(s), "markdown"));
    expect(notation("Data are presented as mean ± SEM.").se).toBe("Data are presented as mean ± SEM.");
    expect(notation("Values are means (SE).").se).not.toBeNull();
    expect(notation("Results are expressed as mean ± standard error of the mean.").se).not.toBeNull();
    expect(notation("Continuous data are given as mean ± SD.")).toMatchObject({ se: null, sd: expect.any(String) });
    expect(notation("Error bars in the figures show the mean ± SEM.").se).toBeNull();
    expect(notation("The pain score was 3.1 ± 0.4 (mean ± SEM) at week 12.").se).toBeNull();
    expect(notation("Data are presented as median (IQR).")).toMatchObject({ median: expect.any(String), mean: false });
  });

  for (const [label, statistics, a, b] of [
    ["'a ± b' under 'Data are presented as mean ± SEM'", "Data are presented as mean ± SEM.", "3.1 ± 0.4", "4.6 ± 0.5"],
    ["'a (b)' under 'Values are means (SE)'", "Values are means (SE).", "3.1 (0.4)", "4.6 (0.5)"],
    [
      "'a ± b' under 'mean ± standard error of the mean'",
      "Results are expressed as mean ± standard error of the mean.",
      "3.1 ± 0.4",
      "4.6 ± 0.5",
    ],
  ] as const) {
    it(`${label}: the spread is an SE and the SD is derived as SE × √n, the rule in the reason`, () => {
      const text = methods(statistics) + table(AT12, a, b);
      // Off: the SE is given as the SD (the wrong number the rule removes).
      expect(ask(text, "pain score", { off: true }).intervention.sd).toBe(0.4);
      const read = ask(text);
      expect(read.intervention.mean).toBe(3.1);
      expect(read.intervention.sd).toBeCloseTo(0.4 * Math.sqrt(48), 4);
      expect(read.comparator.sd).toBeCloseTo(0.5 * Math.sqrt(50), 4);
      expect(read.reason?.intervention.sd).toContain("SD = SE × √n = SE 0.4 × √48 (Cochrane Handbook 6.5.2.2)");
      expect(read.reason?.intervention.sd).toContain("the spread is an SE by the report's notation (report-se:");
      // The product never gives the SE as the SD.
      expect(extractArms(parseReport(text, "markdown"), question("pain score")).intervention.sd).not.toBe(0.4);
    });
  }

  it("a results sentence with no notation of its own follows the report's declaration", () => {
    const text = methods(
      "Data are presented as mean ± SEM.",
      "At 12 weeks the pain score was 3.1 ± 0.4 in the velatrin group (n = 48) and 4.6 ± 0.5 in the placebo group (n = 50).",
    );
    expect(ask(text, "pain score", { off: true }).intervention.sd).toBe(0.4);
    expect(ask(text).intervention.sd).toBeCloseTo(0.4 * Math.sqrt(48), 4);
  });

  it("both SD and SE declared: the unlabelled SD is withheld whatever its probability, the mean and the quote kept", () => {
    const text = methods("Data are presented as mean ± SD or mean ± SEM.") + table(AT12, "3.1 ± 0.4", "4.6 ± 0.5");
    expect(ask(text, "pain score", { off: true, abstainBelow: 0.01 }).intervention.sd).toBe(0.4);
    const r = ask(text, "pain score", { abstainBelow: 0.01 });
    expect(r.intervention.sd).toBeNull();
    expect(r.comparator.sd).toBeNull();
    expect(r.intervention.mean).toBe(3.1);
    expect(r.reason?.intervention.sd).toContain("is wrong by definition (report-se: the report states both SD");
    expect(r.candidates?.some((q) => q.field === "sd" && q.text.includes("0.4"))).toBe(true);
  });

  it("the table's own notation wins over the report's, and a cell's own label wins over both", () => {
    const sem = methods("Data are presented as mean ± SEM.");
    expect(ask(sem + table(`${AT12}, mean ± SD`, "3.1 ± 0.4", "4.6 ± 0.5")).intervention.sd).toBe(0.4);
    expect(ask(sem + table(AT12, "3.1 (SD 0.4)", "4.6 (SD 0.5)")).intervention.sd).toBe(0.4);
    // Already handled before round 15: a table's own SE caption makes its cells SEs.
    const own = ask(table(`${AT12}. Values are means (SE)`, "3.1 (0.4)", "4.6 (0.5)"));
    expect(own.intervention.sd).toBeCloseTo(0.4 * Math.sqrt(48), 4);
  });

  it("no declaration, or one about figures only: '±' stays an SD by convention", () => {
    expect(
      ask(methods("Analyses were by intention to treat.") + table(AT12, "3.1 ± 0.4", "4.6 ± 0.5")).intervention.sd,
    ).toBe(0.4);
    const figures = methods("Error bars in the figures show the mean ± SEM.") + table(AT12, "3.1 ± 0.4", "4.6 ± 0.5");
    expect(ask(figures).intervention.sd).toBe(0.4);
  });
});

// Family 2: medians stated in a header, row label, footnote, sentence or the report's declaration.
describe("family 2, median-not-mean: a median is never given as a mean", () => {
  it("already handled: median in a column header, row label, caption, sentence with its IQR, or arms as rows", () => {
    const blank = [
      ask(
        pipeTable(
          "Table 2. Outcomes",
          ["Outcome", "Velatrin (n = 48), median (IQR)", "Placebo (n = 50), median (IQR)"],
          [["Pain score", "3.1 (2.0)", "4.6 (2.5)"]],
        ),
      ),
      ask(table("Table 2. Outcomes", "3.1 (2.0)", "4.6 (2.5)", "Pain score, median (IQR)")),
      ask(table("Table 2. Outcomes. Data are median (Q1, Q3)", "3.1 (2.0, 4.0)", "4.6 (3.0, 6.0)")),
      ask(table("Table 2. Outcomes. Median (min–max)", "3.1 (1.0–6.0)", "4.6 (2.0–8.0)")),
      ask(
        pipeTable(
          "Table 2. Outcomes",
          ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)"],
          [
            ["Pain score", "", ""],
            ["Median (IQR)", "3.1 (2.0)", "4.6 (2.5)"],
          ],
        ),
      ),
      ask(
        pipeTable(
          "Table 2. Pain score",
          ["Group", "n", "Median [range]"],
          [
            ["Velatrin", "48", "3.1 [1.0]"],
            ["Placebo", "50", "4.6 [2.0]"],
          ],
        ),
      ),
      ask(
        "# Results\n\nThe median pain score was 3.1 (IQR 2.0–4.0) in the velatrin group (n = 48) and 4.6 (IQR 3.0–6.0) in the placebo group (n = 50).",
      ),
      ask(
        "# Results\n\nThe pain score, median (range), was 3.1 (1.0) in the velatrin group (n = 48) and 4.6 (2.0) in the placebo group (n = 50).",
      ),
    ];
    for (const r of blank) {
      expect(r.intervention.mean).toBeNull();
      expect(r.intervention.sd).toBeNull();
    }
  });

  it("a sentence stating the median with '±' gives no mean, whatever its probability", () => {
    const text =
      "# Results\n\nThe median pain score was 3.1 ± 0.4 in the velatrin group (n = 48) and 4.6 ± 0.5 in the placebo group (n = 50).";
    expect(ask(text, "pain score", { off: true, abstainBelow: 0.01 }).intervention.mean).toBe(3.1);
    const r = ask(text, "pain score", { abstainBelow: 0.01 });
    expect(r.intervention.mean).toBeNull();
    expect(r.comparator.sd).toBeNull();
    expect(r.reason?.intervention.mean).toContain(
      "is wrong by definition (median-not-mean: the sentence states a median",
    );
    expect(r.candidates?.some((q) => q.text.includes("3.1"))).toBe(true);
  });

  it("a report declaring medians only: an unlabelled 'a (b)' cell gives no mean", () => {
    const text = methods("Data are presented as median (interquartile range).") + table(AT12, "3.1 (2.0)", "4.6 (2.5)");
    expect(ask(text, "pain score", { off: true, abstainBelow: 0.01 }).intervention.mean).toBe(3.1);
    const r = ask(text, "pain score", { abstainBelow: 0.01 });
    expect(r.intervention.mean).toBeNull();
    expect(r.reason?.intervention.mean).toContain("median-not-mean: the report states its data as medians");
  });

  it("does not apply to a median follow-up, or to a report declaring means too", () => {
    const followUp =
      "# Results\n\nAt a median follow-up of 12 months the pain score was 3.1 ± 0.4 in the velatrin group (n = 48) and 4.6 ± 0.5 in the placebo group (n = 50).";
    expect(ask(followUp, "pain score", { abstainBelow: 0.01 }).intervention.mean).toBe(3.1);
    const both = methods("Data are presented as mean (SD) or median (IQR).") + table(AT12, "3.1 (2.0)", "4.6 (2.5)");
    expect(ask(both, "pain score", { abstainBelow: 0.01 }).intervention.mean).toBe(3.1);
  });
});

// Family 3: a range or IQR read through the CI formula.
describe("family 3, range-not-ci: a range or IQR never gives an SD through the CI formula", () => {
  it("already handled: '(range)', '(IQR)' or '(min–max)' notation, and brackets in prose with no CI label", () => {
    for (const r of [
      ask(table("Table 2. Outcomes. Values are mean (range)", "12 (4–20)", "14 (5–22)")),
      ask(table("Table 2. Outcomes", "12 (4–20)", "14 (5–22)", "Pain score, mean (IQR)")),
      ask(table("Table 2. Outcomes, mean (95% CI)", "12 (4–20)", "14 (5–22)", "Pain score (range)")),
      ask(
        "# Results\n\nThe pain score was 12 (range 4–20) with velatrin (n = 48) and 14 (range 5–22) with placebo (n = 50).",
      ),
      ask("# Results\n\nThe mean pain score was 12 (4–20) with velatrin (n = 48) and 14 (5–22) with placebo (n = 50)."),
    ]) {
      expect(r.intervention.sd).toBeNull();
      expect(r.comparator.sd).toBeNull();
    }
  });

  for (const caption of [
    "Table 2. Outcomes. Data are mean (95% CI) or median (IQR)",
    "Table 2. Outcomes. Values are mean (95% CI) or median (range)",
  ]) {
    it(`a table stating both CIs and medians ("${caption.slice(19)}"), the row neither: no mean, no SD`, () => {
      const text = table(caption, "12 (4–20)", "14 (5–22)");
      expect(ask(text, "pain score", { off: true, abstainBelow: 0.01 }).intervention.mean).toBe(12);
      const r = ask(text, "pain score", { abstainBelow: 0.01 });
      expect(r.intervention.mean).toBeNull();
      expect(r.intervention.sd).toBeNull();
      expect(r.reason?.intervention.sd).toContain("is wrong by definition (range-not-ci:");
      // The row's own CI notation decides it: then it is a CI.
      const ci = table(caption, "12 (4–20)", "14 (5–22)", "Pain score, mean (95% CI)");
      expect(ask(ci).intervention.sd).toBeGreaterThan(0);
    });
  }
});

// Family 4: a between-group CI taken as an arm's.
describe("family 4: a between-group CI never gives an arm's SD (already handled)", () => {
  it("a mean difference with its CI in prose, or in a Difference (95% CI) column, gives no arm SD", () => {
    for (const r of [
      ask(
        "# Results\n\nThe pain score was lower with velatrin (n = 48) than with placebo (n = 50): mean difference 2.1 (95% CI 0.5 to 3.7).",
      ),
      ask(
        "# Results\n\nPain score was 3.1 in the velatrin group (n = 48) and 4.6 in the placebo group (n = 50) (difference −1.5, 95% CI −2.3 to −0.7).",
      ),
      ask(
        pipeTable(
          "Table 2. Outcomes, mean (95% CI)",
          ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)", "Difference (95% CI)"],
          [["Pain score", "3.1", "4.6", "-1.5 (-2.3 to -0.7)"]],
        ),
      ),
    ]) {
      expect(r.intervention.sd).toBeNull();
      expect(r.comparator.sd).toBeNull();
    }
    // The arms' own SDs are read, not the difference's CI.
    const own = ask(
      pipeTable(
        "Table 2. Outcomes",
        ["Outcome", "Velatrin (n = 48)", "Placebo (n = 50)", "Mean difference (95% CI)"],
        [["Pain score", "3.1 ± 1.2", "4.6 ± 1.5", "-1.5 (-2.3 to -0.7)"]],
      ),
    );
    expect([own.intervention.sd, own.comparator.sd]).toEqual([1.2, 1.5]);
  });
});

// Family 5: percentages taken as counts or means.
describe("family 5: percentages are never means, and give events only when exactly one integer fits (already handled)", () => {
  it("an n (%) cell gives events, never a mean", () => {
    const r = ask(table("Table 2. Outcomes, n (%)", "12 (25.0)", "20 (40.0)"));
    expect(r.intervention.mean).toBeNull();
    expect(r.intervention.events).toBe(12);
  });

  it("a percentage alone: events when exactly one integer k fits round(100k/n), none otherwise (Handbook 6.5.2)", () => {
    const fits = ask(table("Table 2. Outcomes", "25%", "40%", "Nausea"), "nausea");
    expect([fits.intervention.events, fits.comparator.events]).toEqual([12, 20]);
    const pct = (a: string, b: string) =>
      pipeTable("Table 2. Outcomes", ["Outcome", "Velatrin (n = 300)", "Placebo (n = 300)"], [["Nausea, %", a, b]]);
    // 2.5% of 300: no integer fits; 2% of 300: k = 5, 6 and 7 all round to 2%.
    for (const r of [ask(pct("2.5", "4.0"), "nausea"), ask(pct("2", "4"), "nausea")]) {
      expect(r.intervention.events).toBeNull();
      expect(r.comparator.events).toBeNull();
    }
  });
});
