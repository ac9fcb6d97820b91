// Shared by bench/screening.mjs and bench/stopping.mjs: the product's screening core bundled for
// plain node, SYNERGY-style CSVs, and the seeded prior pairs of the simulations.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Papa from "papaparse";
import { importBundled, mulberry32 } from "./bundled.mjs";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const SHARED = path.resolve(root, "../shared/screening");
export const DEFAULT_FILES = ["Sep_2021.csv", "Meijboom_2021.csv", "Nagtegaal_2019.csv"].map((f) =>
  path.join(SHARED, f),
);

/** app/lib/screening bundled with esbuild and imported (the exact code the product runs). */
export function loadScreening() {
  return importBundled(path.join(root, "app/lib/screening/index.ts"), { platform: "neutral" });
}

/** CSV columns record_id (or id), title, abstract, label_included (1/0) → [{id, title, abstract, included}]. */
export function readDataset(file) {
  const parsed = Papa.parse(readFileSync(file, "utf8"), { header: true, skipEmptyLines: true });
  if (parsed.errors.length) throw new Error(`${file}: ${parsed.errors[0].message} (row ${parsed.errors[0].row})`);
  const records = parsed.data.map((r, i) => {
    const label = String(r.label_included ?? r.included ?? "").trim();
    if (label !== "0" && label !== "1")
      throw new Error(`${file}: row ${i + 2} has label_included ${JSON.stringify(label)}`);
    return {
      id: String(r.record_id ?? r.id ?? i + 1),
      title: r.title ?? "",
      abstract: r.abstract ?? "",
      included: label === "1",
    };
  });
  const included = records.filter((r) => r.included).length;
  if (included < 2 || included === records.length)
    throw new Error(`${file}: needs ≥ 2 included and ≥ 1 excluded record`);
  return records;
}

/** mulberry32 (bench/lib/bundled.mjs): the same prior pairs on every run. */
export const rng = mulberry32;

/** `seeds` pairs [included row, excluded row], seeded (seed s uses 20261125 + 7919 s). */
export function priorPairs(records, seeds) {
  const inc = records.flatMap((r, i) => (r.included ? [i] : []));
  const exc = records.flatMap((r, i) => (r.included ? [] : [i]));
  return Array.from({ length: seeds }, (_, s) => {
    const rand = rng(20261125 + s * 7919);
    return [inc[Math.floor(rand() * inc.length)], exc[Math.floor(rand() * exc.length)]];
  });
}
