#!/usr/bin/env node
/**
 * Issue 26 round 12 diagnosis (docs/methods/arm-extraction.md "Round 12"): artifacts of the report converter in the
 * open reports' tables, and the reference values of cvFolds folds A–C that sit in affected rows and cells.
 *
 *   node bench/arm-table-artifacts.mjs            aggregates for folds A–C (folds D and E are parsed, never printed)
 *   LIST=1 node bench/arm-table-artifacts.mjs     also lists folds A–C's placed values that are not given
 *
 * A value is placed in a table cell holding its number, in a row that also holds another reference value of the
 * question; its class follows `--recall`: given (right), c (the best reading has it, withheld), b (another reading
 * has it), lost (no reading has it); "-noreading" when the question has no reading at all. The locked part is never
 * read. The core is bundled with esbuild as in bench/arm-extraction.mjs.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FIELDS, FOLDS_FILE, loadCore, openFolds, productAndReadings, same, sharedParts } from "./lib/arm-data.mjs";
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const core = await loadCore();
const dev = resolve(root, "../shared/extraction-arms");
const { open } = sharedParts(dev);
const spec = JSON.parse(readFileSync(FOLDS_FILE, "utf8"));
const foldOf = new Map(
  openFolds(open, spec.cvFolds ?? 5).flatMap((f) => f.questions.map((q) => [q.pmcid, f.name.slice(-1)])),
);
const ALLOWED = new Set(["A", "B", "C"]);
const nums = (s) => (s.replace(/[−–]/g, "-").match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number);
const NEQ = /^\(?\s*n\s*=\s*\d+\s*\)?$/i;
const TIME =
  /\b(week|weeks|wk|month|months|day|days|year|years|baseline|follow[- ]?up|post|pre|visit|hour|hours|h|T\d|end of|discharge|month\s*\d+)\b/i;
/** Artifacts of one parsed table, per row and per cell. */
function artifacts(t) {
  const width = t.header[0]?.length ?? t.rows[0]?.length ?? 0;
  const labels = Array.from({ length: width }, (_, c) => core.columnLabel(t, c));
  const labelled = labels.map((l, c) => c > 0 && l !== "");
  const nLabelled = labelled.filter(Boolean).length;
  const table = new Set();
  // spanning header flattened: an upper header row with some labels and empty cells above labelled lower cells, to the right of its last label
  for (let h = 0; h < t.header.length - 1; h += 1) {
    const row = t.header[h];
    const lower = t.header[t.header.length - 1];
    const filled = row.map((c, i) => (i > 0 && c ? i : -1)).filter((i) => i > 0);
    if (filled.length && filled.length < lower.filter((c, i) => i > 0 && c).length) {
      const last = Math.max(...filled);
      if (lower.some((c, i) => i > last && c)) table.add("header-span-flattened");
    }
  }
  const lastH = t.header[t.header.length - 1];
  if (
    t.header.length >= 2 &&
    lastH[0] &&
    !/\d/.test(lastH[0]) &&
    lastH[width - 1] === "" &&
    lastH.filter(Boolean).length >= 2
  )
    table.add("header-row-packed-left");
  if (
    t.rows.length &&
    t.rows[0].slice(1).filter(Boolean).length >= 2 &&
    t.rows[0]
      .slice(1)
      .filter(Boolean)
      .every((c) => NEQ.test(c))
  )
    table.add("n-row-in-body");
  const rowArt = t.rows.map(() => new Set());
  const cellArt = t.rows.map((r) => r.map(() => new Set()));
  let section = "";
  t.rows.forEach((r, i) => {
    const vals = r.slice(1).filter(Boolean);
    if (vals.length === 0 && r[0]) {
      section = r[0];
      return;
    }
    if (section && TIME.test(section)) rowArt[i].add("section-timepoint");
    else if (section) rowArt[i].add("section-other");
    if (!r[0] && vals.some((v) => /\d/.test(v))) rowArt[i].add("empty-leading-cell");
    // round 13: the row's label spread over two or more leading cells (stub columns) before its values
    if (r[0] && r[1] && vals.filter((v) => /\d/.test(v)).length >= 2) {
      if (!/\d/.test(r[1])) rowArt[i].add("stub-second-label-column");
      else if (TIME.test(r[1]) && !/[(±]/.test(r[1])) rowArt[i].add("stub-second-column-time-number");
    }
    const used = r.map((c, k) => (k > 0 && c ? k : -1)).filter((k) => k > 0);
    if (used.some((k) => !labelled[k])) rowArt[i].add("value-under-unlabelled-column");
    if (
      i > 0 &&
      r[width - 1] === "" &&
      t.rows[i - 1][width - 1] !== "" &&
      vals.filter((v) => /\d/.test(v)).length >= 2
    ) {
      const shape = (x) =>
        /^[-−–]*\s*\d+$/.test(x)
          ? "int"
          : /^[-−–]*\s*\d*\.\d+$/.test(x)
            ? "dec"
            : /^[([].*[;,].*[)\]]$/.test(x)
              ? "ci"
              : /^[-−–]*\s*\d[\d.]*\s*%?\s*(\(|±)/.test(x)
                ? "stat"
                : /\d/.test(x)
                  ? "other"
                  : "text";
      const full = t.rows.filter((x) => x[width - 1] !== "");
      const misfit = r.some((x, k) => k > 0 && x && !full.some((f) => f[k] && shape(f[k]) === shape(x)));
      if (misfit) rowArt[i].add("short-row-shapes-misfit");
    }
    if (
      used.length &&
      nLabelled &&
      used.length < nLabelled &&
      used.every((k, j) => k === j + 1) &&
      vals.filter((v) => /\d/.test(v)).length >= 2
    )
      rowArt[i].add("row-fewer-cells-left-packed");
    r.forEach((c, k) => {
      if (k === 0 || !c) return;
      const open = (c.match(/[([]/g) ?? []).length,
        close = (c.match(/[)\]]/g) ?? []).length;
      if (open !== close) cellArt[i][k].add("statistic-split-over-cells");
      if (/(^|[\s([;,])--\s*\d/.test(c)) cellArt[i][k].add("double-hyphen-minus");
      if (/\d\s*(\([^()]*\d[^()]*\)|±\s*[\d.]+)\s*[;,/]?\s+-?\d[\d.]*\s*(\(|±)/.test(c))
        cellArt[i][k].add("two-statistics-one-cell");
      if (
        /^-?\d[\d.]*$/.test(c) &&
        /^\(?\s*(sd|se|sem|s\.d\.)\s*\)?$/i.test(labels[k + 1] ?? "") === false &&
        /\(\s*(sd|se|sem)\s*\)\s*$/i.test(labels[k]) &&
        r[k + 1] &&
        /^\(?-?\d[\d.]*\)?$/.test(r[k + 1])
      )
        cellArt[i][k].add("mean-sd-split-header-one");
    });
  });
  return { table, rowArt, cellArt };
}
const counts = new Map();
const bump = (key, cls) => {
  const t = counts.get(key) ?? {};
  t[cls] = (t[cls] ?? 0) + 1;
  counts.set(key, t);
};
const tableCounts = new Map();
const cache = new Map();
const list = process.env.LIST === "1";
let qs = 0,
  vals = 0;
for (const q of open) {
  const letter = foldOf.get(q.pmcid);
  let entry = cache.get(q.pmcid);
  if (!entry) {
    const text = readFileSync(join(dev, "reports", `${q.pmcid}.md`), "utf8");
    const report = core.parseReport(text, "markdown");
    entry = { text, report, arts: report.tables.map(artifacts) };
    cache.set(q.pmcid, entry);
    for (const a of entry.arts) {
      const kinds = new Set([
        ...a.table,
        ...a.rowArt.flatMap((s) => [...s]),
        ...a.cellArt.flatMap((r) => r.flatMap((s) => [...s])),
      ]);
      for (const k of kinds) tableCounts.set(`${letter}|${k}`, (tableCounts.get(`${letter}|${k}`) ?? 0) + 1);
      tableCounts.set(`${letter}|tables`, (tableCounts.get(`${letter}|tables`) ?? 0) + 1);
    }
  }
  const { report, arts } = entry;
  const { product, readings, best } = productAndReadings(core, report, q);
  const type = q.reference.outcomeType;
  qs += 1;
  const refs = [];
  for (const arm of ["intervention", "comparator"])
    for (const f of FIELDS[type]) {
      const v = q.reference[arm][f];
      if (v !== null && v !== undefined) refs.push({ arm, f, v });
    }
  const qArts = new Set();
  for (const r of refs) {
    let cls;
    if (same(r.v, product[r.arm][r.f])) cls = "given";
    else if (same(r.v, best[r.arm][r.f])) cls = "c";
    else if (readings.some((x) => same(r.v, x[r.arm][r.f]))) cls = "b";
    else cls = "lost";
    if (!readings.length && cls !== "given") cls = cls === "c" ? "c-noreading" : "lost-noreading";
    // locate: cells holding the value in rows holding another reference value of the question
    const found = new Set();
    report.tables.forEach((t, ti) =>
      t.rows.forEach((row, i) =>
        row.forEach((cell, k) => {
          if (k === 0 || !nums(cell).some((x) => same(r.v, x))) return;
          const rowNums = row.slice(1).flatMap(nums);
          const others = refs.filter((o) => o !== r && rowNums.some((x) => same(o.v, x)));
          if (others.length === 0) return;
          const a = arts[ti];
          for (const k2 of [...a.table, ...a.rowArt[i], ...a.cellArt[i][k]]) found.add(k2);
          found.add("in-table");
        }),
      ),
    );
    vals += 1;
    const kinds = found.size ? [...found] : ["not-in-a-table-row"];
    for (const k of kinds) {
      bump(`${letter}|${type}|${k}`, cls);
      qArts.add(k);
    }
    if (list && ALLOWED.has(letter) && cls !== "given" && found.size > 1)
      console.log(
        `[${letter}] ${cls} ${q.id} ${q.pmcid} ${type} ${r.arm}.${r.f} ref ${r.v} {${[...found].filter((k) => k !== "in-table").join(",")}} [${q.outcome}]`,
      );
  }
  for (const k of qArts) bump(`${letter}|${type}|Q|${k}`, readings.length ? "q-reading" : "q-noreading");
}
const kinds = [
  ...new Set([...counts.keys()].map((k) => k.split("|").slice(2).join("|")).filter((k) => !k.startsWith("Q|"))),
].sort();
const classes = ["given", "c", "b", "lost", "c-noreading", "lost-noreading"];
const folds = ["A", "B", "C"];
console.log(`open part: ${qs} questions, ${vals} reference values; printed: folds ${folds}`);
for (const type of ["binary", "continuous", "both"]) {
  console.log(`== ${type}: values by class, and questions (with reading / none)`);
  console.log("artifact".padEnd(34) + classes.map((c) => c.padStart(15)).join("") + "   q-reading q-noreading");
  for (const k of kinds) {
    const types = type === "both" ? ["binary", "continuous"] : [type];
    const sum = (key, c) =>
      folds.flatMap((l) => types.map((ty) => counts.get(`${l}|${ty}|${key}`)?.[c] ?? 0)).reduce((a, b) => a + b, 0);
    console.log(
      k.padEnd(34) +
        classes.map((c) => String(sum(k, c)).padStart(15)).join("") +
        String(sum(`Q|${k}`, "q-reading")).padStart(12) +
        String(sum(`Q|${k}`, "q-noreading")).padStart(12),
    );
  }
}
console.log("== tables per artifact (folds)");
const tk = [...new Set([...tableCounts.keys()].map((k) => k.split("|")[1]))].sort();
for (const k of tk)
  console.log(k.padEnd(34) + folds.map((l) => String(tableCounts.get(`${l}|${k}`) ?? 0).padStart(6)).join(""));
