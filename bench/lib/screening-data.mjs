// Shared by bench/screening.mjs and bench/stopping.mjs: the product's screening core bundled for
// plain node, SYNERGY-style CSVs, and the seeded prior pairs of the simulations.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import Papa from "papaparse";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const SHARED = path.resolve(root, "../shared/screening");
export const DEFAULT_FILES = ["Sep_2021.csv", "Meijboom_2021.csv", "Nagtegaal_2019.csv"].map((f) =>
  path.join(SHARED, f),
);

/** app/lib/screening bundled with esbuild and imported (the exact code the product runs). */
export async function loadScreening() {
  const dir = mkdtempSync(path.join(tmpdir(), "bench-screening-"));
  const out = path.join(dir, "screening.mjs");
  try {
    await build({
      entryPoints: [path.join(root, "app/lib/screening/index.ts")],
      bundle: true,
      format: "esm",
      platform: "neutral",
      outfile: out,
      logLevel: "silent",
    });
    return await import(pathToFileURL(out).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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

/** mulberry32: the same prior pairs on every run. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `seeds` pairs [included row, excluded row], seeded (seed s uses 20261125 + 7919 s). */
export function priorPairs(records, seeds) {
  const inc = records.flatMap((r, i) => (r.included ? [i] : []));
  const exc = records.flatMap((r, i) => (r.included ? [] : [i]));
  return Array.from({ length: seeds }, (_, s) => {
    const rand = rng(20261125 + s * 7919);
    return [inc[Math.floor(rand() * inc.length)], exc[Math.floor(rand() * exc.length)]];
  });
}
