import { describe, expect, it } from "vitest";
import { pipeTable } from "../../../tests/arm-reports";
import {
  ABSTAIN_BELOW,
  CORRECTIONS_ON,
  DEFINITIONAL_CORRECTIONS,
  extractArms,
  hintsOf,
  parseReport,
  proseValues,
  sentenceStatesSe,
} from "./index.ts";

/**
 * Round 11's definitional corrections (docs/methods/arm-extraction.md "Round 11"), on invented reports of each
 * family. `abstainBelow: 0` tests the reading itself; the default threshold tests what the product gives. Each
 * correction is shown off (`corrections: []`, the behaviour before round 11) and on (the product's default).
 */

const off = { abstainBelow: 0, corrections: [] } as const;
const on = { abstainBelow: 0 } as const;
const pain = { intervention: "drug", comparator: "placebo", outcome: "pain score" };
const report = (...parts: string[]) => parseReport(parts.join("\n\n"), "markdown");
/** One results sentence giving both arms' values, with n per arm. */
const results = (sentence: string) => report("# Results", sentence);

describe("round 11 corrections: the switches", () => {
  it("lists the corrections, all on in the product", () => {
    expect([...DEFINITIONAL_CORRECTIONS]).toEqual(["sentence-se", "pooled-sd-offer", "report-se"]);
    expect([...CORRECTIONS_ON]).toEqual(["sentence-se", "pooled-sd-offer", "report-se"]);
  });
});

// Family: results sentences that state their own notation as the standard error.
describe("sentence-se: a sentence's own SE notation (Cochrane Handbook 6.5.2.2)", () => {
  it("a ± b in a sentence that says mean ± SE is an SE, and the SD is derived as SE × √n with the formula", () => {
    const r = results(
      "At week 12 the pain score was 3.1 ± 0.4 (mean ± SE) in the drug group (n = 40) and 4.2 ± 0.5 in the placebo group (n = 38).",
    );
    // Off: the SE is read as an SD (the wrong number the correction removes).
    expect(extractArms(r, pain, off).intervention.sd).toBe(0.4);
    const read = extractArms(r, pain, on);
    expect(read.intervention.mean).toBe(3.1);
    expect(read.intervention.sd).toBeCloseTo(0.4 * Math.sqrt(40), 4);
    expect(read.comparator.sd).toBeCloseTo(0.5 * Math.sqrt(38), 4);
    expect(read.reason?.intervention.sd).toContain("SD = SE × √n = SE 0.4 × √40 (Cochrane Handbook 6.5.2.2)");
    expect(read.derived.map((d) => `${d.arm}.${d.field}`)).toEqual(["intervention.sd", "comparator.sd"]);
    // The product never gives the SE as the SD: the derived SD, or nothing.
    expect([null, read.intervention.sd]).toContain(extractArms(r, pain).intervention.sd);
    expect(extractArms(r, pain).intervention.sd).not.toBe(0.4);
  });

  it("neighbouring notations: (mean ± SEM) first, ± s.e.m., ± standard error, lower-case mean ± se", () => {
    for (const sentence of [
      "The pain score (mean ± SEM) was 3.1 ± 0.4 in the drug group (n = 25) and 4.2 ± 0.5 in the placebo group (n = 25).",
      "The pain score was 3.1 ± 0.4 in the drug group (n = 25) and 4.2 ± 0.5 in the placebo group (n = 25) (mean ± s.e.m.).",
      "The pain score was 3.1 ± 0.4 in the drug group (n = 25) and 4.2 ± 0.5 in the placebo group (n = 25), mean ± standard error.",
      "The pain score (mean ± se) was 3.1 ± 0.4 in the drug group (n = 25) and 4.2 ± 0.5 in the placebo group (n = 25).",
    ]) {
      expect(extractArms(results(sentence), pain, off).intervention.sd).toBe(0.4);
      expect(extractArms(results(sentence), pain, on).intervention.sd).toBeCloseTo(2, 4);
    }
  });

  it('neighbouring notations: "a (b)" under "(SEM)" or "mean (s.e.)" is an SE, as before the correction', () => {
    for (const sentence of [
      "The pain score (SEM) was 3.1 (0.4) in the drug group (n = 25) and 4.2 (0.5) in the placebo group (n = 25).",
      "The pain score, mean (s.e.), was 3.1 (0.4) in the drug group (n = 25) and 4.2 (0.5) in the placebo group (n = 25).",
    ]) {
      expect(extractArms(results(sentence), pain, off).intervention.sd).toBeCloseTo(2, 4);
      expect(extractArms(results(sentence), pain, on).intervention.sd).toBeCloseTo(2, 4);
    }
  });

  it("a sentence saying SD keeps its SD; ± with no notation stays an SD (the convention)", () => {
    const sd = results(
      "The pain score (mean ± SD) was 3.1 ± 0.4 in the drug group (n = 25) and 4.2 ± 0.5 in the placebo group (n = 25).",
    );
    expect(extractArms(sd, pain, on).intervention.sd).toBe(0.4);
    const bare = results(
      "The pain score was 3.1 ± 0.4 in the drug group (n = 25) and 4.2 ± 0.5 in the placebo group (n = 25).",
    );
    expect(extractArms(bare, pain, on).intervention.sd).toBe(0.4);
  });

  it("a sentence naming both SD and SE gives no ± or a (b) value (which spread it is cannot be told)", () => {
    const pm = results(
      "The pain score (mean ± SD, with the SE of the difference) was 3.1 ± 0.4 in the drug group (n = 25) and 4.2 ± 0.5 in the placebo group (n = 25).",
    );
    expect(extractArms(pm, pain, off).intervention.sd).toBe(0.4);
    const read = extractArms(pm, pain, on);
    expect(read.intervention.sd).toBeNull();
    expect(read.intervention.mean).toBeNull();
    const pair = "The pain score (SD and SE) was 3.1 (0.4) in the drug group and 4.2 (0.5) in the placebo group.";
    expect(proseValues(pair, hintsOf(pair), { sentenceSe: false }).map((v) => v.stats)).toEqual([
      { kind: "continuous", mean: 3.1, sd: 0.4 },
      { kind: "continuous", mean: 4.2, sd: 0.5 },
    ]);
    expect(proseValues(pair, hintsOf(pair))).toEqual([]);
  });

  it("a number's own label wins: an explicit (SE b) is an SE even where the sentence mentions SD", () => {
    const sentence = "Pain fell to 3.1 (SE 0.4) with the drug and 4.2 (SE 0.5) with placebo; the baseline SD was 2.";
    expect(proseValues(sentence, hintsOf(sentence), { sentenceSe: false })[0].stats).toEqual({
      kind: "continuous",
      mean: 3.1,
      sd: 0.4,
    });
    expect(proseValues(sentence, hintsOf(sentence))[0].stats).toEqual({ kind: "continuous", mean: 3.1, se: 0.4 });
    const labelledSd = "Pain fell to 3.1 (SD 0.4) with the drug (mean ± SEM elsewhere in the paper).";
    expect(proseValues(labelledSd, hintsOf(labelledSd))[0].stats).toEqual({ kind: "continuous", mean: 3.1, sd: 0.4 });
  });

  it('what a sentence "states SE" means: not "per se", not SEM images', () => {
    expect(sentenceStatesSe("values are mean ± SE")).toBe(true);
    expect(sentenceStatesSe("data are means (SEM)")).toBe(true);
    expect(sentenceStatesSe("given with their SEs")).toBe(true);
    expect(sentenceStatesSe("mean (s.e.)")).toBe(true);
    expect(sentenceStatesSe("plus or minus the standard error")).toBe(true);
    expect(sentenceStatesSe("the drug per se lowered pain to 3.1 ± 0.4")).toBe(false);
    expect(sentenceStatesSe("SEM images showed pores of 3.1 ± 0.4 µm")).toBe(false);
    const perSe = results(
      "The drug per se lowered the pain score to 3.1 ± 0.4 in the drug group (n = 25) against 4.2 ± 0.5 in the placebo group (n = 25).",
    );
    expect(extractArms(perSe, pain, on).intervention.sd).toBe(0.4);
  });

  it("the meta-analysis path's prose reader gets no mean/SD pair from an SE sentence", () => {
    const sentence = "Pain was 5.2 ± 1.1 (n = 30) vs 6.0 ± 1.3 (n = 28) with placebo (mean ± SE).";
    const values = proseValues(sentence, hintsOf(sentence));
    expect(values.map((v) => v.stats)).toEqual([
      { kind: "continuous", mean: 5.2, se: 1.1 },
      { kind: "continuous", mean: 6, se: 1.3 },
    ]);
  });
});

