import { describe, expect, it } from "vitest";
import { partCitations, splitAnalysis } from "./fulltext-analysis-dialog";

const TEXT = [
  "⟦framing: Offline extractive analysis.⟧",
  "",
  "### Objective",
  "We tested drug A.",
  "",
  "### Outcomes & Effect Sizes",
  "Pain fell by 2 points. Sleep improved.",
].join("\n");

describe("splitAnalysis", () => {
  it("splits at '## '/'### ' lines and bare section names, keeping offsets into the whole text", () => {
    const parts = splitAnalysis(TEXT);
    expect(parts.map((p) => [p.heading, p.body])).toEqual([
      [null, "⟦framing: Offline extractive analysis.⟧"],
      ["Objective", "We tested drug A."],
      ["Outcomes & Effect Sizes", "Pain fell by 2 points. Sleep improved."],
    ]);
    for (const p of parts) expect(TEXT.slice(p.bodyStart, p.bodyStart + p.body.length)).toBe(p.body);
    const bare = splitAnalysis("Limitations:\nSmall sample.\n## Other\nText");
    expect(bare.map((p) => p.heading)).toEqual(["Limitations", "Other"]);
  });

  it("drops an empty lead-in", () => {
    expect(splitAnalysis("### Objective\nX.").map((p) => p.heading)).toEqual(["Objective"]);
  });
});

describe("partCitations", () => {
  it("moves each citation's anchors into the body of its section and keeps its overall number", () => {
    const parts = splitAnalysis(TEXT);
    const a = TEXT.indexOf("drug A.") + "drug A.".length;
    const b = TEXT.indexOf("2 points.") + "2 points.".length;
    const c = TEXT.length;
    const citations = [
      { id: "S3", quote: "We tested drug A.", start: 0, end: 17, anchors: [a] },
      { id: "S9", quote: "Pain fell by 2 points.", start: 40, end: 62, anchors: [b] },
      { id: "S10", quote: "Sleep improved.", start: 63, end: 78, anchors: [c] },
    ];
    expect(partCitations(parts[0]!, citations, false)).toEqual({ citations: [], numbers: [] });
    const objective = partCitations(parts[1]!, citations, false);
    expect(objective.numbers).toEqual([1]);
    expect(objective.citations[0]!.anchors).toEqual([parts[1]!.body.length]);
    const outcomes = partCitations(parts[2]!, citations, true);
    expect(outcomes.numbers).toEqual([2, 3]);
    expect(outcomes.citations.map((x) => x.anchors)).toEqual([
      ["Pain fell by 2 points.".length],
      [parts[2]!.body.length],
    ]);
  });
});
