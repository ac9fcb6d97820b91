import { describe, expect, it } from "vitest";
import { pipeTable } from "../../../tests/arm-reports";
import { DERIVATION_RULES, DERIVATION_RULES_ON, extractArms, parseReport, reportSeDeclaration } from "./index.ts";

/**
 * Round 10's derivation rules (docs/methods/arm-extraction.md "Round 10"), on invented reports of each rule's family.
 * `abstainBelow: 0` tests the reading itself; the default threshold tests what the product gives. Each rule is shown
 * off and on.
 */

const off = { abstainBelow: 0, derivationRules: [] } as const;
const on = { abstainBelow: 0, derivationRules: DERIVATION_RULES } as const;
const pain = { intervention: "drug", comparator: "placebo", outcome: "pain score" };
const report = (...parts: string[]) => parseReport(parts.join("\n\n"), "markdown");

describe("round 10 derivation rules (invented reports)", () => {
  it("lists the rules", () => {
    expect([...DERIVATION_RULES]).toEqual(["sentence-se", "report-se", "respectively-before"]);
  });

  // Family: results sentences stating their own notation as the standard error.
  it("sentence-se: a ± b in a sentence that says mean ± SE is an SE, and the SD is derived as SE·√n", () => {
    const r = report(
      "# Results",
      "At week 12 the pain score was 3.1 ± 0.4 (mean ± SE) in the drug group (n = 40) and 4.2 ± 0.5 in the placebo group (n = 38).",
    );
    // Off: the SE is read as an SD (the error the rule removes).
    expect(extractArms(r, pain, off).intervention.sd).toBe(0.4);
    const read = extractArms(r, pain, on);
    expect(read.intervention.sd).toBeCloseTo(0.4 * Math.sqrt(40), 4);
    expect(read.comparator.sd).toBeCloseTo(0.5 * Math.sqrt(38), 4);
    expect(read.reason.intervention.sd).toContain("SD = SE × √n = SE 0.4 × √40 (Cochrane Handbook 6.5.2.2)");
    expect(read.derived.map((d) => `${d.arm}.${d.field}`)).toEqual(["intervention.sd", "comparator.sd"]);
  });

  it("sentence-se: the notation may come first (mean ± SEM), and a sentence saying SD keeps its SD", () => {
    const sem = report(
      "# Results",
      "The pain score (mean ± SEM) was 3.1 ± 0.4 in the drug group (n = 25) and 4.2 ± 0.5 in the placebo group (n = 25).",
    );
    expect(extractArms(sem, pain, on).intervention.sd).toBeCloseTo(2, 4);
    const sd = report(
      "# Results",
      "The pain score (mean ± SD) was 3.1 ± 0.4 in the drug group (n = 25) and 4.2 ± 0.5 in the placebo group (n = 25).",
    );
    expect(extractArms(sd, pain, on).intervention.sd).toBe(0.4);
  });

  it("sentence-se: a sentence naming both SD and SE gives no ± value (which spread it is cannot be told)", () => {
    const both = report(
      "# Results",
      "The pain score (mean ± SD, with the SE of the difference) was 3.1 ± 0.4 in the drug group (n = 25) and 4.2 ± 0.5 in the placebo group (n = 25).",
    );
    expect(extractArms(both, pain, off).intervention.sd).toBe(0.4);
    const read = extractArms(both, pain, on);
    expect(read.intervention.sd).toBeNull();
    expect(read.intervention.mean).toBeNull();
  });

  // Family: reports declaring their data notation once, in the methods ("Data are expressed as mean ± SEM").
  it("report-se: finds the declaration, and none when the report declares an SD too", () => {
    const se = report("# Methods", "Data are expressed as mean ± SEM. P < 0.05 was significant.");
    expect(reportSeDeclaration(se)).toBe("Data are expressed as mean ± SEM.");
    expect(reportSeDeclaration(report("# Methods", "Values were presented as means with standard errors."))).toContain(
      "standard errors",
    );
    const both = report(
      "# Methods",
      "Baseline data are presented as mean ± SD. Outcome data are presented as mean ± SEM.",
    );
    expect(reportSeDeclaration(both)).toBeNull();
    expect(reportSeDeclaration(report("# Methods", "The SEM of the device was 0.3 mmHg."))).toBeNull();
  });

  it("report-se: a ± with no notation of its own is an SE; the SD is shown with the declaration and never given", () => {
    const r = report(
      "# Methods",
      "Values are presented as means ± standard error of the mean.",
      "# Results",
      pipeTable(
        "Table 2. Outcomes at week 12",
        ["Outcome", "Drug (n = 40)", "Placebo (n = 38)"],
        [["Pain score", "3.1 ± 0.4", "4.2 ± 0.5"]],
      ),
    );
    expect(extractArms(r, pain, off).intervention.sd).toBe(0.4);
    const read = extractArms(r, pain, on);
    expect(read.intervention.sd).toBeCloseTo(0.4 * Math.sqrt(40), 4);
    expect(read.reason.intervention.sd).toContain("as the report declares its data");
    expect(read.reason.intervention.sd).toContain("Values are presented as means ± standard error of the mean.");
    // At the product's threshold the derived SD is offered (reason, candidates), not given.
    const given = extractArms(r, pain, { derivationRules: DERIVATION_RULES });
    expect(given.intervention.sd).toBeNull();
    expect(given.reason.intervention.sd).toMatch(/^not found: the best candidate \(2\.5298/);
    expect(given.candidates.some((q) => q.arm === "intervention" && q.field === "sd")).toBe(true);
  });

  it("report-se: a table or sentence stating its own notation keeps it", () => {
    const r = report(
      "# Methods",
      "Data are expressed as mean ± SEM.",
      "# Results",
      pipeTable(
        "Table 2. Outcomes at week 12, mean ± SD",
        ["Outcome", "Drug (n = 40)", "Placebo (n = 38)"],
        [["Pain score", "3.1 ± 0.4", "4.2 ± 0.5"]],
      ),
    );
    expect(extractArms(r, pain, on).intervention.sd).toBe(0.4);
  });

  // Family: safety and disposition sentences listing three or more arms before their bracketed values.
  it("respectively-before: the arms listed before the values pair with them in order", () => {
    const question = { intervention: "drug", comparator: "placebo", outcome: "discontinued due to lack of efficacy" };
    const r = report(
      "# Results",
      pipeTable(
        "Table 1. Patients",
        ["", "Placebo (N = 357)", "Drug (N = 353)", "Naproxen (N = 181)"],
        [["Age, years", "52", "53", "51"]],
      ),
      "More patients discontinued due to lack of efficacy in the placebo group than in the drug and naproxen groups (25.2%, 12.5%, 10.5%, respectively).",
    );
    expect(extractArms(r, question, off).intervention.events).toBeNull();
    const read = extractArms(r, question, on);
    // 12.5% of 353 is 44 (the only whole number that rounds to it), 25.2% of 357 is 90.
    expect(read.intervention.events).toBe(44);
    expect(read.comparator.events).toBe(90);
    expect(read.reason.intervention.events).toContain("12.5% of n = 353");
    expect(read.reason.intervention.events).toContain("Cochrane Handbook 6.5.2");
  });

  it("respectively-before: with several n stated for an arm, its n and derived count are offered, not given", () => {
    const question = { intervention: "drug", comparator: "placebo", outcome: "discontinued due to lack of efficacy" };
    const r = report(
      "# Methods",
      "In all, 353 patients were randomised to drug and 357 to placebo; 301 patients in the drug group and 290 in the placebo group completed the study.",
      "# Results",
      "More patients discontinued due to lack of efficacy in the placebo group than in the drug and naproxen groups (25.2%, 12.5%, 10.5%, respectively).",
    );
    const raw = extractArms(r, question, on);
    expect(raw.intervention.events).not.toBeNull();
    const given = extractArms(r, question, { derivationRules: DERIVATION_RULES });
    for (const arm of ["intervention", "comparator"] as const) {
      expect(given[arm].events).toBeNull();
      expect(given[arm].groupSize).toBeNull();
    }
    expect(raw.reason.intervention.events).toContain("the values' n is one of several the text states for the arm");
  });

  it("respectively-before: no pairing when an arm is also named before the list, or the list is shorter", () => {
    const question = { intervention: "drug", comparator: "placebo", outcome: "headache" };
    const named = report(
      "# Results",
      "Compared with placebo, headache was reported in the placebo, drug and naproxen groups (8.1%, 12.5%, 10.5%, respectively).",
    );
    expect(extractArms(named, question, on).intervention.events).toBeNull();
    const short = report(
      "# Results",
      "Headache was reported in the drug group (8.1%, 12.5%, 10.5% at weeks 4, 8 and 12, respectively).",
    );
    expect(extractArms(short, question, on).intervention.events).toBeNull();
  });

  it("default: the rules on in the product", () => {
    expect([...DERIVATION_RULES_ON]).toEqual([]);
  });
});
