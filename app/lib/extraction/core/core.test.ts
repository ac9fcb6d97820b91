import { describe, expect, it } from "vitest";
import {
  checkQuote,
  decimalsOf,
  locateQuote,
  normalisedTokens,
  numbersIn,
  numberWritten,
  parseNumber,
  parseRange,
  readNumberAt,
  sentenceSpans,
  splitSentences,
  stem,
} from "./index.ts";

describe("number reader", () => {
  it("reads a decimal point, a middle dot and a leading point", () => {
    expect(parseNumber("1.5")).toBe(1.5);
    expect(parseNumber("1·06")).toBe(1.06);
    expect(parseNumber("0·74")).toBe(0.74);
    expect(parseNumber(".05")).toBe(0.05);
    expect(parseNumber("·05")).toBe(0.05);
  });
  it("reads a decimal comma only when it is unambiguous", () => {
    expect(parseNumber("1,5")).toBe(1.5);
    expect(parseNumber("0,85")).toBe(0.85);
    expect(parseNumber("12,34")).toBe(12.34);
    expect(parseNumber("0,123")).toBe(0.123);
    // Three digits after the comma: thousands.
    expect(parseNumber("1,234")).toBe(1234);
    expect(parseNumber("1,058,466")).toBe(1058466);
    // In a list of integers a comma is a separator, not a decimal mark.
    expect(numbersIn("1,2,3").map((n) => n.value)).toEqual([1, 2, 3]);
  });
  it("reads thousands separated by a space, thin space or no-break space", () => {
    expect(parseNumber("1 234")).toBe(1234);
    expect(parseNumber("151\u2009597")).toBe(151597);
    expect(parseNumber("151\u00a0597")).toBe(151597);
    expect(parseNumber("1,234,567.5")).toBe(1234567.5);
    // In prose, spaces separate numbers unless the caller asks for space thousands.
    expect(numbersIn("12 345").map((n) => n.value)).toEqual([12, 345]);
    expect(numbersIn("n = 12 345 patients", { spaceThousands: true }).map((n) => n.value)).toEqual([12345]);
  });
  it("reads every minus form as a minus", () => {
    expect(parseNumber("-0.4")).toBe(-0.4);
    expect(parseNumber("\u22120.4")).toBe(-0.4);
    expect(parseNumber("\u20130.4")).toBe(-0.4);
    expect(parseNumber("\u2212 1")).toBeNaN();
    expect(numbersIn("MD \u22121·15 (\u22121·67 to \u22120·63)").map((n) => n.value)).toEqual([-1.15, -1.67, -0.63]);
  });
  it("does not read a range dash or a hyphen as a minus", () => {
    expect(numbersIn("1.2\u20133.4").map((n) => n.value)).toEqual([1.2, 3.4]);
    expect(numbersIn("0.52-1.05").map((n) => n.value)).toEqual([0.52, 1.05]);
    expect(numbersIn("IL-6 and COVID-19").map((n) => n.value)).toEqual([6, 19]);
  });
  it("reports a percent and leaves the value as written", () => {
    expect(parseNumber("12.5%")).toBe(12.5);
    expect(parseNumber("12.5 %")).toBe(12.5);
    expect(numbersIn("45 (37.5%)").map((n) => [n.value, n.percent])).toEqual([
      [45, false],
      [37.5, true],
    ]);
  });
  it("reads ranges in every separator form", () => {
    expect(parseRange("1.2\u20133.4")).toEqual({ low: 1.2, high: 3.4 });
    expect(parseRange("0·40 to 0·70")).toEqual({ low: 0.4, high: 0.7 });
    expect(parseRange("\u22120.5 to \u22120.1")).toEqual({ low: -0.5, high: -0.1 });
    expect(parseRange("(-1.2, -0.3)")).toEqual({ low: -1.2, high: -0.3 });
    expect(parseRange("2-4")).toEqual({ low: 2, high: 4 });
    expect(parseRange("1.2 and 3.4")).toBeNull();
    expect(parseRange("1.2")).toBeNull();
  });
  it("rejects what is not one number", () => {
    expect(parseNumber("")).toBeNaN();
    expect(parseNumber("abc")).toBeNaN();
    expect(parseNumber("1.2–3.4")).toBeNaN();
  });
  it("counts decimals as written", () => {
    expect(decimalsOf("1·060")).toBe(3);
    expect(decimalsOf("12")).toBe(0);
    expect(decimalsOf("0,5")).toBe(1);
    expect(decimalsOf("1,234")).toBe(0);
    expect(decimalsOf("37.5%")).toBe(1);
  });
  it("reads at an offset and stops at the number's end", () => {
    expect(readNumberAt("RR 0·74 (", 3)).toEqual({ end: 7, value: 0.74, decimals: 2 });
  });
});

