import { describe, expect, it } from "vitest";
import { extractArms, parseReport, proseValues, hintsOf, type ArmExtraction } from "./index.ts";

/**
 * Round 20 (docs/methods/arm-extraction.md "Round 20"): a number's thousands written with commas, and the arm a value
 * is tied to by the words between them. Every report here is invented.
 */
function readingsOf(text: string, outcome: string, intervention: string, comparator: string) {
  const readings: ArmExtraction[] = [];
  extractArms(
    parseReport(text, "text"),
    { intervention, comparator, outcome },
    { abstainBelow: 0, withholdInconsistent: false, readings },
  );
  return readings;
}

describe("a number whose thousands are written with commas", () => {
  it("is read whole, and no value starts inside it", () => {
    const s = "The dose was higher in the switch group (10,503 ± 7389 vs. 7981 ± 5858 IU/week; p=0.001).";
    const means = proseValues(s, hintsOf(s)).map((v) => (v.stats.kind === "continuous" ? v.stats.mean : null));
    expect(means).toEqual([10503, 7981]);
  });

  it("gives a count's group size written with a comma ('359 (16%) of 2,237')", () => {
    const s = "Events occurred in 359 (16%) of 2,237 patients and 180 (8%) of 2,270 patients.";
    const counts = proseValues(s, hintsOf(s)).map((v) =>
      v.stats.kind === "count" ? [v.stats.events, v.stats.groupSize] : null,
    );
    expect(counts).toEqual([
      [359, 2237],
      [180, 2270],
    ]);
  });
});

describe("a value tied to its arm by the words between them", () => {
  const intervention = "decision support system (intervention arm)";
  const comparator = "control arm (infection team without the system)";
  const text =
    "Results. The infection team intervened on 359 (16%) of 2,237 patients in the intervention arm and 180 (8%) of 2,270 in the control arm.";

  it("reads each value with the arm its words tie it to, though the comparator's own words are named first", () => {
    const [best] = readingsOf(text, "infection team intervened", intervention, comparator);
    expect(best.intervention).toMatchObject({ events: 359, groupSize: 2237 });
    expect(best.comparator).toMatchObject({ events: 180, groupSize: 2270 });
  });

  it("reads the ties in either direction: a value after its arm's name, another before it", () => {
    const mixed =
      "Results. The infection team intervened on 359 (16%) of 2,237 patients in the control arm and, in the intervention arm, 180 (8%) of 2,270.";
    const [best] = readingsOf(mixed, "infection team intervened", intervention, comparator);
    expect(best.intervention).toMatchObject({ events: 180, groupSize: 2270 });
    expect(best.comparator).toMatchObject({ events: 359, groupSize: 2237 });
  });

  it("gives nothing when one value's words tie it to the arm the order of the names gives the other value", () => {
    const against =
      "Results. In the intervention arm's wards the infection team intervened on 359 (16%) of 2,237 patients in the control arm, and on 180 (8%) of 2,270 others.";
    for (const r of readingsOf(against, "infection team intervened", intervention, comparator))
      expect(r.intervention.events).not.toBe(359);
  });

  it("keeps the order of the arms' names when no value is tied ('than in the control group (a vs b)')", () => {
    const s =
      "Results. The weekly dose was higher in the switch group than in the control group (10,503 ± 7389 vs. 7981 ± 5858 IU/week; p=0.001).";
    const [best] = readingsOf(s, "weekly dose", "switch group", "control group");
    expect(best.intervention).toMatchObject({ mean: 10503, sd: 7389 });
    expect(best.comparator).toMatchObject({ mean: 7981, sd: 5858 });
  });
});
