/**
 * Every path through every domain's flowchart in the RoB 2 guidance (22 August 2019), both
 * variants of domain 2, written from the flowcharts rather than from the code: each row is one
 * leaf of a flowchart, with the answers that reach it and the judgement the chart gives.
 */
import { describe, expect, it } from "vitest";
import {
  proposeDomains,
  askedQuestions,
  invalidAnswers,
  judgeRob2,
  missingAnswers,
  overallJudgement,
  Rob2IncompleteError,
  rob2Questions,
  type Rob2Answers,
  type Rob2Variant,
  type RobJudgement,
} from "./rob2";

/** Answers that make every domain low, for the variant, with the given answers on top. */
function lowBase(variant: Rob2Variant): Record<string, string> {
  return {
    "1.1": "Y",
    "1.2": "Y",
    "1.3": "N",
    "2.1": "N",
    "2.2": "N",
    ...(variant === "assignment" ? { "2.6": "Y" } : { "2.4": "N", "2.5": "N" }),
    "3.1": "Y",
    "4.1": "N",
    "4.2": "N",
    "4.3": "N",
    "5.1": "Y",
    "5.2": "N",
    "5.3": "N",
  };
}

function judge(variant: Rob2Variant, over: Record<string, string>) {
  return judgeRob2(variant, { ...lowBase(variant), ...over } as Rob2Answers);
}

type Leaf = [string, Record<string, string>, RobJudgement];

const D1: Leaf[] = [
  ["1.2 N → high", { "1.2": "N" }, "high"],
  ["1.2 PN → high (1.1 Y, 1.3 N)", { "1.2": "PN" }, "high"],
  ["1.2 NI, 1.3 Y → high", { "1.2": "NI", "1.3": "Y" }, "high"],
  ["1.2 NI, 1.3 PY → high", { "1.2": "NI", "1.3": "PY" }, "high"],
  ["1.2 NI, 1.3 N → some concerns", { "1.2": "NI", "1.3": "N" }, "some_concerns"],
  ["1.2 NI, 1.3 NI → some concerns", { "1.2": "NI", "1.3": "NI" }, "some_concerns"],
  ["1.2 NI, 1.1 N, 1.3 PN → some concerns", { "1.2": "NI", "1.1": "N", "1.3": "PN" }, "some_concerns"],
  ["1.2 Y, 1.1 N → some concerns", { "1.1": "N" }, "some_concerns"],
  ["1.2 PY, 1.1 PN, 1.3 Y → some concerns", { "1.2": "PY", "1.1": "PN", "1.3": "Y" }, "some_concerns"],
  ["1.2 Y, 1.1 Y, 1.3 Y → some concerns", { "1.3": "Y" }, "some_concerns"],
  ["1.2 Y, 1.1 NI, 1.3 PY → some concerns", { "1.1": "NI", "1.3": "PY" }, "some_concerns"],
  ["1.2 Y, 1.1 Y, 1.3 N → low", {}, "low"],
  ["1.2 PY, 1.1 PY, 1.3 NI → low", { "1.2": "PY", "1.1": "PY", "1.3": "NI" }, "low"],
  ["1.2 Y, 1.1 NI, 1.3 PN → low", { "1.1": "NI", "1.3": "PN" }, "low"],
];