// Family: small trials reporting means per arm with only a p value for the comparison.
describe("pooled-sd-offer: a pooled SD from t/p is offered and never given (Cochrane Handbook 6.5.2.3)", () => {
  const table = pipeTable(
    "Table 2. Outcomes at 8 weeks",
    ["Outcome", "Yoga (n = 25)", "Waiting list (n = 22)", "P value"],
    [["Anxiety score", "12.1", "15.9", "0.0274"]],
  );
  const r = report("Results.", table);
  const anxiety = { intervention: "yoga", comparator: "waiting list", outcome: "anxiety score" };

  it("is withheld whatever its probability: a threshold below it gives it only with the correction off", () => {
    const raw = extractArms(r, anxiety, on);
    const sd = raw.intervention.sd;
    expect(sd).toBeCloseTo(5.7, 1);
    const p = raw.confidence?.intervention.sd ?? 1;
    // A threshold at the value's own probability: the fitted weight alone would give it.
    const below = Math.max(0.01, Math.floor(p * 100) / 100);
    expect(extractArms(r, anxiety, { abstainBelow: below, corrections: [] }).intervention.sd).toBe(sd);
    const offered = extractArms(r, anxiety, { abstainBelow: below });
    expect(offered.intervention.sd).toBeNull();
    expect(offered.comparator.sd).toBeNull();
    expect(offered.reason?.intervention.sd).toMatch(
      /^not found: the best candidate \(5\.7\d*, confidence \d\.\d\d\) needs an assumption the report does not state, so it is offered, not given — derived: pooled SD = .*Cochrane Handbook 6\.5\.2\.3; assumes equal SDs in both arms, so it is offered for the reviewer to accept and never given/,
    );
    expect(offered.candidates?.some((q) => q.arm === "intervention" && q.field === "sd")).toBe(true);
    // The means and n of the same reading are not touched.
    expect(offered.intervention).toMatchObject({ mean: 12.1, groupSize: 25 });
  });

  it("the product (default threshold) offers it, with the derivation in the reason", () => {
    const given = extractArms(r, anxiety);
    expect(ABSTAIN_BELOW).toBeGreaterThan(0);
    expect(given.intervention.sd).toBeNull();
    expect(given.reason?.intervention.sd).toContain("pooled SD = |MD| / |t| / √(1/n₁ + 1/n₂) from p = 0.0274");
  });
});
