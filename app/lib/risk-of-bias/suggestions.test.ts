/** Suggestions from text, on invented sentences. */
import { describe, expect, it } from "vitest";
import { sentenceSpans } from "../extraction/core/index.ts";
import { randomisedVsAnalysed, suggestRob2 } from "./suggestions";

const first = (text: string, id: string, variant: "assignment" | "adhering" = "assignment") =>
  suggestRob2(text, variant)[id]?.[0];

describe("sentenceSpans", () => {
  it("splits after full stops but not after et al., vs. or decimals; offsets point into the text", () => {
    const text = "Smith et al. randomised 120 adults. Mortality was 2.5% vs. 4.1% at 28 days.\n\nMethods follow.";
    const spans = sentenceSpans(text);
    expect(spans.map((s) => text.slice(s.start, s.end))).toEqual([
      "Smith et al. randomised 120 adults.",
      "Mortality was 2.5% vs. 4.1% at 28 days.",
      "Methods follow.",
    ]);
  });
});

describe("suggestRob2: explicit sentences propose an answer", () => {
  it("1.1 sequence generation: computer-generated → Y; alternation → N; 'randomised' alone → no proposal", () => {
    expect(
      first("The allocation sequence was computer-generated random numbers in permuted blocks of four.", "1.1"),
    ).toMatchObject({ proposed: "Y", topic: "sequence generation" });
    expect(first("Patients were allocated by date of birth to the two wards.", "1.1")).toMatchObject({ proposed: "N" });
    expect(first("Participants were allocated to the groups by alternation.", "1.1")).toMatchObject({ proposed: "N" });
    const plain = first("Eighty adults were randomised to zelmoxan or placebo.", "1.1");
    expect(plain).toMatchObject({ cue: "randomised" });
    expect(plain!.proposed).toBeUndefined();
  });

  it("1.2 concealment: sealed opaque envelopes or central randomisation → Y; an open list → N; 'envelopes' alone → none", () => {
    expect(first("Assignments were kept in sequentially numbered, sealed, opaque envelopes.", "1.2")).toMatchObject({
      proposed: "Y",
    });
    expect(first("Allocation used a central web-based randomisation service.", "1.2")).toMatchObject({ proposed: "Y" });
    expect(first("Investigators enrolled patients from an open random allocation list.", "1.2")).toMatchObject({
      proposed: "N",
    });
    expect(first("Envelopes were prepared by a nurse.", "1.2")!.proposed).toBeUndefined();
  });

  it("2.1/2.2 blinding: double-blind → N to both; open-label → Y; 'placebo' alone → sentences only", () => {
    const text = "This double-blind, placebo-controlled trial ran in six centres.";
    expect(first(text, "2.1")).toMatchObject({ proposed: "N", cue: "double-blind" });
    expect(first(text, "2.2")).toMatchObject({ proposed: "N" });
    expect(first("It was an open-label trial.", "2.1")).toMatchObject({ proposed: "Y" });
    expect(first("Controls received a matching placebo tablet.", "2.1")!.proposed).toBeUndefined();
  });

  it("4.3 assessors: blinded outcome assessors → N; not blinded → Y", () => {
    expect(first("Outcome assessors were blinded to group allocation.", "4.3")).toMatchObject({ proposed: "N" });
    expect(
      first("Strokes were adjudicated by a masked committee; the assessors were not blinded to the scans.", "4.3"),
    ).toMatchObject({ proposed: "N" });
    expect(first("The outcome assessors were not blinded.", "4.3")).toMatchObject({ proposed: "Y" });
  });

  it("2.6 ITT proposes Y for the effect of assignment only; per protocol gives the sentence", () => {
    const itt = "All analyses followed the intention-to-treat principle.";
    expect(first(itt, "2.6", "assignment")).toMatchObject({ proposed: "Y" });
    expect(first(itt, "2.6", "adhering")!.proposed).toBeUndefined();
    expect(first("A per-protocol analysis was also done.", "2.6")!.proposed).toBeUndefined();
  });

  it("3.1 attrition: numbers randomised vs analysed; ≥ 95% analysed → Y, fewer → the share without proposal", () => {
    expect(randomisedVsAnalysed("Of 200 patients randomised, 196 were analysed.")).toEqual({
      randomised: 200,
      analysed: 196,
    });
    expect(
      randomisedVsAnalysed("A total of 1,200 participants were randomised and 1,150 completed the study."),
    ).toEqual({ randomised: 1200, analysed: 1150 });
    expect(first("Of 200 patients randomised, 196 were analysed.", "3.1")).toMatchObject({
      proposed: "Y",
      note: "196 of 200 randomised were analysed (98.0%)",
    });
    const fewer = first("We randomised 120 children; 90 were analysed.", "3.1");
    expect(fewer).toMatchObject({ note: "90 of 120 randomised were analysed (75.0%)" });
    expect(fewer!.proposed).toBeUndefined();
    expect(first("No patients were lost to follow-up.", "3.1")).toMatchObject({ proposed: "Y" });
    expect(first("Twelve participants dropped out in the control arm.", "3.1")!.proposed).toBeUndefined();
  });

  it("1.3 baseline: similar characteristics → N; registration → 5.1 sentence without proposal", () => {
    expect(first("Baseline characteristics were similar in the two groups.", "1.3")).toMatchObject({ proposed: "N" });
    const reg = first("The trial was registered at ClinicalTrials.gov (NCT01234567).", "5.1");
    expect(reg).toMatchObject({ topic: "registration and prespecified plan", cue: "registered at" });
    expect(reg!.proposed).toBeUndefined();
  });
});

describe("suggestRob2 over a report", () => {
  const report = [
    "Zelmoxan in sepsis: a randomised trial.",
    "Randomisation was by a computer-generated list in blocks of six, held by the pharmacy.",
    "Treatment packs were sequentially numbered identical drug containers.",
    "Participants and investigators were unaware of allocation in this double-blind trial.",
    "Of 240 patients randomised, 236 were analysed by intention to treat.",
    "The protocol (NCT09876543) was registered before enrolment.",
    "Mortality was 12% vs 20%.",
  ].join(" ");

  it("finds each topic's sentence with offsets into the text; unrelated sentences give nothing", () => {
    const s = suggestRob2(report, "assignment");
    for (const [id, answer] of [
      ["1.1", "Y"],
      ["1.2", "Y"],
      ["2.1", "N"],
      ["2.2", "N"],
      ["3.1", "Y"],
      ["2.6", "Y"],
    ] as const) {
      expect(s[id]?.[0]?.proposed, id).toBe(answer);
      const { start, end, sentence } = s[id]![0]!;
      expect(report.slice(start, end)).toBe(sentence);
    }
    expect(s["5.1"]![0]!.sentence).toContain("NCT09876543");
    const all = Object.values(s).flat();
    expect(all.some((x) => x.sentence.startsWith("Mortality"))).toBe(false);
  });

  it("explicit suggestions come first, at most five per question", () => {
    const text =
      Array.from({ length: 8 }, (_, i) => `Patients were randomised at site ${i + 1}.`).join(" ") +
      " A computer-generated random sequence was used.";
    const s = suggestRob2(text, "assignment")["1.1"]!;
    expect(s).toHaveLength(5);
    expect(s[0]!.proposed).toBe("Y");
  });
});
