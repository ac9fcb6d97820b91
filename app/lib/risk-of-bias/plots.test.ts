import { describe, expect, it } from "vitest";
import { ROBVIS_COLOUR, summaryShares, summarySvg, trafficLightSvg } from "./plots";
import { robvisCsv, type RobvisRow } from "./robvis";
import type { RobJudgementSet } from "./types";

const set = (d: RobJudgementSet["D1"][], overall: RobJudgementSet["overall"]): RobJudgementSet => ({
  D1: d[0]!,
  D2: d[1]!,
  D3: d[2]!,
  D4: d[3]!,
  D5: d[4]!,
  overall,
});

const ROWS: RobvisRow[] = [
  { study: "Doe 2020", judgements: set(["low", "low", "low", "low", "low"], "low"), weight: 60 },
  {
    study: "Roe <& Co> 2021",
    judgements: set(["some_concerns", "high", "low", "low", "some_concerns"], "high"),
    weight: 40,
  },
];

/** Circles of the plot as [study, domain, judgement, fill]. */
function circles(svg: string): string[][] {
  const out: string[][] = [];
  for (const g of svg.matchAll(/<g data-study="([^"]*)">(.*?)<\/g>/g)) {
    for (const c of g[2]!.matchAll(/<circle [^>]*fill="([^"]+)"[^>]*data-domain="([^"]+)" data-judgement="([^"]+)"/g))
      out.push([g[1]!, c[2]!, c[3]!, c[1]!]);
  }
  return out;
}

describe("traffic-light plot", () => {
  it("one circle per study × D1–D5 + Overall, robvis colours, glyphs, escaped labels", () => {
    const svg = trafficLightSvg(ROWS);
    expect(svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"')).toBe(
      true,
    );
    const c = circles(svg);
    expect(c).toHaveLength(12);
    expect(c.slice(6)).toEqual([
      ["Roe &lt;&amp; Co&gt; 2021", "D1", "some_concerns", "#E2DF07"],
      ["Roe &lt;&amp; Co&gt; 2021", "D2", "high", "#BF0000"],
      ["Roe &lt;&amp; Co&gt; 2021", "D3", "low", "#02C100"],
      ["Roe &lt;&amp; Co&gt; 2021", "D4", "low", "#02C100"],
      ["Roe &lt;&amp; Co&gt; 2021", "D5", "some_concerns", "#E2DF07"],
      ["Roe &lt;&amp; Co&gt; 2021", "overall", "high", "#BF0000"],
    ]);
    expect(svg).not.toContain("<& Co>");
    expect(svg).toContain(">X</text>");
    expect(svg).toContain(">+</text>");
    expect(svg).toContain("D2: Bias due to deviations from intended interventions");
  });

  it("with no studies: the header and the legend only", () => {
    const svg = trafficLightSvg([]);
    expect(circles(svg)).toEqual([]);
    expect(svg).toContain(">Overall</text>");
  });
});

describe("summary plot", () => {
  it("shares per domain, unweighted (each study once) and weighted", () => {
    expect(summaryShares(ROWS, false).D2).toEqual({ low: 0.5, some_concerns: 0, high: 0.5 });
    expect(summaryShares(ROWS, true).D2).toEqual({ low: 0.6, some_concerns: 0, high: 0.4 });
    expect(summaryShares(ROWS, true).overall).toEqual({ low: 0.6, some_concerns: 0, high: 0.4 });
    expect(summaryShares([], true).D1).toEqual({ low: 0, some_concerns: 0, high: 0 });
  });

  it("stacked bars whose widths are the shares of 400 px", () => {
    const svg = summarySvg(ROWS, { weighted: true });
    const bars = [
      ...svg.matchAll(/<rect [^>]*width="([\d.]+)"[^>]*fill="([^"]+)"[^>]*data-domain="D1" data-judgement="([^"]+)"/g),
    ].map((m) => [m[3], Number(m[1]), m[2]]);
    expect(bars).toEqual([
      ["low", 240, ROBVIS_COLOUR.low],
      ["some_concerns", 160, ROBVIS_COLOUR.some_concerns],
    ]);
    expect(svg).toContain("Weighted by meta-analysis weight");
    expect(svg).toContain("Overall risk of bias");
  });
});

describe("robvis CSV", () => {
  it("robvis header and words; formula-safe, quoted study names", () => {
    const csv = robvisCsv([...ROWS, { study: "=HYPERLINK(1), 2022", judgements: ROWS[0]!.judgements, weight: 1 }]);
    expect(csv.split("\r\n")).toEqual([
      "Study,D1,D2,D3,D4,D5,Overall,Weight",
      "Doe 2020,Low,Low,Low,Low,Low,Low,60",
      "Roe <& Co> 2021,Some concerns,High,Low,Low,Some concerns,High,40",
      `"'=HYPERLINK(1), 2022",Low,Low,Low,Low,Low,Low,1`,
      "",
    ]);
  });
});
