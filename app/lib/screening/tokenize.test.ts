import { describe, expect, it } from "vitest";
import { STOP_WORDS, sStem, tokenize } from "./tokenize.ts";

/** The token definition as a regular expression: tokenize's scanner must give the same tokens. */
function tokenizeByRegex(text: string, options: { stem?: boolean; stopWords?: boolean } = {}): string[] {
  const folded = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();
  const out: string[] = [];
  for (const match of folded.matchAll(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu)) {
    const raw = match[0].replace(/['’]/g, "");
    if (raw.length < 2 || /^[\p{N}.,]+$/u.test(raw) || (options.stopWords && STOP_WORDS.has(raw))) continue;
    out.push(options.stem ? sStem(raw) : raw);
  }
  return out;
}

describe("sStem (Harman 1991)", () => {
  it("folds the three plural endings and leaves the exceptions alone", () => {
    expect(sStem("studies")).toBe("study");
    expect(sStem("trials")).toBe("trial");
    expect(sStem("analyses")).toBe("analyse");
    expect(sStem("diseases")).toBe("disease");
    expect(sStem("status")).toBe("status");
    expect(sStem("stress")).toBe("stress");
    expect(sStem("toes")).toBe("toe");
    expect(sStem("canoes")).toBe("canoe");
    expect(sStem("bus")).toBe("bus");
    expect(sStem("was")).toBe("was");
  });
});

describe("tokenize", () => {
  it("lowercases, folds accents, drops stop words, numbers and single letters", () => {
    expect(
      tokenize("The Effect of Café-based Nudges on 120 Physicians: a RCT", { stopWords: true, stem: true }),
    ).toEqual(["effect", "cafe-based", "nudge", "physician", "rct"]);
  });

  it("keeps hyphenated drug names and Greek letters in one token, folds possessives", () => {
    expect(tokenize("TNF-α inhibitors in Crohn's disease", { stopWords: true, stem: true })).toEqual([
      "tnf-α",
      "inhibitor",
      "crohn",
      "disease",
    ]);
  });

  it("keeps stop words and plurals by default", () => {
    expect(tokenize("The trials of 2020")).toEqual(["the", "trials", "of"]);
  });

  it("gives exactly the tokens of the regular-expression definition, edge cases included", () => {
    const samples = [
      "Crohn’s disease: TNF-α vs. IL-6 (n=120; 95% CI 1.2–3.4), 2nd-line, 3-4 weeks, 12'000",
      "don't -leading trailing- double--hyphen it''s o'-clock 'quoted' ’curly’ a-b-c x- -y",
      "Ångström naïve façade Straße İstanbul ΣΊΣΥΦΟΣ ﬁnal ½ ² ① Ⅻ",
      "astral 𝐁𝐨𝐥𝐝 𝟏𝟐 𐐀𐐨 😀-smile 𠜎𠜱 lone \ud800 surrogate \udc00 x",
      "数据 분석 données-clés ١٢٣ ٤٥-٦ tiếng-việt",
      "",
      "a",
      "ab-",
      "1-2",
      "12’",
    ];
    for (const text of samples) {
      expect(tokenize(text)).toEqual(tokenizeByRegex(text));
      expect(tokenize(text, { stopWords: true, stem: true })).toEqual(
        tokenizeByRegex(text, { stopWords: true, stem: true }),
      );
    }
  });
});