const D2_ASSIGNMENT: Leaf[] = [
  // Part 1 leaves, with an appropriate analysis (2.6 Y)
  ["nobody aware (2.1 N, 2.2 PN) → low", { "2.2": "PN" }, "low"],
  ["aware (2.1 Y), 2.3 N → low", { "2.1": "Y", "2.3": "N" }, "low"],
  ["carers NI (2.2 NI), 2.3 PN → low", { "2.2": "NI", "2.3": "PN" }, "low"],
  ["aware, 2.3 NI → some concerns", { "2.1": "PY", "2.3": "NI" }, "some_concerns"],
  ["aware, 2.3 Y, 2.4 N → some concerns", { "2.1": "Y", "2.3": "Y", "2.4": "N" }, "some_concerns"],
  ["aware, 2.3 PY, 2.4 PN → some concerns", { "2.2": "Y", "2.3": "PY", "2.4": "PN" }, "some_concerns"],
  ["aware, 2.3 Y, 2.4 Y, 2.5 Y → some concerns", { "2.1": "Y", "2.3": "Y", "2.4": "Y", "2.5": "Y" }, "some_concerns"],
  [
    "aware, 2.3 Y, 2.4 NI, 2.5 PY → some concerns",
    { "2.1": "Y", "2.3": "Y", "2.4": "NI", "2.5": "PY" },
    "some_concerns",
  ],
  ["aware, 2.3 Y, 2.4 Y, 2.5 N → high", { "2.1": "Y", "2.3": "Y", "2.4": "Y", "2.5": "N" }, "high"],
  ["aware, 2.3 Y, 2.4 PY, 2.5 PN → high", { "2.1": "Y", "2.3": "Y", "2.4": "PY", "2.5": "PN" }, "high"],
  ["aware, 2.3 Y, 2.4 NI, 2.5 NI → high", { "2.1": "Y", "2.3": "Y", "2.4": "NI", "2.5": "NI" }, "high"],
  // Part 2 leaves, with part 1 low
  ["2.6 PY → low", { "2.6": "PY" }, "low"],
  ["2.6 N, 2.7 N → some concerns", { "2.6": "N", "2.7": "N" }, "some_concerns"],
  ["2.6 NI, 2.7 PN → some concerns", { "2.6": "NI", "2.7": "PN" }, "some_concerns"],
  ["2.6 PN, 2.7 Y → high", { "2.6": "PN", "2.7": "Y" }, "high"],
  ["2.6 N, 2.7 NI → high", { "2.6": "N", "2.7": "NI" }, "high"],
  ["2.6 N, 2.7 PY → high", { "2.6": "N", "2.7": "PY" }, "high"],
  // Combining the parts: the worse one
  ["part 1 some concerns, part 2 high → high", { "2.1": "Y", "2.3": "NI", "2.6": "N", "2.7": "Y" }, "high"],
  ["part 1 high, part 2 low → high", { "2.1": "Y", "2.3": "Y", "2.4": "Y", "2.5": "N" }, "high"],
  [
    "part 1 some concerns, part 2 some concerns → some concerns",
    { "2.1": "Y", "2.3": "NI", "2.6": "N", "2.7": "N" },
    "some_concerns",
  ],
];

const D2_ADHERING: Leaf[] = [
  ["nobody aware, 2.4 N, 2.5 N → low", {}, "low"],
  ["nobody aware, 2.4 NA, 2.5 NA → low", { "2.4": "NA", "2.5": "NA" }, "low"],
  ["aware, 2.3 Y (balanced), 2.4 PN, 2.5 N → low", { "2.1": "Y", "2.3": "Y", "2.4": "PN" }, "low"],
  ["aware, 2.3 NA, no failures → low", { "2.2": "PY", "2.3": "NA" }, "low"],
  ["aware, 2.3 PY, 2.4 NA, 2.5 PN → low", { "2.1": "NI", "2.3": "PY", "2.4": "NA", "2.5": "PN" }, "low"],
  ["aware, 2.3 N (imbalanced), 2.6 Y → some concerns", { "2.1": "Y", "2.3": "N", "2.6": "Y" }, "some_concerns"],
  ["aware, 2.3 NI, 2.6 PY → some concerns", { "2.1": "Y", "2.3": "NI", "2.6": "PY" }, "some_concerns"],
  ["aware, 2.3 PN, 2.6 N → high", { "2.1": "Y", "2.3": "PN", "2.6": "N" }, "high"],
  ["aware, 2.3 NI, 2.6 NI → high", { "2.2": "Y", "2.3": "NI", "2.6": "NI" }, "high"],
  ["failures (2.4 Y), 2.6 Y → some concerns", { "2.4": "Y", "2.6": "Y" }, "some_concerns"],
  ["failures unknown (2.4 NI), 2.6 PN → high", { "2.4": "NI", "2.6": "PN" }, "high"],
  ["non-adherence (2.5 PY), 2.6 PY → some concerns", { "2.5": "PY", "2.6": "PY" }, "some_concerns"],
  ["non-adherence unknown (2.5 NI), 2.6 N → high", { "2.5": "NI", "2.6": "N" }, "high"],
  ["aware, 2.3 Y, 2.5 Y, 2.6 NI → high", { "2.1": "Y", "2.3": "Y", "2.5": "Y", "2.6": "NI" }, "high"],
];

