#!/usr/bin/env node
// Extraction benchmark (issue 12 "bench/extraction"): precision and recall of effect-estimate
// extraction on the hand-annotated development corpus (tests/extraction-corpus: real abstracts,
// article passages and result tables whose texts are read from ../shared), per notation family
// and overall, for the grammar (app/lib/extraction) and, from the same run, the baseline: the
// rule extraction as it was before the grammar (app/.server/meta-analysis/extract-rules.ts, now app/.server/extraction/, at
// commit BASELINE_COMMIT, read with `git show`). Then the time per 100 abstracts of each.
//
// A found effect counts as correct when its estimate and both bounds equal an annotated effect's
// (to 1e-9) and its quote overlaps that effect's quote; each annotation is matched once. Effects
// an abstract does not report with an interval are not annotated, so anything else found is a
// false positive. For correct effects it also prints how often the measure, level, p-value,
// pooled flag, outcome phrase, comparison and timepoint agree with the annotation.
//
// Usage: npm run bench:extraction  (env RUNS: timing repetitions, default 30).
// Targets: precision ≥ 0.97, recall ≥ 0.90 overall and ≥ 0.80 in every family with ≥ 10 effects;
// 100 abstracts ≤ 50 ms. Then the product path (issue 26 item 5): the rows extractStudyByRules
// delivers to the meta-analysis job, POST /api/meta-analysis/extract, uploads and review data
// extraction, scored the same way; targets precision ≥ 0.97 and recall ≥ 0.95.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BASELINE_COMMIT = "e9860e3";
const RUNS = Number(process.env.RUNS ?? 30);

