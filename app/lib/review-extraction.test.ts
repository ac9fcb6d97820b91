import { describe, expect, it } from "vitest";
import { type ArmExtraction, emptyArm, extractArms, parseReport } from "~/lib/arms";
import {
  applyStoredEdits,
  locateInSource,
  poolReviewOutcome,
  quoteContexts,
  reviewIdOfStudyKey,
  reviewStudyKey,
} from "~/lib/review-extraction";

/**
 * An invented trial report as unpdf returns a PDF's text: a running head, lines broken mid-sentence,
 * a word hyphenated at a line end, a results sentence whose quoted numbers straddle a line break, and
 * a table laid out with runs of spaces.
 */
const PDF_TEXT = `Journal of Invented Trials 2025; 12: 101-109
Trandolix versus placebo for acute migraine: a randomised
double-blind trial
Abstract
We randomly assigned 240 adults with migraine to trandolix or pla-
cebo. Pain freedom at 2 hours was reached by 39.7%
(48/121) of patients given trandolix vs 18.5% (22/119) of those given placebo.
Results
Table 2  Secondary outcomes at 24 hours
Outcome                 Trandolix (n = 121)     Placebo (n = 119)
Headache score, mean (SD)     2.1 (1.4)     3.4 (1.6)
Nausea, n (%)     14 (11.6)     19 (16.0)
Rescue medication, n (%)     30 (24.8)     52 (43.7)
`;

const QUESTION = { intervention: "trandolix", comparator: "placebo" };

describe("uploaded PDF text → arm-level extraction", () => {
  const report = parseReport(PDF_TEXT, "text");

  it("reads a binary outcome from the prose and links each quote back to the PDF text span", () => {
    const result = extractArms(report, { ...QUESTION, outcome: "pain freedom" });
    expect(result.outcomeType).toBe("binary");
    expect(result.intervention).toMatchObject({ events: 48, groupSize: 121 });
    expect(result.comparator).toMatchObject({ events: 22, groupSize: 119 });
    const { contexts } = quoteContexts(report, result.quotes, PDF_TEXT);
    const events = contexts.find((c) => c.arm === "intervention" && c.field === "events");
    expect(events?.kind).toBe("text");
    if (events?.kind !== "text") return;
    expect(events.match).toBe("39.7% (48/121)");
    expect(events.before).toContain("Pain freedom at 2 hours was reached by");
    // In the raw PDF text the quote runs over a line break.
    expect(events.sourceSpan).not.toBeNull();
    expect(PDF_TEXT.slice(events.sourceSpan!.start, events.sourceSpan!.end)).toBe("39.7%\n(48/121)");
  });

  it("reads a continuous outcome from the table with the group sizes in its header, quoting the cells", () => {
    const result = extractArms(report, { ...QUESTION, outcome: "headache score" });
    expect(result.outcomeType).toBe("continuous");
    expect(result.intervention).toMatchObject({ mean: 2.1, sd: 1.4, groupSize: 121 });
    expect(result.comparator).toMatchObject({ mean: 3.4, sd: 1.6, groupSize: 119 });
    const { contexts, tables } = quoteContexts(report, result.quotes, PDF_TEXT);
    const mean = contexts.find((c) => c.arm === "comparator" && c.field === "mean");
    expect(mean).toMatchObject({ kind: "table", table: "Table 2", row: 0, column: 2, text: "3.4 (1.6)" });
    expect(Object.keys(tables)).toEqual(["Table 2"]);
    expect(tables["Table 2"]!.rows[0]![0]).toBe("Headache score, mean (SD)");
  });

  it("undoes the line-end hyphenation when locating a span and finds the n-th occurrence", () => {
    expect(locateInSource(PDF_TEXT, "trandolix or placebo")).toEqual({
      start: PDF_TEXT.indexOf("trandolix or pla-"),
      end: PDF_TEXT.indexOf("cebo.") + 4,
    });
    // "placebo" in the title, then hyphenated over a line end, then in the results sentence.
    const second = locateInSource(PDF_TEXT, "placebo", 1)!;
    expect(PDF_TEXT.slice(second.start, second.end)).toBe("pla-\ncebo");
    const third = locateInSource(PDF_TEXT, "placebo", 2)!;
    expect(PDF_TEXT.slice(third.start, third.end)).toBe("placebo");
    expect(third.start).toBeGreaterThan(PDF_TEXT.indexOf("given placebo"));
    expect(locateInSource(PDF_TEXT, "not in the report")).toBeNull();
  });
});