const D3: Leaf[] = [
  ["3.1 Y → low", {}, "low"],
  ["3.1 PY → low", { "3.1": "PY" }, "low"],
  ["3.1 N, 3.2 Y → low", { "3.1": "N", "3.2": "Y" }, "low"],
  ["3.1 NI, 3.2 PY → low", { "3.1": "NI", "3.2": "PY" }, "low"],
  ["3.1 PN, 3.2 N, 3.3 N → low", { "3.1": "PN", "3.2": "N", "3.3": "N" }, "low"],
  ["3.1 N, 3.2 PN, 3.3 PN → low", { "3.1": "N", "3.2": "PN", "3.3": "PN" }, "low"],
  ["3.1 N, 3.2 N, 3.3 Y, 3.4 N → some concerns", { "3.1": "N", "3.2": "N", "3.3": "Y", "3.4": "N" }, "some_concerns"],
  [
    "3.1 N, 3.2 N, 3.3 NI, 3.4 PN → some concerns",
    { "3.1": "N", "3.2": "N", "3.3": "NI", "3.4": "PN" },
    "some_concerns",
  ],
  ["3.1 N, 3.2 N, 3.3 PY, 3.4 Y → high", { "3.1": "N", "3.2": "N", "3.3": "PY", "3.4": "Y" }, "high"],
  ["3.1 N, 3.2 N, 3.3 Y, 3.4 PY → high", { "3.1": "N", "3.2": "N", "3.3": "Y", "3.4": "PY" }, "high"],
  ["3.1 NI, 3.2 N, 3.3 Y, 3.4 NI → high", { "3.1": "NI", "3.2": "N", "3.3": "Y", "3.4": "NI" }, "high"],
];

const D4: Leaf[] = [
  ["4.1 Y → high", { "4.1": "Y" }, "high"],
  ["4.1 PY → high", { "4.1": "PY" }, "high"],
  ["4.1 N, 4.2 Y → high", { "4.2": "Y" }, "high"],
  ["4.1 NI, 4.2 PY → high", { "4.1": "NI", "4.2": "PY" }, "high"],
  // 4.2 N/PN branch
  ["4.2 N, 4.3 N → low", {}, "low"],
  ["4.1 NI, 4.2 PN, 4.3 PN → low", { "4.1": "NI", "4.2": "PN", "4.3": "PN" }, "low"],
  ["4.2 N, 4.3 Y, 4.4 N → low", { "4.3": "Y", "4.4": "N" }, "low"],
  ["4.2 N, 4.3 NI, 4.4 PN → low", { "4.3": "NI", "4.4": "PN" }, "low"],
  ["4.2 N, 4.3 Y, 4.4 Y, 4.5 N → some concerns", { "4.3": "Y", "4.4": "Y", "4.5": "N" }, "some_concerns"],
  ["4.2 N, 4.3 PY, 4.4 NI, 4.5 PN → some concerns", { "4.3": "PY", "4.4": "NI", "4.5": "PN" }, "some_concerns"],
  ["4.2 N, 4.3 Y, 4.4 Y, 4.5 Y → high", { "4.3": "Y", "4.4": "Y", "4.5": "Y" }, "high"],
  ["4.2 N, 4.3 Y, 4.4 PY, 4.5 NI → high", { "4.3": "Y", "4.4": "PY", "4.5": "NI" }, "high"],
  // 4.2 NI branch
  ["4.2 NI, 4.3 N → some concerns", { "4.2": "NI", "4.3": "N" }, "some_concerns"],
  ["4.2 NI, 4.3 Y, 4.4 N → some concerns", { "4.2": "NI", "4.3": "Y", "4.4": "N" }, "some_concerns"],
  [
    "4.2 NI, 4.3 NI, 4.4 Y, 4.5 PN → some concerns",
    { "4.2": "NI", "4.3": "NI", "4.4": "Y", "4.5": "PN" },
    "some_concerns",
  ],
  ["4.2 NI, 4.3 Y, 4.4 Y, 4.5 PY → high", { "4.2": "NI", "4.3": "Y", "4.4": "Y", "4.5": "PY" }, "high"],
  ["4.2 NI, 4.3 Y, 4.4 NI, 4.5 NI → high", { "4.2": "NI", "4.3": "Y", "4.4": "NI", "4.5": "NI" }, "high"],
];

