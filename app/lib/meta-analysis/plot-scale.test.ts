import { describe, expect, it } from "vitest";
import {
  clampToAxis,
  formatTick,
  linearScale,
  niceTicks,
  paddedDomain,
  ratioTicks,
  squareSide,
  wrapText,
} from "./plot-scale";

describe("plot scales", () => {
  it("maps a domain linearly onto pixels and centres a zero-width domain", () => {
    const x = linearScale([-1, 1], [100, 300]);
    expect(x(-1)).toBe(100);
    expect(x(0)).toBe(200);
    expect(x(1)).toBe(300);
    expect(linearScale([2, 2], [0, 50])(2)).toBe(25);
  });

  it("pads domains, ignores non-finite values and widens degenerate ones", () => {
    expect(paddedDomain([0, 10], 0.1)).toEqual([-1, 11]);
    expect(paddedDomain([Number.NaN, 1, Infinity, 3], 0)).toEqual([1, 3]);
    expect(paddedDomain([0.5, 0.5], 0)).toEqual([0, 1]);
    expect(paddedDomain([Number.NaN])).toEqual([-1, 1]);
  });

  it("puts linear ticks at round steps", () => {
    expect(niceTicks(-1.3, 0.4, 4)).toEqual([-1, -0.5, 0]);
    expect(niceTicks(0, 100, 5)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(1, 1)).toEqual([]);
    expect(niceTicks(Number.NaN, 1)).toEqual([]);
  });

  it("labels log axes with round ratios at their logarithms, keeping 1", () => {
    const ticks = ratioTicks(Math.log(0.2), Math.log(3));
    expect(ticks.map((t) => t.label)).toEqual(["0.2", "0.5", "1", "2"]);
    for (const t of ticks) expect(t.value).toBeCloseTo(Math.log(Number(t.label)), 12);
    const wide = ratioTicks(Math.log(0.001), Math.log(1000), 7);
    expect(wide.length).toBeLessThanOrEqual(7);
    expect(wide.map((t) => t.label)).toContain("1");
  });

  it("falls back to linear ratio ticks on narrow log ranges", () => {
    expect(ratioTicks(Math.log(0.22), Math.log(0.7)).map((t) => t.label)).toEqual(["0.3", "0.4", "0.5", "0.6", "0.7"]);
    const ticks = ratioTicks(Math.log(0.9), Math.log(1.1));
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    for (const t of ticks) {
      expect(Math.exp(t.value)).toBeGreaterThanOrEqual(0.9 - 1e-9);
      expect(Math.exp(t.value)).toBeLessThanOrEqual(1.1 + 1e-9);
    }
  });

  it("sizes squares by the square root of the weight (area ∝ weight) and guards bad weights", () => {
    expect(squareSide(100, 100, 4, 16)).toBe(16);
    expect(squareSide(25, 100, 4, 16)).toBe(10);
    expect(squareSide(0, 100)).toBe(4);
    expect(squareSide(Number.NaN, 100)).toBe(4);
    expect(squareSide(10, 0)).toBe(4);
    expect(squareSide(50, 100)).toBeLessThan(squareSide(60, 100));
  });

  it("clamps to the axis and says when it cut", () => {
    expect(clampToAxis(5, 0, 3)).toEqual({ value: 3, clipped: true });
    expect(clampToAxis(-1, 0, 3)).toEqual({ value: 0, clipped: true });
    expect(clampToAxis(1, 0, 3)).toEqual({ value: 1, clipped: false });
  });

  it("wraps text for SVG at spaces, cutting long words and ellipsising extra lines", () => {
    expect(wrapText("Records identified from databases", 12)).toEqual(["Records", "identified", "from", "databases"]);
    expect(wrapText("a b c d", 3)).toEqual(["a b", "c d"]);
    expect(wrapText("abcdefgh", 3)).toEqual(["abc", "def", "gh"]);
    expect(wrapText("one two three four", 7, 1)).toEqual(["one tw…"]);
    expect(formatTick(0.1 + 0.2)).toBe("0.3");
  });
});
