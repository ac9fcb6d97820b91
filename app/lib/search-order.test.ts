import { describe, expect, it } from "vitest";
import { inArrivalOrder, sameOrder } from "./search-order";

const s = (id: number) => ({ id });

describe("inArrivalOrder", () => {
  it("keeps cards where they appeared and appends the ones never shown, in merged order", () => {
    const merged = [s(5), s(1), s(9), s(3), s(7)];
    expect(inArrivalOrder(merged, [1, 3, 5, 2]).map((x) => x.id)).toEqual([1, 3, 5, 9, 7]);
  });
  it("leaves the merged order alone when nothing streamed", () => {
    const merged = [s(2), s(1)];
    expect(inArrivalOrder(merged, [])).toEqual(merged);
    expect(sameOrder(inArrivalOrder(merged, []), merged)).toBe(true);
    expect(sameOrder(inArrivalOrder(merged, [1]), merged)).toBe(false);
  });
});