const D5: Leaf[] = [
  ["5.2 Y → high", { "5.2": "Y" }, "high"],
  ["5.3 PY → high", { "5.3": "PY" }, "high"],
  ["5.2 PY, 5.3 NI → high", { "5.2": "PY", "5.3": "NI" }, "high"],
  ["5.2 NI, 5.3 N → some concerns", { "5.2": "NI" }, "some_concerns"],
  ["5.2 N, 5.3 NI, 5.1 Y → some concerns", { "5.3": "NI" }, "some_concerns"],
  ["5.2 N, 5.3 N, 5.1 N → some concerns", { "5.1": "N" }, "some_concerns"],
  ["5.2 PN, 5.3 PN, 5.1 NI → some concerns", { "5.1": "NI", "5.2": "PN", "5.3": "PN" }, "some_concerns"],
  ["5.2 N, 5.3 N, 5.1 PY → low", { "5.1": "PY" }, "low"],
  ["5.2 PN, 5.3 N, 5.1 Y → low", { "5.2": "PN" }, "low"],
];

describe.each([
  ["D1", "assignment", D1],
  ["D1", "adhering", D1],
  ["D2", "assignment", D2_ASSIGNMENT],
  ["D2", "adhering", D2_ADHERING],
  ["D3", "assignment", D3],
  ["D3", "adhering", D3],
  ["D4", "assignment", D4],
  ["D4", "adhering", D4],
  ["D5", "assignment", D5],
  ["D5", "adhering", D5],
] as const)("%s (%s)", (domain, variant, leaves) => {
  it.each(leaves)("%s", (_name, over, expected) => {
    const result = judge(variant, over);
    expect(result.domains[domain]).toBe(expected);
    for (const other of ["D1", "D2", "D3", "D4", "D5"] as const) {
      if (other !== domain) expect(result.domains[other]).toBe("low");
    }
    expect(result.overall).toBe(expected);
  });
});