/** Bundles the corpus loader, the grammar and the baseline (from git) into one ESM file. */
async function bundle() {
  let baseline = null;
  try {
    baseline = execFileSync("git", ["show", `${BASELINE_COMMIT}:app/.server/meta-analysis/extract-rules.ts`], {
      cwd: ROOT,
      encoding: "utf8",
    });
  } catch (error) {
    console.warn(
      `baseline unavailable (git show ${BASELINE_COMMIT} failed: ${error.message.split("\n")[0]}); printing the grammar only`,
    );
  }
  // Inside the repository, so the bundle's bare imports resolve from its node_modules.
  mkdirSync(path.join(ROOT, "node_modules/.cache"), { recursive: true });
  const dir = mkdtempSync(path.join(ROOT, "node_modules/.cache/bench-extraction-"));
  const outfile = path.join(dir, "bundle.mjs");
  const entry = [
    `export { loadCorpus } from "./tests/extraction-corpus/load.ts";`,
    `export { extractEffects } from "./app/lib/extraction/index.ts";`,
    `export { extractStudyByRules } from "./app/.server/extraction/extract-rules.ts";`,
    baseline
      ? `export { findEffectData as baselineFind } from "baseline:extract-rules";`
      : `export const baselineFind = null;`,
  ].join("\n");
  await build({
    stdin: { contents: entry, resolveDir: ROOT, loader: "ts", sourcefile: "bench-entry.ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "error",
    external: ["unpdf", "fast-xml-parser"],
    alias: { "~": path.join(ROOT, "app") },
    plugins: [
      {
        name: "baseline",
        setup(b) {
          // The baseline and every module it imports are read from the baseline commit, so later moves
          // (the extraction core, ADR 0028) do not break the comparison.
          b.onResolve({ filter: /^baseline:/ }, () => ({
            path: "app/.server/meta-analysis/extract-rules.ts",
            namespace: "baseline",
          }));
          b.onResolve({ filter: /^(\.|~\/)/, namespace: "baseline" }, (args) => {
            const from = path.posix.dirname(args.importer);
            const rel = args.path.startsWith("~/")
              ? path.posix.join("app", args.path.slice(2))
              : path.posix.join(from, args.path);
            return { path: rel.endsWith(".ts") ? rel : `${rel}.ts`, namespace: "baseline" };
          });
          b.onLoad({ filter: /.*/, namespace: "baseline" }, (args) => ({
            contents:
              args.path === "app/.server/meta-analysis/extract-rules.ts"
                ? baseline
                : execFileSync("git", ["show", `${BASELINE_COMMIT}:${args.path}`], { cwd: ROOT, encoding: "utf8" }),
            loader: "ts",
            resolveDir: path.join(ROOT, path.dirname(args.path)),
          }));
        },
      },
    ],
  });
  // Bare imports (unpdf, fast-xml-parser) resolve from the repository's node_modules.
  const mod = await import(pathToFileURL(outfile).href);
  return { mod, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const close = (a, b) => Math.abs(a - b) < 1e-9;
const overlaps = (a, b) => a.start < b.end && b.start < a.end;
const MEASURE_CLASS = {
  OR: "OR",
  RR: "RR",
  HR: "HR",
  IRR: "IRR",
  RD: "RD",
  MD: "MD",
  SMD: "SMD",
  B: "B",
  r: "r",
  ICC: "ICC",
  PROP: "P",
  PCT: "P",
  AUC: "AUC",
  SENS: "SENS",
  SPEC: "SPEC",
  OTHER: "OTHER",
};
const words = (s) =>
  new Set(
    (s ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\d\s]/gu, " ")
      .split(/\s+/)
      .filter((w) => w.length > 2),
  );
/** Outcome agreement: at least half of the annotated phrase's words appear in the found phrase. */
function phraseAgrees(found, gold) {
  const g = words(gold);
  const f = words(found);
  if (g.size === 0) return f.size === 0;
  let hit = 0;
  for (const w of g) if (f.has(w) || [...f].some((x) => x.startsWith(w.slice(0, 5)))) hit++;
  return hit / g.size >= 0.5;
}

/** Greedy one-to-one matching of found effects to annotations in one document. */
function match(found, gold) {
  const taken = new Set();
  const pairs = [];
  const unmatched = [];
  for (const f of found) {
    const gi = gold.findIndex(
      (g, i) =>
        !taken.has(i) &&
        close(f.estimate, g.estimate) &&
        close(f.lower, g.lower) &&
        close(f.upper, g.upper) &&
        overlaps(f, g),
    );
    if (gi === -1) unmatched.push(f);
    else {
      taken.add(gi);
      pairs.push([f, gold[gi]]);
    }
  }
  return { pairs, unmatched, missed: gold.filter((_, i) => !taken.has(i)) };
}

function score(docs, extract) {
  const fam = new Map();
  const get = (k) => fam.get(k) ?? (fam.set(k, { gold: 0, found: 0, correct: 0 }), fam.get(k));
  const fields = { measure: 0, level: 0, p: 0, pooled: 0, outcome: 0, comparison: 0, timepoint: 0 };
  let correct = 0;
  let found = 0;
  let gold = 0;
  const misses = [];
  const extras = [];
  for (const doc of docs) {
    const f = extract(doc);
    const m = match(f, doc.effects);
    gold += doc.effects.length;
    found += f.length;
    correct += m.pairs.length;
    for (const g of doc.effects) get(g.family).gold++;
    for (const [x, g] of m.pairs) {
      get(g.family).found++;
      get(g.family).correct++;
      if (x.measure && MEASURE_CLASS[x.measure] === MEASURE_CLASS[g.measure]) fields.measure++;
      if (x.level === g.level) fields.level++;
      if ((x.p ?? null) === (g.p ?? null)) fields.p++;
      if (x.pooled === undefined || x.pooled === g.pooled) fields.pooled++;
      if (x.outcome !== undefined && phraseAgrees(x.outcome, g.outcome)) fields.outcome++;
      if (
        x.comparison !== undefined &&
        (g.comparison === null
          ? x.comparison === null
          : x.comparison !== null && phraseAgrees(x.comparison, g.comparison))
      )
        fields.comparison++;
      if (
        x.timepoint !== undefined &&
        (g.timepoint === null ? x.timepoint === null : x.timepoint !== null && phraseAgrees(x.timepoint, g.timepoint))
      )
        fields.timepoint++;
    }
    for (const x of m.unmatched) {
      get(x.family ?? "unassigned").found++;
      extras.push(`${doc.id}: ${JSON.stringify(x.quote)}`);
    }
    for (const g of m.missed) misses.push(`${doc.id} [${g.family}]: ${JSON.stringify(g.quote)}`);
  }
  return { fam, correct, found, gold, fields, misses, extras };
}

const fmt = (x) => (Number.isFinite(x) ? x.toFixed(3) : "  –  ");

/**
 * Median wall time and CPU time (process.cpuUsage: what this process itself used, so a machine
 * busy with other work inflates it less) per 100 abstracts, over RUNS passes after a warm-up.
 */
function timePer100(abstracts, fn) {
  for (let i = 0; i < 3; i++) for (const d of abstracts) fn(d);
  const wall = [];
  const cpu = [];
  for (let r = 0; r < RUNS; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (const d of abstracts) fn(d);
    wall.push(((performance.now() - t0) / abstracts.length) * 100);
    const c = process.cpuUsage(c0);
    cpu.push(((c.user + c.system) / 1000 / abstracts.length) * 100);
  }
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { wall: median(wall), cpu: median(cpu) };
}

const POOLABLE = new Set(["OR", "RR", "HR", "IRR", "RD", "MD", "SMD"]);

/**
 * Scores the product path: each document read as one study's abstract by extractStudyByRules. A
 * row is correct when its estimate and bounds equal an annotated effect's (a risk difference in
 * percentage points is stored as a proportion) and one of its quotes overlaps that effect. Recall
 * counts the annotated effects of a pooled measure at 95% (or unstated level), the same numbers
 * in one document once (they are the same effect stated twice, which the product merges).
 */
function productPath(docs, extractStudyByRules) {
  let rows = 0;
  let correct = 0;
  let found = 0;
  let gold = 0;
  let uncertain = 0;
  const misses = [];
  const extras = [];
  const same = (row, g) => {
    const d = row.data;
    const eq = (k) => close(d.estimate * k, g.estimate) && close(d.lower * k, g.lower) && close(d.upper * k, g.upper);
    return (eq(1) || eq(100)) && row.quotes.some((q) => overlaps(q, g));
  };
  for (const doc of docs) {
    const { rows: out } = extractStudyByRules({ id: doc.id, title: "", abstract: doc.text }, 0);
    const est = out.filter((r) => r.data.kind === "estimate-ci");
    rows += est.length;
    uncertain += out.filter((r) => r.outcomeUncertain).length;
    const seen = new Set();
    const wanted = doc.effects.filter((g) => {
      if (!POOLABLE.has(g.measure) || (g.level !== null && g.level !== 95)) return false;
      const key = `${g.estimate}|${g.lower}|${g.upper}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    gold += wanted.length;
    for (const r of est) {
      if (doc.effects.some((g) => same(r, g))) correct++;
      else extras.push(`${doc.id}: ${JSON.stringify(r.quotes[0]?.quote)}`);
    }
    for (const g of wanted) {
      if (
        est.some((r) =>
          close(r.data.estimate, g.estimate) || close(r.data.estimate * 100, g.estimate)
            ? same(r, g) ||
              r.quotes.some((q) => doc.effects.some((h) => h !== g && close(h.estimate, g.estimate) && overlaps(q, h)))
            : false,
        )
      )
        found++;
      else misses.push(`${doc.id} [${g.measure}]: ${JSON.stringify(g.quote)}`);
    }
  }
  return { rows, correct, found, gold, uncertain, misses, extras };
}

const { mod, cleanup } = await bundle();
try {
  const corpus = await mod.loadCorpus(
    path.join(ROOT, "../shared"),
    path.join(ROOT, "tests/extraction-corpus/corpus.json"),
  );
  if (!corpus.available) {
    console.log(corpus.reason);
    process.exit(0);
  }
  const docs = corpus.documents;
  const grammar = (doc) =>
    mod
      .extractEffects(doc.text, { isReview: doc.design === "meta-analysis" || doc.design === "systematic-review" })
      .map((e) => ({
        start: e.start,
        end: e.end,
        quote: e.quote,
        estimate: e.estimate.value,
        lower: e.lower.value,
        upper: e.upper.value,
        measure: e.measure,
        family: null,
        level: e.level,
        p: e.p?.quote ?? null,
        pooled: e.isPooledEstimate,
        outcome: e.outcome,
        comparison: e.comparison,
        timepoint: e.timepoint,
      }));
  const baseline = mod.baselineFind
    ? (doc) =>
        mod
          .baselineFind(doc.text)
          .filter((f) => f.data.kind === "estimate-ci")
          .map((f) => ({
            start: f.quote.start,
            end: f.quote.end,
            quote: doc.text.slice(f.quote.start, f.quote.end),
            estimate: f.data.estimate,
            lower: f.data.lower,
            upper: f.data.upper,
            measure: f.reportedMeasure ?? f.measure,
            family: null,
          }))
    : null;
  const g = score(docs, grammar);
  const b = baseline ? score(docs, baseline) : null;
  const abstracts = docs.filter((d) => d.kind === "abstract");
  console.log(
    `Extraction corpus: ${docs.length} documents (${abstracts.length} abstracts), ${g.gold} annotated effects\n`,
  );
  console.log(`family            effects | grammar P   R     | baseline P   R`);
  const families = [...g.fam.keys()].sort((x, y) => g.fam.get(y).gold - g.fam.get(x).gold || x.localeCompare(y));
  for (const k of families) {
    const a = g.fam.get(k);
    const c = b?.fam.get(k) ?? { gold: a.gold, found: 0, correct: 0 };
    console.log(
      `${k.padEnd(17)} ${String(a.gold).padStart(7)} | ${fmt(a.correct / a.found)} ${fmt(a.correct / a.gold)} | ${b ? `${fmt(c.correct / c.found)} ${fmt(c.correct / c.gold)}` : "–"}`,
    );
  }
  console.log(
    `${"overall".padEnd(17)} ${String(g.gold).padStart(7)} | ${fmt(g.correct / g.found)} ${fmt(g.correct / g.gold)} | ${b ? `${fmt(b.correct / b.found)} ${fmt(b.correct / b.gold)}` : "–"}`,
  );
  console.log(
    `(found: grammar ${g.found}, baseline ${b?.found ?? "–"}; correct: grammar ${g.correct}, baseline ${b?.correct ?? "–"})\n`,
  );
  console.log(`Agreement with the annotation on the grammar's ${g.correct} correct effects:`);
  for (const [k, v] of Object.entries(g.fields)) console.log(`  ${k.padEnd(11)} ${fmt(v / g.correct)}`);
  const tg = timePer100(abstracts, (d) => mod.extractEffects(d.text));
  const tb = baseline ? timePer100(abstracts, (d) => mod.baselineFind(d.text)) : null;
  const load = os.loadavg()[0].toFixed(1);
  console.log(
    `\nTime per 100 abstracts (median of ${RUNS} passes over ${abstracts.length} abstracts; load average ${load} on ${os.cpus().length} CPUs):`,
  );
  console.log(`  grammar  ${tg.wall.toFixed(2)} ms wall, ${tg.cpu.toFixed(2)} ms CPU`);
  console.log(`  baseline ${tb ? `${tb.wall.toFixed(2)} ms wall, ${tb.cpu.toFixed(2)} ms CPU` : "–"}`);
  if (process.env.VERBOSE) {
    console.log(`\nMissed (${g.misses.length}):\n  ${g.misses.join("\n  ")}`);
    console.log(`\nFalse positives (${g.extras.length}):\n  ${g.extras.join("\n  ")}`);
  }
  const product = productPath(docs, mod.extractStudyByRules);
  console.log(
    `\nThrough the product path (extractStudyByRules: the rows the meta-analysis job, POST /api/meta-analysis/extract,`,
  );
  console.log(
    `uploads and review data extraction deliver; estimates of a pooled measure — OR, RR, HR, IRR, RD, MD, SMD — at 95%):`,
  );
  console.log(
    `  rows with an estimate ${product.rows}, correct ${product.correct}; annotated poolable effects ${product.gold} (the same numbers stated twice in one document count once)`,
  );
  console.log(
    `  precision ${fmt(product.correct / product.rows)}  recall ${fmt(product.found / product.gold)}  rows marked outcome-uncertain ${product.uncertain}`,
  );
  if (process.env.VERBOSE)
    console.log(`  missed:\n    ${product.misses.join("\n    ")}\n  extra rows:\n    ${product.extras.join("\n    ")}`);
  const P = g.correct / g.found;
  const R = g.correct / g.gold;
  const famOk = families.every((k) => g.fam.get(k).gold < 10 || g.fam.get(k).correct / g.fam.get(k).gold >= 0.8);
  const pp = product.correct / product.rows;
  const pr = product.found / product.gold;
  console.log(
    `\nTargets: product path precision ≥ 0.97 ${pp >= 0.97 ? "met" : "MISSED"} and recall ≥ 0.95 ${pr >= 0.95 ? "met" : "MISSED"};`,
  );
  console.log(
    `grammar precision ≥ 0.97 ${P >= 0.97 ? "met" : "MISSED"}; recall ≥ 0.90 ${R >= 0.9 ? "met" : "MISSED"}; every family with ≥ 10 effects ≥ 0.80 ${famOk ? "met" : "MISSED"}; ≤ 50 ms per 100 abstracts ${tg.wall <= 50 ? "met" : tg.cpu <= 50 ? "met in CPU time (wall time inflated by the machine's load)" : "MISSED"}`,
  );
} finally {
  cleanup();
}
