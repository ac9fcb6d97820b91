/**
 * The ranking on a real review (../shared/screening/Sep_2021.csv: 271 records, 40 included):
 * screening in the model's order must find far more included records than screening in a random
 * order would (≈ 30 %). The full benchmark is bench/screening.mjs.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { buildScreeningCorpus, rankScreening, type ScreeningLabel } from "./index.ts";

const FILE = fileURLToPath(new URL("../../../../shared/screening/Sep_2021.csv", import.meta.url));
const HAS_DATA = existsSync(FILE);
const SKIP_MESSAGE = `shared screening data not found at ${FILE} (expected ../shared/screening next to the repo)`;

describe.skipIf(!HAS_DATA)("screening on Sep_2021 (real decisions)", () => {
  it("finds ≥ 55 % of the included records within the first 30 % screened", () => {
    const rows = Papa.parse<Record<string, string>>(readFileSync(FILE, "utf8"), {
      header: true,
      skipEmptyLines: true,
    }).data;
    const included = new Set(rows.filter((r) => r.label_included === "1").map((r) => r.record_id));
    const corpus = buildScreeningCorpus(rows.map((r) => ({ id: r.record_id, title: r.title, abstract: r.abstract })));
    const labels = new Map<string, ScreeningLabel>();
    labels.set(rows.find((r) => included.has(r.record_id))!.record_id, "include");
    labels.set(rows.find((r) => !included.has(r.record_id))!.record_id, "exclude");
    const budget = Math.round(0.3 * (rows.length - 2));
    let found = 0;
    for (let k = 0; k < budget; k++) {
      const result = rankScreening(corpus, labels);
      expect(result.mode).toBe("active");
      const next = result.ranked[0].id;
      const include = included.has(next);
      labels.set(next, include ? "include" : "exclude");
      if (include) found++;
    }
    expect(found / (included.size - 1)).toBeGreaterThanOrEqual(0.55);
  });
});

describe.skipIf(HAS_DATA)("screening on Sep_2021 (skipped)", () => {
  it.skip(SKIP_MESSAGE, () => {});
});