describe("asked questions", () => {
  it("with every domain low, asks only the unconditional questions", () => {
    expect(askedQuestions("assignment", lowBase("assignment") as Rob2Answers)).toEqual([
      "1.1",
      "1.2",
      "1.3",
      "2.1",
      "2.2",
      "2.6",
      "3.1",
      "4.1",
      "4.2",
      "4.3",
      "5.1",
      "5.2",
      "5.3",
    ]);
    expect(askedQuestions("adhering", lowBase("adhering") as Rob2Answers)).toEqual([
      "1.1",
      "1.2",
      "1.3",
      "2.1",
      "2.2",
      "2.4",
      "2.5",
      "3.1",
      "4.1",
      "4.2",
      "4.3",
      "5.1",
      "5.2",
      "5.3",
    ]);
  });

  it("the deepest paths ask every question of the variant", () => {
    const deep = {
      "2.1": "Y",
      "2.3": "Y",
      "2.4": "Y",
      "2.6": "N",
      "3.1": "N",
      "3.2": "N",
      "3.3": "Y",
      "4.3": "Y",
      "4.4": "Y",
    };
    expect(askedQuestions("assignment", { ...lowBase("assignment"), ...deep } as Rob2Answers)).toEqual(
      rob2Questions("assignment").map((q) => q.id),
    );
    const deepAdhering = { "2.1": "Y", "2.3": "N", "3.1": "N", "3.2": "N", "3.3": "Y", "4.3": "Y", "4.4": "Y" };
    expect(askedQuestions("adhering", { ...lowBase("adhering"), ...deepAdhering } as Rob2Answers)).toEqual(
      rob2Questions("adhering").map((q) => q.id),
    );
  });

  it("conditions: 2.3 only when someone may be aware; 2.4 only after 2.3 Y/PY; 2.5 after 2.4 Y/PY/NI; 2.7 after 2.6 N/PN/NI", () => {
    const asked = (over: Record<string, string>) =>
      askedQuestions("assignment", { ...lowBase("assignment"), ...over } as Rob2Answers);
    expect(asked({ "2.2": "NI" })).toContain("2.3");
    expect(asked({ "2.1": "Y", "2.3": "NI" })).not.toContain("2.4");
    expect(asked({ "2.1": "Y", "2.3": "PY" })).toContain("2.4");
    expect(asked({ "2.1": "Y", "2.3": "Y", "2.4": "PN" })).not.toContain("2.5");
    expect(asked({ "2.1": "Y", "2.3": "Y", "2.4": "NI" })).toContain("2.5");
    expect(asked({ "2.6": "PY" })).not.toContain("2.7");
    expect(asked({ "2.6": "NI" })).toContain("2.7");
  });

  it("conditions of domains 3 and 4: 3.3 only after 3.2 N/PN; 4.3 only when 4.1 and 4.2 are N/PN/NI", () => {
    const asked = (over: Record<string, string>) =>
      askedQuestions("assignment", { ...lowBase("assignment"), ...over } as Rob2Answers);
    expect(asked({ "3.1": "NI" })).toContain("3.2");
    expect(asked({ "3.1": "N", "3.2": "Y" })).not.toContain("3.3");
    expect(asked({ "3.1": "N", "3.2": "PN", "3.3": "PN" })).not.toContain("3.4");
    expect(asked({ "3.1": "N", "3.2": "PN", "3.3": "NI" })).toContain("3.4");
    expect(asked({ "4.1": "PY" })).not.toContain("4.3");
    expect(asked({ "4.2": "Y" })).not.toContain("4.3");
    expect(asked({ "4.1": "NI", "4.2": "NI" })).toContain("4.3");
    expect(asked({ "4.3": "PN" })).not.toContain("4.4");
    expect(asked({ "4.3": "Y", "4.4": "N" })).not.toContain("4.5");
  });

  it("adhering: 2.6 only when there is a problem to analyse around", () => {
    const asked = (over: Record<string, string>) =>
      askedQuestions("adhering", { ...lowBase("adhering"), ...over } as Rob2Answers);
    expect(asked({})).not.toContain("2.6");
    expect(asked({ "2.1": "Y", "2.3": "Y" })).not.toContain("2.6");
    expect(asked({ "2.1": "Y", "2.3": "NA" })).not.toContain("2.6");
    expect(asked({ "2.1": "Y", "2.3": "NI" })).toContain("2.6");
    expect(asked({ "2.5": "NI" })).toContain("2.6");
  });

  it("answers to questions that are not asked are ignored", () => {
    const result = judge("assignment", { "2.3": "Y", "2.4": "Y", "2.5": "N", "3.4": "Y", "2.7": "Y" });
    expect(result.overall).toBe("low");
    expect(result.asked).not.toContain("2.3");
  });
});

describe("incomplete and invalid answers", () => {
  it("names the asked questions without an answer, in order", () => {
    expect(missingAnswers("assignment", {})).toEqual([
      "1.1",
      "1.2",
      "1.3",
      "2.1",
      "2.2",
      "2.6",
      "3.1",
      "4.1",
      "4.2",
      "5.1",
      "5.2",
      "5.3",
    ]);
    const partial = { ...lowBase("assignment"), "2.1": "Y", "3.1": "N" } as Rob2Answers;
    expect(missingAnswers("assignment", partial)).toEqual(["2.3", "3.2"]);
    expect(() => judgeRob2("assignment", partial)).toThrow(Rob2IncompleteError);
    try {
      judgeRob2("assignment", partial);
    } catch (error) {
      expect((error as Rob2IncompleteError).missing).toEqual(["2.3", "3.2"]);
    }
  });

  it("NA is an answer only to 'if applicable' questions; 3.2 takes no NI", () => {
    expect(invalidAnswers("assignment", { ...lowBase("assignment"), "1.1": "NA" } as Rob2Answers)).toEqual(["1.1"]);
    expect(invalidAnswers("adhering", { ...lowBase("adhering"), "2.4": "NA" } as Rob2Answers)).toEqual([]);
    expect(invalidAnswers("assignment", { ...lowBase("assignment"), "3.1": "N", "3.2": "NI" } as Rob2Answers)).toEqual([
      "3.2",
    ]);
    expect(missingAnswers("assignment", { ...lowBase("assignment"), "1.1": "NA" } as Rob2Answers)).toEqual(["1.1"]);
  });

  it("every question has a paraphrase, a condition and options; ids are unique per variant", () => {
    for (const variant of ["assignment", "adhering"] as const) {
      const qs = rob2Questions(variant);
      expect(new Set(qs.map((q) => q.id)).size).toBe(qs.length);
      expect(qs.every((q) => q.text.length > 20 && q.askedWhen.length > 0 && q.options.length >= 4)).toBe(true);
    }
    expect(rob2Questions("assignment")).toHaveLength(22);
    expect(rob2Questions("adhering")).toHaveLength(21);
  });
});

