import { describe, expect, it } from "vitest";
import { pageItems } from "./pagination";

describe("pageItems", () => {
  it("lists every page up to 7", () => {
    expect(pageItems(1, 0)).toEqual([]);
    expect(pageItems(1, 1)).toEqual([1]);
    expect(pageItems(4, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
  it("uses ellipses beyond 7 pages", () => {
    expect(pageItems(1, 20)).toEqual([1, 2, 3, 4, "ellipsis-end", 20]);
    expect(pageItems(10, 20)).toEqual([1, "ellipsis-start", 9, 10, 11, "ellipsis-end", 20]);
    expect(pageItems(20, 20)).toEqual([1, "ellipsis-start", 17, 18, 19, 20]);
    expect(pageItems(4, 8)).toEqual([1, "ellipsis-start", 3, 4, 5, "ellipsis-end", 8]);
  });
  it("clamps out-of-range pages", () => {
    expect(pageItems(99, 10)).toEqual([1, "ellipsis-start", 7, 8, 9, 10]);
  });
});