const binary = (ie: number, in_: number, ce: number, cn: number): ArmExtraction => ({
  outcomeType: "binary",
  intervention: { ...emptyArm(), events: ie, groupSize: in_ },
  comparator: { ...emptyArm(), events: ce, groupSize: cn },
  derived: [{ arm: "intervention", field: "events", from: "percent 10% of n = 100" }],
  quotes: [],
  extractor: "rules",
});

describe("stored corrections", () => {
  it("apply the latest value per cell, drop the derivation mark and keep the audit trail in order", () => {
    const base = binary(10, 100, 20, 100);
    const { result, audit } = applyStoredEdits(base, [
      {
        arm: "intervention",
        field: "events",
        oldValue: 10,
        newValue: 12,
        who: "a@example.org",
        when: "2026-11-25T10:00:00.000Z",
      },
      {
        arm: "intervention",
        field: "events",
        oldValue: 12,
        newValue: 14,
        who: "a@example.org",
        when: "2026-11-25T10:05:00.000Z",
      },
      {
        arm: "comparator",
        field: "groupSize",
        oldValue: 100,
        newValue: null,
        who: "a@example.org",
        when: "2026-11-25T10:06:00.000Z",
      },
    ]);
    expect(result.intervention.events).toBe(14);
    expect(result.comparator.groupSize).toBeNull();
    expect(result.derived).toEqual([]);
    expect(result.extractor).toBe("rules+user");
    expect(audit.map((a) => `${a.oldValue}→${a.newValue}`)).toEqual(["10→12", "12→14", "100→null"]);
    expect(base.intervention.events).toBe(10);
    expect(applyStoredEdits(base, []).result).toBe(base);
  });

  it("name their review in the study key", () => {
    const key = reviewStudyKey("6f1c0a52-1111-4222-8333-944455556666", 42);
    expect(reviewIdOfStudyKey(key)).toBe("6f1c0a52-1111-4222-8333-944455556666");
    expect(reviewIdOfStudyKey("990001")).toBeNull();
    expect(reviewIdOfStudyKey("review:x:y")).toBeNull();
  });
});

describe("pooling a review outcome", () => {
  const options = { type: "binary" as const, measure: "OR" as const, method: "REML" as const, test: "z" as const };
  it("uses arm data where complete and a reported estimate of the same measure only where not, saying so", () => {
    const studies = [
      { recordId: 1, title: "A", result: binary(12, 100, 20, 98), reported: null },
      {
        recordId: 2,
        title: "B",
        result: binary(18, 150, 30, 152),
        reported: { measure: "OR" as const, estimate: 9, lower: 1, upper: 80, quote: "" },
      },
      {
        recordId: 3,
        title: "C",
        result: { ...binary(0, 0, 0, 0), intervention: emptyArm(), comparator: emptyArm() },
        reported: { measure: "OR" as const, estimate: 0.7, lower: 0.5, upper: 0.98, quote: "OR 0.7" },
      },
      {
        recordId: 4,
        title: "D",
        result: { ...binary(0, 0, 0, 0), intervention: emptyArm(), comparator: emptyArm() },
        reported: { measure: "RR" as const, estimate: 0.8, lower: 0.6, upper: 1.1, quote: "" },
      },
    ];
    const out = poolReviewOutcome(studies, options);
    expect(out.studies.map((s) => s.via)).toEqual(["arm-data", "arm-data", "reported-estimate", "none"]);
    expect(out.studies[2]!.note).toContain("reported OR 0.7");
    expect(out.studies[3]!.note).toContain("is a RR, not a OR");
    expect(out.pooled?.k).toBe(3);
    expect(out.studies[0]!.yi).toBeCloseTo(Math.log((12 * 78) / (88 * 20)), 10);
    // A correction changes the pooled estimate.
    const corrected = poolReviewOutcome(
      [{ ...studies[0]!, result: binary(2, 100, 20, 98) }, ...studies.slice(1)],
      options,
    );
    expect(corrected.pooled!.estimate).toBeLessThan(out.pooled!.estimate);
  });

  it("says why nothing is pooled with fewer than two usable studies", () => {
    const out = poolReviewOutcome(
      [{ recordId: 1, title: "A", result: binary(12, 100, 20, 98), reported: null }],
      options,
    );
    expect(out.pooled).toBeNull();
    expect(out.message).toMatch(/At least 2 studies/);
  });
});