describe("overall judgement", () => {
  const all = (j: RobJudgement) => ({ D1: j, D2: j, D3: j, D4: j, D5: j });

  it("is the least favourable domain", () => {
    expect(overallJudgement(all("low"))).toBe("low");
    expect(overallJudgement({ ...all("low"), D3: "some_concerns" })).toBe("some_concerns");
    expect(overallJudgement({ ...all("some_concerns"), D5: "high" })).toBe("high");
    expect(judge("assignment", { "1.3": "Y", "5.2": "Y" }).overall).toBe("high");
    expect(judge("assignment", { "1.3": "Y", "5.1": "N" }).overall).toBe("some_concerns");
  });

  it("several domains with some concerns may be raised to high, with a reason", () => {
    const two = { ...all("low"), D1: "some_concerns", D4: "some_concerns" } as const;
    expect(overallJudgement(two, { reason: "Concerns in randomisation and measurement together" })).toBe("high");
    expect(() => overallJudgement(two, { reason: "  " })).toThrow(/reason/);
    expect(() => overallJudgement({ ...all("low"), D1: "some_concerns" }, { reason: "x" })).toThrow(/several/);
    expect(() => overallJudgement({ ...two, D2: "high" }, { reason: "x" })).toThrow(/several/);
  });
});

describe("live proposal per domain (proposeDomains)", () => {
  it("judges a domain once its asked questions are answered and leaves the others null", () => {
    expect(proposeDomains("assignment", {})).toEqual({ D1: null, D2: null, D3: null, D4: null, D5: null });
    const d1 = proposeDomains("assignment", { "1.1": "Y", "1.2": "Y", "1.3": "N" });
    expect(d1).toEqual({ D1: "low", D2: null, D3: null, D4: null, D5: null });
    // 3.1 N asks 3.2; unanswered → D3 still null; answered Y → low.
    expect(proposeDomains("assignment", { "3.1": "N" }).D3).toBeNull();
    expect(proposeDomains("assignment", { "3.1": "N", "3.2": "Y" }).D3).toBe("low");
    // Adhering D2: 2.1/2.2 N, 2.4/2.5 N → 2.6 not asked → low; 2.5 Y asks 2.6.
    expect(proposeDomains("adhering", { "2.1": "N", "2.2": "N", "2.4": "N", "2.5": "N" }).D2).toBe("low");
    expect(proposeDomains("adhering", { "2.1": "N", "2.2": "N", "2.4": "N", "2.5": "Y" }).D2).toBeNull();
  });

  it("agrees with judgeRob2 on complete answers", () => {
    const answers = {
      "1.1": "Y",
      "1.2": "NI",
      "1.3": "N",
      "2.1": "Y",
      "2.2": "Y",
      "2.3": "N",
      "2.6": "Y",
      "3.1": "Y",
      "4.1": "N",
      "4.2": "N",
      "4.3": "N",
      "5.1": "Y",
      "5.2": "N",
      "5.3": "N",
    } as const;
    const full = judgeRob2("assignment", answers);
    expect(proposeDomains("assignment", answers)).toEqual(full.domains);
  });
});
