import { describe, expect, it } from "vitest";
import { consistencyChecks, extractArms, parseReport } from "./index.ts";
import { MAX_STANDARDISED_DIFFERENCE, percentAgrees } from "./consistency.ts";
import { emptyArm } from "./types.ts";

/**
 * Consistency checks (round 4 of issue 26 item 1): a number is given only when the reading's numbers agree
 * with each other and with what the report states elsewhere. Every report below is invented, one per family
 * of reports the check serves.
 */
function pipeTable(caption: string, header: string[], rows: string[][]): string {
  return [
    "::::table-wrap",
    "::: caption",
    caption,
    ":::",
    "",
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
    "::::",
    "",
  ].join("\n");
}

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

  it("fails a standardised difference beyond 3 pooled SDs and a non-positive SD; switched-off checks are not run", () => {
    const values = {
      intervention: arm({ mean: 40.2, sd: 3.1, groupSize: 30 }),
      comparator: arm({ mean: 12.5, sd: 2.9, groupSize: 30 }),
    };
    const checks = consistencyChecks({ kind: "continuous", values });
    expect(checks.find((c) => c.name === "effect-size")?.ok).toBe(false);
    expect(MAX_STANDARDISED_DIFFERENCE).toBe(3);
    expect(consistencyChecks({ kind: "continuous", values, enabled: ["sd-positive"] }).every((c) => c.ok)).toBe(true);
    const zero = consistencyChecks({
      kind: "continuous",
      values: { ...values, comparator: arm({ mean: 12.5, sd: 0, groupSize: 30 }) },
    });
    expect(zero.find((c) => c.name === "sd-positive" && !c.ok)?.what).toMatch(/comparator: SD 0 is not positive/);
  });

  it("rounds percentages as printed: 33.3% is 1/3, 33% is 1/3, 34% is not", () => {
    expect(percentAgrees(10, 30, 33.3, 1)).toBe(true);
    expect(percentAgrees(10, 30, 33, 0)).toBe(true);
    expect(percentAgrees(10, 30, 34, 0)).toBe(false);
  });
});

describe("consistency in the extraction (invented reports)", () => {
  // Family: outcome tables whose cells are means of one scale and whose neighbouring rows are of another.
  it("withholds a reading whose arms differ by more than 3 pooled SDs, and says why", () => {
    const table = pipeTable(
      "Table 2. Outcomes at 8 weeks",
      ["Outcome", "Quilastat (n = 30)", "Placebo (n = 30)"],
      [["Sleep quality index", "40.2 ± 3.1", "12.5 ± 2.9"]],
    );
    const r = ask(`Results.\n\n${table}`, "quilastat", "placebo", "sleep quality index");
    expect(r.intervention.mean).toBeNull();
    expect(r.reason?.intervention.mean).toMatch(/missing: consistency: the means differ by 9\.2 pooled SDs/);
    expect(r.candidates?.length).toBeGreaterThan(0);
  });

  it("gives the same table's reading when the difference is plausible", () => {
    const table = pipeTable(
      "Table 2. Outcomes at 8 weeks",
      ["Outcome", "Quilastat (n = 30)", "Placebo (n = 30)"],
      [["Sleep quality index", "10.2 ± 3.1", "12.5 ± 2.9"]],
    );
    const r = ask(`Results.\n\n${table}`, "quilastat", "placebo", "sleep quality index");
    expect(r.intervention).toMatchObject({ mean: 10.2, sd: 3.1, groupSize: 30 });
    expect(r.reason?.comparator.sd).toMatch(/consistency: .*difference within 3 pooled SDs/);
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
