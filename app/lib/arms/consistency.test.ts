import { describe, expect, it } from "vitest";
import { pipeTable } from "../../../tests/arm-reports";
import { consistencyChecks, extractArms, parseReport } from "./index.ts";
import { percentAgrees } from "./consistency.ts";
import { emptyArm } from "./types.ts";

/**
 * Consistency checks (round 4 of issue 26 item 1): a number is given only when the reading's numbers agree
 * with each other and with what the report states elsewhere. Every report below is invented, one per family
 * of reports the check serves.
 */

const ask = (text: string, intervention: string, comparator: string, outcome: string) =>
  extractArms(parseReport(text, "markdown"), { intervention, comparator, outcome });

const arm = (values: Partial<ReturnType<typeof emptyArm>>) => ({ ...emptyArm(), ...values });

describe("consistencyChecks (pure)", () => {
  it("passes a 2×2 whose printed percentages are events / n to their rounding", () => {
    const checks = consistencyChecks({
      kind: "count",
      values: { intervention: arm({ events: 12, groupSize: 40 }), comparator: arm({ events: 7, groupSize: 41 }) },
      percent: { intervention: { value: 30, decimals: 0 }, comparator: { value: 17.1, decimals: 1 } },
    });
    expect(checks.every((c) => c.ok)).toBe(true);
    expect(checks.map((c) => c.name)).toEqual([
      "events-within-n",
      "percent-agrees",
      "events-within-n",
      "percent-agrees",
    ]);
  });

  it("fails a count whose printed percentage belongs to another n (events of one row, n of another)", () => {
    const checks = consistencyChecks({
      kind: "count",
      values: { intervention: arm({ events: 12, groupSize: 60 }), comparator: arm({ events: 7, groupSize: 41 }) },
      percent: { intervention: { value: 30, decimals: 0 } },
    });
    expect(checks.find((c) => c.name === "percent-agrees" && !c.ok)?.what).toMatch(
      /12\/60 = 20\.0%, not the printed 30%/,
    );
  });

  it("fails more events than n, and an analysed n larger than every n the text states for the arm", () => {
    const checks = consistencyChecks({
      kind: "count",
      values: { intervention: arm({ events: 52, groupSize: 50 }), comparator: arm({ events: 7, groupSize: 240 }) },
      statedSizes: { comparator: [120, 118] },
    });
    expect(checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(["events-within-n", "n-within-stated"]);
  });

  it("fails a non-positive SD and two arms' n beyond the number randomised; switched-off checks are not run", () => {
    const values = {
      intervention: arm({ mean: 40.2, sd: 3.1, groupSize: 130 }),
      comparator: arm({ mean: 42.5, sd: 0, groupSize: 128 }),
    };
    const checks = consistencyChecks({ kind: "continuous", values, randomisedTotal: 240 });
    expect(checks.filter((c) => !c.ok).map((c) => c.what)).toEqual([
      "n 130 + 128 exceeds the 240 the report says were randomised",
      "comparator: SD 0 is not positive",
    ]);
    expect(
      consistencyChecks({ kind: "continuous", values, randomisedTotal: 240, enabled: ["events-within-n"] }),
    ).toEqual([]);
  });

  it("rounds percentages as printed: 33.3% is 1/3, 33% is 1/3, 34% is not", () => {
    expect(percentAgrees(10, 30, 33.3, 1)).toBe(true);
    expect(percentAgrees(10, 30, 33, 0)).toBe(true);
    expect(percentAgrees(10, 30, 34, 0)).toBe(false);
  });
});

describe("consistency in the extraction (invented reports)", () => {
  // Family: outcome tables whose header n is of the patients screened or of another population, in trials stating the total randomised.
  it("withholds a reading whose two arms' n exceed the number the report says were randomised, and says why", () => {
    const table = pipeTable(
      "Table 2. Outcomes at 8 weeks",
      ["Outcome", "Quilastat (n = 150)", "Placebo (n = 150)"],
      [["Sleep quality index", "10.2 ± 3.1", "12.5 ± 2.9"]],
    );
    const text = `Methods.\n\nWe randomised 240 adults with insomnia.\n\n${table}`;
    const r = ask(text, "quilastat", "placebo", "sleep quality index");
    expect(r.intervention.mean).toBeNull();
    expect(r.reason?.intervention.mean).toMatch(/missing: consistency: n 150 \+ 150 exceeds the 240 the report says/);
    expect(r.candidates?.length).toBeGreaterThan(0);
  });

  it("gives the same table's reading when the arms' n fit the number randomised", () => {
    const table = pipeTable(
      "Table 2. Outcomes at 8 weeks",
      ["Outcome", "Quilastat (n = 120)", "Placebo (n = 118)"],
      [["Sleep quality index", "10.2 ± 3.1", "12.5 ± 2.9"]],
    );
    const r = ask(
      `Methods.\n\nWe randomised 240 adults with insomnia.\n\n${table}`,
      "quilastat",
      "placebo",
      "sleep quality index",
    );
    expect(r.intervention).toMatchObject({ mean: 10.2, sd: 3.1, groupSize: 120 });
    expect(r.reason?.comparator.sd).toMatch(/consistency: .*n 120 \+ 118 within the 240 randomised/);
  });

  // Family: safety tables with 'n (%)' cells whose header n is of a larger population than the arm randomised.
  it("withholds counts whose header n exceeds the n the text states for the arm", () => {
    const text = [
      "Methods.",
      "",
      "Of 180 patients screened, 60 were randomised to morventide and 61 to placebo.",
      "",
      pipeTable(
        "Table 3. Adverse events",
        ["Event", "Morventide (n = 90)", "Placebo (n = 90)"],
        [["Headache", "9 (10.0)", "4 (4.4)"]],
      ),
    ].join("\n");
    const r = ask(text, "morventide", "placebo", "headache");
    expect(r.intervention.events).toBeNull();
    expect(r.reason?.intervention.events).toMatch(/n = 90 exceeds the 60 the text states for the arm/);
  });

  it("gives those counts when the header n is the randomised one", () => {
    const text = [
      "Methods.",
      "",
      "Of 180 patients screened, 90 were randomised to morventide and 90 to placebo.",
      "",
      pipeTable(
        "Table 3. Adverse events",
        ["Event", "Morventide (n = 90)", "Placebo (n = 90)"],
        [["Headache", "9 (10.0)", "4 (4.4)"]],
      ),
    ].join("\n");
    const r = ask(text, "morventide", "placebo", "headache");
    expect(r.intervention).toMatchObject({ events: 9, groupSize: 90 });
    expect(r.reason?.intervention.events).toMatch(/9\/90 is the printed 10%/);
  });
});
