import { describe, expect, it } from "vitest";
import { RELEVANCE_THRESHOLD, smartSearchNote } from "./smart-search";

const scored = (...scores: number[]) => scores.map((relevanceScore) => ({ relevanceScore }));

describe("smartSearchNote", () => {
  it("does not say 'kept' of results that scored 0/10", () => {
    const note = smartSearchNote(scored(0, 0), 2, "MetaMind Offline Extractive v1");
    expect(note).toBe(
      "None of the 2 results scored 3/10 or more for relevance; showing both, best first · ranked by MetaMind Offline Extractive v1",
    );
    expect(note).not.toMatch(/kept/);
  });

  it("counts only the results at the threshold or above as kept", () => {
    expect(smartSearchNote(scored(9, 7.5, RELEVANCE_THRESHOLD), 40, "gpt")).toBe(
      "Smart Search kept 3 of 40 results (relevance 3/10 or more), best first · ranked by gpt",
    );
    expect(smartSearchNote(scored(8, 2.9, 1, 0, 0), 25, null)).toBe(
      "Only 1 of the 25 results scored 3/10 or more for relevance; showing the 5 best-scoring, best first",
    );
    expect(smartSearchNote(scored(1), 1, null)).toBe(
      "The only result scored below 3/10 for relevance; showing it anyway",
    );
    expect(smartSearchNote(scored(2, 1, 0), 3, null)).toMatch(/showing all 3, best first$/);
  });
});
