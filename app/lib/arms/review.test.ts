import { describe, expect, it } from "vitest";
import type { DataRow } from "../meta-analysis/page-logic.ts";
import { applyEdit, armEffectData, type ArmStudyRow, rowsForAnalysis } from "./review.ts";
import { emptyArm } from "./types.ts";

function row(studyId: string, i: [number | null, number | null], c: [number | null, number | null]): ArmStudyRow {
  return {
    studyId,
    title: `Trial ${studyId}`,
    source: { text: "", format: "text" },
    result: {
      outcomeType: "binary",
      intervention: { ...emptyArm(), events: i[0], groupSize: i[1] },
      comparator: { ...emptyArm(), events: c[0], groupSize: c[1] },
      derived: [],
      quotes: [{ arm: "intervention", field: "events", text: "12/100", start: 10, end: 16 }],
      extractor: "rules",
    },
    audit: [],
  };
}

describe("data-extraction table logic", () => {
  it("records an edit with old → new, who and when, and refuses impossible values", () => {
    const edited = applyEdit(
      row("a", [12, 100], [20, 98]),
      "comparator",
      "events",
      22,
      "ana@example.org",
      new Date("2026-01-02T03:04:05Z"),
    );
    expect(edited.result.comparator.events).toBe(22);
    expect(edited.result.extractor).toBe("rules+user");
    expect(edited.audit).toEqual([
      {
        arm: "comparator",
        field: "events",
        oldValue: 20,
        newValue: 22,
        who: "ana@example.org",
        when: "2026-01-02T03:04:05.000Z",
      },
    ]);
    expect(() => applyEdit(edited, "comparator", "events", 2.5, "x", new Date())).toThrow(RangeError);
  });

  it("pools arm data where complete and a reported estimate only where arm data are missing", () => {
    const estimate: DataRow = {
      studyId: "b",
      title: "Trial b",
      outcome: "death",
      measure: "OR",
      data: { kind: "estimate-ci", estimate: 0.8, lower: 0.6, upper: 1.1 },
      quotes: [],
      extractedBy: "offline-rules",
      design: "RCT",
      totalN: 300,
      included: true,
    };
    const out = rowsForAnalysis(
      [row("a", [12, 100], [20, 98]), row("b", [null, 150], [null, 150]), row("c", [null, null], [null, null])],
      [estimate],
      "mortality",
      {
        binary: "OR",
        continuous: "SMD",
      },
    );
    expect(out.fromArms).toEqual(["a"]);
    expect(out.fromEstimates).toEqual(["b"]);
    expect(out.missing).toEqual(["c"]);
    expect(out.rows.find((r) => r.studyId === "a")?.data).toEqual({
      kind: "counts",
      events1: 12,
      n1: 100,
      events2: 20,
      n2: 98,
    });
    expect(out.rows.find((r) => r.studyId === "b")?.extractedBy).toMatch(/reported estimate/);
    expect(armEffectData({ ...row("d", [120, 100], [1, 10]).result })).toBeNull();
  });
});
