import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { extractArms, parseReport } from "./index.ts";

const DIR = resolve(__dirname, "../../../../shared/extraction-arms");
const present = existsSync(join(DIR, "dev.jsonl"));

interface Arm {
  events: number | null;
  groupSize: number | null;
  mean: number | null;
  sd: number | null;
}

/**
 * Integration test over the 10 development reports of ../shared/extraction-arms (markdown, as the
 * bench reads them). It guards the value precision (a blank beats a wrong number) and that the
 * extractor keeps finding data; figures against the targets come from bench/arm-extraction.mjs.
 */
describe.skipIf(!present)("arm extraction on the development reports", () => {
  it("gives mostly right values and finds arm data in most reports", () => {
    const lines = readFileSync(join(DIR, "dev.jsonl"), "utf8").trim().split("\n");
    let given = 0;
    let right = 0;
    let exact = 0;
    const reports = new Set<string>();
    for (const line of lines) {
      const q = JSON.parse(line) as {
        pmcid: string;
        intervention: string;
        comparator: string;
        outcome: string;
        reference: { outcomeType: string; intervention: Arm; comparator: Arm };
      };
      const report = parseReport(readFileSync(join(DIR, "reports", `${q.pmcid}.md`), "utf8"), "markdown");
      const result = extractArms(report, q);
      let all = true;
      const fields =
        q.reference.outcomeType === "binary"
          ? (["events", "groupSize"] as const)
          : (["mean", "sd", "groupSize"] as const);
      for (const arm of ["intervention", "comparator"] as const) {
        for (const field of ["events", "groupSize", "mean", "sd"] as const) {
          const got = result[arm][field];
          const ref = q.reference[arm][field];
          if (got !== null) {
            given += 1;
            if (ref !== null && Math.abs(got - ref) < 0.005) right += 1;
            else all = false;
            reports.add(q.pmcid);
          } else if (ref !== null && (fields as readonly string[]).includes(field)) all = false;
        }
      }
      if (all) exact += 1;
    }
    // Precision first (ADR 0044): a value only when its calibrated probability reaches the threshold (these reports are
    // part of the data it was fitted on), so few exact answers and no wrong value.
    expect(right / given).toBeGreaterThanOrEqual(0.95);
    expect(exact).toBeGreaterThanOrEqual(7);
    expect(reports.size).toBeGreaterThanOrEqual(3);
  });
});
describe.skipIf(present)("arm extraction on the development reports", () => {
  it.skip("skipped: ../shared/extraction-arms not found (the development set lives outside the repo)", () => {});
});
