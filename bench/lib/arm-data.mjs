// The arm-level benches' shared data and core (bench/arm-extraction.mjs, bench/arm-table-artifacts.mjs):
// the open and locked parts of ../shared/extraction-arms, the open part's cross-validation folds and the
// pure core bundled for Node, so every bench deals the same reports into the same folds.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importBundled, mulberry32 } from "./bundled.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The locked part's pmcids (seed, method and every locked run): bench/arm-extraction-split.json. */
export const SPLIT_FILE = join(root, "bench/arm-extraction-split.json");
/** The open part's cross-validation folds (seed, `folds`, `cvFolds`): bench/arm-extraction-folds.json. */
export const FOLDS_FILE = join(root, "bench/arm-extraction-folds.json");

/**
 * The JSON objects of a JSON-lines file, one per line; a byte-order mark, CRLF line ends and blank lines are allowed.
 * @throws Error naming the file and line number of a line that is not JSON.
 */
export function readJsonl(file) {
  return readFileSync(file, "utf8")
    .replace(/^\uFEFF/, "")
    .split("\n")
    .map((line, k) => ({ line, k }))
    .filter(({ line }) => line.trim())
    .map(({ line, k }) => {
      try {
        return JSON.parse(line);
      } catch (error) {
        throw new Error(`${file} line ${k + 1} is not JSON: ${error.message}`);
      }
    });
}

/**
 * Questions of `dir`/dev.jsonl and `dir`/train.jsonl (train ids prefixed "t"), partitioned by the locked
 * pmcids of SPLIT_FILE: `{split, open, openTrain (open without the dev reports), locked}`.
 * @throws when a file is missing or a line is not JSON.
 */
export function sharedParts(dir) {
  const split = JSON.parse(readFileSync(SPLIT_FILE, "utf8"));
  const locked = new Set(split.locked);
  const dev = readJsonl(join(dir, "dev.jsonl"));
  const all = [...dev, ...readJsonl(join(dir, "train.jsonl")).map((q) => ({ ...q, id: `t${q.id}` }))];
  const devIds = new Set(dev.map((q) => q.pmcid));
  const open = all.filter((q) => !locked.has(q.pmcid));
  return {
    split,
    open,
    openTrain: open.filter((q) => !devIds.has(q.pmcid)),
    locked: all.filter((q) => locked.has(q.pmcid)),
  };
}

/**
 * Cross-validation folds inside the open part (FOLDS_FILE: seed and fold count, `count` overriding it):
 * the sorted open pmcids, Fisher–Yates shuffled by mulberry32(seed), dealt round-robin into the folds.
 * Returns `[{name: "fold A", questions}]`. A rule is built while looking at some folds and judged on the others.
 */
export function openFolds(open, count) {
  const spec = JSON.parse(readFileSync(FOLDS_FILE, "utf8"));
  if (count) spec.folds = count;
  const ids = [...new Set(open.map((q) => q.pmcid))].sort();
  const rand = mulberry32(spec.seed);
  for (let i = ids.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rand() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  const folds = Array.from({ length: spec.folds }, () => new Set());
  ids.forEach((id, i) => folds[i % spec.folds].add(id));
  return folds.map((set, k) => ({
    name: `fold ${String.fromCharCode(65 + k)}`,
    questions: open.filter((q) => set.has(q.pmcid)),
  }));
}

/** The pure arm-level core (app/lib/arms/index.ts) bundled with esbuild and imported: its exports. */
export function loadCore() {
  return importBundled(join(root, "app/lib/arms/index.ts"));
}

/**
 * The product's answer to question `q` on a parsed `report`, and every candidate reading with evidence items and
 * hard checks off (best first, as `--recall` classes lost values): `{product, readings, best}`, `best` being the
 * first reading or, with none, the raw answer.
 */
export function productAndReadings(core, report, q) {
  const question = { intervention: q.intervention, comparator: q.comparator, outcome: q.outcome };
  const product = core.extractArms(report, question);
  const readings = [];
  const fallback = core.extractArms(report, question, { abstainBelow: 0, withholdInconsistent: false, readings });
  return { product, readings, best: readings[0] ?? fallback };
}

/** A value equals the reference (both absent, or within 0.005 and a relative 1e-6). */
export const same = (a, b) =>
  a === null || a === undefined
    ? b === null || b === undefined
    : b !== null && b !== undefined && Math.abs(a - b) < 1e-6 * Math.max(1, Math.abs(a)) + 0.005;

/** The reference fields scored per outcome type. */
export const FIELDS = { binary: ["events", "groupSize"], continuous: ["mean", "sd", "groupSize"] };