describe("sentence splitter", () => {
  const texts = (t: string) => splitSentences(t).map((s) => s.text);
  it("does not split after et al., vs., i.e. or e.g.", () => {
    expect(texts("As shown by Smith et al. in 2019, drug A vs. placebo (i.e. usual care) helped. Pain fell.")).toEqual([
      "As shown by Smith et al. in 2019, drug A vs. placebo (i.e. usual care) helped.",
      "Pain fell.",
    ]);
  });
  it("does not split inside decimals or a CI bracket", () => {
    expect(texts("The RR was 0.75 (95% CI 0.60 to 0.93). Mortality was 12.5% vs. 15.1%.")).toEqual([
      "The RR was 0.75 (95% CI 0.60 to 0.93).",
      "Mortality was 12.5% vs. 15.1%.",
    ]);
  });
  it("keeps offsets into the source and can split a part of a text", () => {
    const text = "Title. Results: Pain fell. Mood rose.";
    for (const s of splitSentences(text)) expect(text.slice(s.start, s.end)).toBe(s.text);
    expect(sentenceSpans(text, 7).map((s) => text.slice(s.start, s.end))).toEqual(["Pain fell.", "Mood rose."]);
  });
});

describe("stemmer and token normaliser", () => {
  it("stems with Porter after American spelling and Latin plurals", () => {
    expect(stem("infections")).toBe(stem("infection"));
    expect(stem("randomised")).toBe(stem("randomized"));
    expect(stem("haemoglobin")).toBe(stem("hemoglobin"));
    expect(stem("lactobacilli")).toBe(stem("lactobacillus"));
    expect(stem("responders")).toBe(stem("responder"));
    expect(stem("HbA1c")).toBe("hba1c");
  });
  it("normalises a phrase to stemmed tokens without the caller's stop words", () => {
    expect(normalisedTokens("Post-operative infections in the group", new Set(["in", "the", "group"]))).toEqual([
      "post",
      "oper",
      "infect",
    ]);
  });
});

describe("quote check", () => {
  const source = "Mortality was 12/100\n(12%) with drug and 20/98 with placebo; RR 0·60 (95% CI 0·37 to 0·97).";
  it("finds a quote verbatim or with whitespace differences", () => {
    expect(locateQuote(source, "12/100 (12%) with drug")).toEqual({
      text: "12/100\n(12%) with drug",
      start: 14,
      end: 36,
    });
    expect(locateQuote(source, "RR 0·60", { section: "results" })).toMatchObject({
      text: "RR 0·60",
      section: "results",
    });
    expect(locateQuote(source, "RR 0.60 (hallucinated)")).toBeNull();
    expect(locateQuote(source, "RR")).toBeNull();
  });
  it("requires every number in the quote, in any written form", () => {
    expect(checkQuote(source, "RR 0·60 (95% CI 0·37 to 0·97)", [0.6, 0.37, 0.97])).toMatchObject({ ok: true });
    expect(checkQuote(source, "RR 0·60 (95% CI 0·37 to 0·97)", [0.6, 0.38])).toEqual({
      ok: false,
      reason: "its numbers 0.38 are not in the quote",
    });
    expect(checkQuote(source, "RR 0.60", [0.6])).toEqual({ ok: false, reason: "its quote is not in the source" });
    expect(numberWritten("MD \u22120.4", -0.4)).toBe(true);
    expect(numberWritten("12 (12%)", 12, { ignorePercent: true })).toBe(true);
  });
});
