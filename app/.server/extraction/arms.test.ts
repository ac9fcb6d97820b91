import { describe, expect, it } from "vitest";
import { ABSTAIN_BELOW, extractArms, parseReport } from "~/lib/arms";
import { hasGaps, MODEL_FILL_CONFIDENCE, mergeModelProposal } from "./arms";

const TEXT = [
  "We randomised 202 adults to quetorin (n = 101) or placebo (n = 101).",
  "Remission occurred in 40% of quetorin patients; 21 patients on placebo remitted.",
].join("\n\n");

describe("model path: proposals are kept only when grounded", () => {
  it("keeps a number written in its quote or derived from it, drops one that is not", () => {
    const report = parseReport(TEXT, "text");
    const result = extractArms(report, { intervention: "quetorin", comparator: "placebo", outcome: "remission" });
    expect(hasGaps(result)).toBe(true);
    const merged = mergeModelProposal(
      structuredClone(result),
      {
        outcomeType: "binary",
        intervention: {
          events: 40,
          groupSize: 101,
          mean: null,
          sd: null,
          quote: "Remission occurred in 40% of quetorin patients",
        },
        comparator: { events: 21, groupSize: 101, mean: null, sd: null, quote: "21 patients on placebo remitted" },
      },
      report,
      "gpt-test",
    );
    expect(merged.comparator.events).toBe(21);
    expect(merged.intervention.events).toBe(40);
    expect(merged.derived).toContainEqual({ arm: "intervention", field: "events", from: "40% of n = 101" });
    // A model-filled value is marked as such, at the rules' abstention threshold (the model path has no offline calibration).
    expect(merged.confidence?.comparator.events).toBe(MODEL_FILL_CONFIDENCE);
    // The rules' confidence is a calibrated probability (ADR 0044): a model value sits at its threshold, not above.
    expect(MODEL_FILL_CONFIDENCE).toBe(ABSTAIN_BELOW);
    expect(merged.reason?.comparator.events).toContain("not calibrated");
    expect(merged.reason?.comparator.events).toMatch(
      /^proposed by gpt-test and found in its quote "21 patients on placebo remitted"/,
    );
    expect(merged.extractor).toBe("rules+gpt-test");
    const derived = mergeModelProposal(
      structuredClone(result),
      {
        outcomeType: "binary",
        intervention: {
          events: 40,
          groupSize: 101,
          mean: null,
          sd: null,
          quote: "invented sentence that is not in the report 40",
        },
        comparator: { events: 99, groupSize: 101, mean: null, sd: null, quote: "21 patients on placebo remitted" },
      },
      report,
      "gpt-test",
    );
    expect(derived.intervention.events).toBeNull();
    expect(derived.comparator.events).toBeNull();
  });
});
