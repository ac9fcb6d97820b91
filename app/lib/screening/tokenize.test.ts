import { describe, expect, it } from "vitest";
import { sStem, tokenize } from "./tokenize.ts";

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
    expect(tokenize("The Effect of Café-based Nudges on 120 Physicians: a RCT", { stopWords: true, stem: true })).toEqual([
      "effect",
      "cafe-based",
      "nudge",
      "physician",
      "rct",
    ]);
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
});
