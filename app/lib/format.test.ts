import { describe, expect, it } from "vitest";
import { formatAuthors, formatCount, formatPublicationDate, historyCountLabels } from "./format";

describe("formatAuthors", () => {
  it("shows three authors then et al.", () => {
    expect(formatAuthors(["A", "B", "C", "D"])).toBe("A, B, C et al.");
    expect(formatAuthors(["A", "B", "C"])).toBe("A, B, C");
    expect(formatAuthors([])).toBe("Unknown authors");
  });
});

describe("formatPublicationDate", () => {
  it("formats ISO prefixes", () => {
    expect(formatPublicationDate("2024-03-05")).toBe("5 Mar 2024");
    expect(formatPublicationDate("2024-03")).toBe("Mar 2024");
    expect(formatPublicationDate("2024")).toBe("2024");
    expect(formatPublicationDate(null)).toBe("");
  });
});

describe("historyCountLabels", () => {
  it("keeps records retrieved and database totals apart", () => {
    expect(historyCountLabels(2, 42_249)).toEqual(["2 records retrieved", "42,249 in the databases"]);
    expect(historyCountLabels(1, 1)).toEqual(["1 record retrieved"]);
    expect(historyCountLabels(25)).toEqual(["25 records retrieved"]);
  });
});

describe("formatCount", () => {
  it("groups thousands as en-US does, for every magnitude and sign", () => {
    for (const n of [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 21_390_004, -1200, -999]) {
      expect(formatCount(n)).toBe(n.toLocaleString("en"));
    }
  });
  it("drops a fraction rather than grouping its digits", () => {
    expect(formatCount(12345.678)).toBe("12,345");
  });
});
