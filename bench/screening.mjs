#!/usr/bin/env node
// Screening-prioritisation benchmark (issues 13 and 27): simulated title/abstract screening with
// the product's ranking (app/lib/screening, bundled with esbuild so plain `node` runs it) and, in
// the same run on the same prior pairs, two reimplemented ASReview references
// (bench/lib/asreview-baseline.mjs): ELAS u4, ASReview 2/3's default (TF-IDF 1–2-grams + linear
// SVM, Balanced 9.8), and classic, ASReview 1's default (TF-IDF + Naive Bayes α 3.822, double
// balance).
//
// Simulation (Ferdinands et al. 2023; ../shared/screening/README.md): each seed starts from one
// random included and one random excluded record, then repeatedly screens the top-ranked record,
// reveals its label and retrains (every model is retrained after every decision). A seed stops
// once every included record has been found. Metrics, the two prior records removed
// (N = records − 2, R = included − 1), means over seeds:
//   WSS@95  = recall − k/N at the first k where recall ≥ 95 %, in %;
//   WSS@100 = 1 − k/N at the k where the last included record is found, in %;
//   RRF@10  = recall after screening ⌈0.1 N⌉ records, in %;
//   ATD     = mean over the R records of (position found ÷ N), in % (lower is better).
//
// Candidates (the product's model choices, rankScreening's `model` and the corpus's FeatureOptions)
// are cross-validated leave-one-review-out: for each review, the candidate with the best mean
// WSS@95 on the other reviews is chosen and scored on the held-out review. The chosen candidate is
// kept only if it beats the previous product model ("nb") on the reviews it was not tuned on.
//
// Usage: node bench/screening.mjs                 shared reviews: tables, LOO, retrain timing
//        node bench/screening.mjs --json A.csv …   one JSON line per file (the shared three if none)
// CSV columns: record_id (or id), title, abstract, label_included (1/0). Env SEEDS (default 5),
// CANDIDATES (comma-separated names; default all), TIMING=0 skips the 2,000/20,000-record timing,
// REFERENCES=0 skips the ASReview replicas (--json only; for ablation runs), TIMING_ONLY=1 runs only
// the timing.
import { existsSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { baselineFeatures, classicNext, elasU4Features, elasU4Next } from "./lib/asreview-baseline.mjs";
import { DEFAULT_FILES, loadScreening, priorPairs, readDataset, rng } from "./lib/screening-data.mjs";

const SEEDS = Math.max(1, Number(process.env.SEEDS ?? 5));

/** Product candidates: a classifier and corpus feature settings (over DEFAULT_FEATURES). */
const ALL_CANDIDATES = [
  { name: "nb", model: "nb", features: {} },
  { name: "svm", model: "svm", features: {} },
  { name: "ensemble", model: "ensemble", features: {} },
  { name: "svm+bigrams", model: "svm", features: { bigrams: true } },
  { name: "ensemble+bigrams", model: "ensemble", features: { bigrams: true } },
  { name: "nb-plain", model: "nb", features: { titleWeight: 1, sublinearTf: false } },
  { name: "ensemble-plain", model: "ensemble", features: { titleWeight: 1, sublinearTf: false } },
];
const wanted = process.env.CANDIDATES?.split(",").map((s) => s.trim());
const CANDIDATES = wanted ? ALL_CANDIDATES.filter((c) => wanted.includes(c.name)) : ALL_CANDIDATES;

/** Positions (1-based, priors excluded) at which the included records were screened. */
function simulate(records, pair, next) {
  const total = records.filter((r) => r.included).length - 1;
  const labelled = new Map(pair.map((row) => [row, records[row].included ? 1 : 0]));
  const order = [...pair];
  const found = [];
  let position = 0;
  while (found.length < total) {
    const row = next(labelled, order);
    position++;
    labelled.set(row, records[row].included ? 1 : 0);
    order.push(row);
    if (records[row].included) found.push(position);
  }
  return found;
}

function metrics(found, records) {
  const n = records.length - 2;
  const r = found.length;
  const k95 = Math.ceil(0.95 * r);
  const wss95 = (k95 / r - found[k95 - 1] / n) * 100;
  const wss100 = (1 - found[r - 1] / n) * 100;
  const cut = Math.ceil(0.1 * n);
  const rrf10 = (found.filter((p) => p <= cut).length / r) * 100;
  const atd = (found.reduce((s, p) => s + p / n, 0) / r) * 100;
  return { wss95, wss100, rrf10, atd };
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const average = (ms) => ({
  wss95: round(mean(ms.map((m) => m.wss95))),
  wss100: round(mean(ms.map((m) => m.wss100))),
  rrf10: round(mean(ms.map((m) => m.rrf10))),
  atd: round(mean(ms.map((m) => m.atd)), 2),
});

/** The product's next record under `candidate` (rankScreening, best record only). */
function productNext(screening, corpus, records, rowOf, candidate, times) {
  return (labelled, order) => {
    const labels = new Map([...labelled].map(([row, y]) => [records[row].id, y ? "include" : "exclude"]));
    const t = performance.now();
    const result = screening.rankScreening(
      corpus,
      labels,
      undefined,
      order.map((row) => records[row].id),
      {
        estimate: false,
        limit: 1,
        model: candidate.model,
      },
    );
    times?.push(performance.now() - t);
    return rowOf.get(result.ranked[0].id);
  };
}

function runFile(screening, file) {
  const records = readDataset(file);
  const rowOf = new Map(records.map((r, i) => [r.id, i]));
  const inputs = records.map(({ id, title, abstract }) => ({ id, title, abstract }));
  const corpora = new Map();
  const corpusOf = (c) => {
    const key = JSON.stringify(c.features);
    if (!corpora.has(key))
      corpora.set(key, screening.buildCorpusWith(inputs, { ...screening.DEFAULT_FEATURES, ...c.features }));
    return corpora.get(key);
  };
  const classicFeatures = baselineFeatures(records);
  const elasFeatures = elasU4Features(records);
  const runs = Object.fromEntries(CANDIDATES.map((c) => [c.name, []]));
  const times = Object.fromEntries(CANDIDATES.map((c) => [c.name, []]));
  const elas = [];
  const classic = [];
  priorPairs(records, SEEDS).forEach((pair, s) => {
    for (const c of CANDIDATES) {
      runs[c.name].push(
        metrics(
          simulate(records, pair, productNext(screening, corpusOf(c), records, rowOf, c, times[c.name])),
          records,
        ),
      );
    }
    if (process.env.REFERENCES === "0") return;
    const randE = rng(777 + s);
    const warm = new Map();
    elas.push(
      metrics(
        simulate(records, pair, (labelled) => elasU4Next(elasFeatures, labelled, randE, warm)),
        records,
      ),
    );
    const randC = rng(555 + s);
    classic.push(
      metrics(
        simulate(records, pair, (labelled) => classicNext(classicFeatures, labelled, randC)),
        records,
      ),
    );
  });
  return {
    file: path.basename(file),
    records: records.length,
    included: records.filter((r) => r.included).length,
    seeds: SEEDS,
    candidates: Object.fromEntries(
      CANDIDATES.map((c) => [c.name, { ...average(runs[c.name]), retrainMs: round(median(times[c.name])) }]),
    ),
    elasU4: elas.length ? average(elas) : null,
    classic: classic.length ? average(classic) : null,
  };
}

/** Leave-one-review-out: per held-out review, the candidate best on the others (mean WSS@95). */
function leaveOneOut(rows, oursName) {
  return rows.map((held) => {
    const others = rows.filter((r) => r !== held);
    const score = (name) => mean(others.map((r) => r.candidates[name].wss95));
    const chosen = CANDIDATES.map((c) => c.name).sort((a, b) => score(b) - score(a))[0];
    return {
      heldOut: held.file,
      chosen,
      tunedWss95: round(score(chosen)),
      heldOutWss95: held.candidates[chosen].wss95,
      previousWss95: held.candidates.nb?.wss95,
      oursWss95: held.candidates[oursName]?.wss95,
      elasU4Wss95: held.elasU4?.wss95,
      classicWss95: held.classic?.wss95,
    };
  });
}

/**
 * Median rankScreening wall time and user CPU time (retrain + rank) with `decisions` decisions on
 * `size` records (the shared reviews repeated, " (copy k)" titles); CPU time is the figure to read
 * on a shared machine.
 */
function retrainTime(screening, files, size, decisions, model) {
  const base = files.flatMap((f, k) => readDataset(f).map((r) => ({ ...r, id: `${k}:${r.id}` })));
  const records = Array.from({ length: size }, (_, i) => {
    const r = base[i % base.length];
    const copy = Math.floor(i / base.length);
    return copy ? { ...r, id: `${r.id}#${copy}`, title: `${r.title} (copy ${copy})` } : r;
  });
  const corpus = screening.buildScreeningCorpus(records);
  const labels = new Map();
  const rand = rng(size + decisions);
  while (labels.size < decisions) {
    const r = records[Math.floor(rand() * records.length)];
    labels.set(r.id, r.included ? "include" : "exclude");
  }
  const times = [];
  const cpu = [];
  for (let i = 0; i < 8; i++) {
    const c = process.cpuUsage();
    const t = performance.now();
    screening.rankScreening(corpus, labels, undefined, undefined, { estimate: false, limit: 1000, model });
    times.push(performance.now() - t);
    cpu.push(process.cpuUsage(c).user / 1000);
  }
  return `${round(median(times.slice(2)))} ms (CPU ${round(median(cpu.slice(2)))} ms)`;
}

const args = process.argv.slice(2);
const json = args.includes("--json");
const files = args.filter((a) => a !== "--json");
const targets = files.length ? files : DEFAULT_FILES;
const missing = targets.filter((f) => !existsSync(f));
if (missing.length) {
  console.error(
    `bench/screening: file not found: ${missing.join(", ")}${files.length ? "" : " (../shared/screening is absent)"}`,
  );
  process.exit(2);
}
const screening = await loadScreening();
const ours = screening.DEFAULT_MODEL;
const oursName =
  CANDIDATES.find((c) => c.model === ours && Object.keys(c.features).length === 0)?.name ?? CANDIDATES[0].name;
const rows = [];
for (const file of process.env.TIMING_ONLY === "1" ? [] : targets) {
  const started = performance.now();
  const row = runFile(screening, file);
  rows.push(row);
  if (!json) console.error(`${row.file}: done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  if (json) {
    const o = row.candidates[oursName];
    console.log(
      JSON.stringify({
        file: row.file,
        records: row.records,
        included: row.included,
        seeds: row.seeds,
        model: oursName,
        wss95: o.wss95,
        wss100: o.wss100,
        rrf10: o.rrf10,
        atd: o.atd,
        retrainMs: o.retrainMs,
        baseline: row.classic,
        elasU4: row.elasU4,
        classic: row.classic,
        candidates: row.candidates,
      }),
    );
  }
}
if (!json && rows.length) {
  const pad = (s, w) => String(s).padStart(w);
  const f1 = (x) => x.toFixed(1);
  console.log(`Screening prioritisation, ${SEEDS} seeds per file; ours = ${oursName} (the product's default)`);
  console.log(
    `${"file".padEnd(20)}${pad("model", 18)}${pad("WSS@95", 8)}${pad("WSS@100", 9)}${pad("ATD", 7)}${pad("RRF@10", 8)}${pad("retrain ms", 12)}`,
  );
  const line = (file, name, m) =>
    console.log(
      `${file.padEnd(20)}${pad(name, 18)}${pad(f1(m.wss95), 8)}${pad(f1(m.wss100), 9)}${pad(m.atd.toFixed(2), 7)}${pad(f1(m.rrf10), 8)}${pad(m.retrainMs === undefined ? "" : f1(m.retrainMs), 12)}`,
    );
  for (const r of rows) {
    for (const c of CANDIDATES) line(r.file, c.name === oursName ? `${c.name} (ours)` : c.name, r.candidates[c.name]);
    line(r.file, "ELAS u4 replica", r.elasU4);
    line(r.file, "classic replica", r.classic);
  }
  console.log("\nMeans over the reviews; ratios ours ÷ reference (WSS: > 1 is better; ATD: < 1 is better)");
  const m = (f) => mean(rows.map(f));
  for (const c of CANDIDATES) {
    const w = m((r) => r.candidates[c.name].wss95);
    const a = m((r) => r.candidates[c.name].atd);
    const worstVsClassic = Math.min(...rows.map((r) => r.candidates[c.name].wss95 - r.classic.wss95));
    console.log(
      `${c.name.padEnd(18)} WSS@95 ${f1(w)} (×${(w / m((r) => r.elasU4.wss95)).toFixed(3)} ELAS u4, ×${(w / m((r) => r.classic.wss95)).toFixed(3)} classic)` +
        `  WSS@100 ${f1(m((r) => r.candidates[c.name].wss100))}  ATD ${a.toFixed(2)} (×${(a / m((r) => r.elasU4.atd)).toFixed(3)} ELAS u4)` +
        `  wins vs ELAS u4 ${rows.filter((r) => r.candidates[c.name].wss95 > r.elasU4.wss95).length}/${rows.length}` +
        `  worst vs classic ${worstVsClassic >= 0 ? "+" : ""}${f1(worstVsClassic)}`,
    );
  }
  console.log(
    `${"ELAS u4 replica".padEnd(18)} WSS@95 ${f1(m((r) => r.elasU4.wss95))}  WSS@100 ${f1(m((r) => r.elasU4.wss100))}  ATD ${m((r) => r.elasU4.atd).toFixed(2)}`,
  );
  console.log(
    `${"classic replica".padEnd(18)} WSS@95 ${f1(m((r) => r.classic.wss95))}  WSS@100 ${f1(m((r) => r.classic.wss100))}  ATD ${m((r) => r.classic.atd).toFixed(2)}`,
  );
  if (rows.length > 1) {
    console.log(
      "\nLeave-one-review-out (candidate chosen on the other reviews by mean WSS@95, scored on the held-out one)",
    );
    for (const l of leaveOneOut(rows, oursName)) {
      console.log(
        `held out ${l.heldOut.padEnd(20)} chosen ${l.chosen.padEnd(17)} (${f1(l.tunedWss95)} on the others)  held-out WSS@95 ${f1(l.heldOutWss95)}` +
          `  vs ours (${oursName}) ${l.oursWss95 === undefined ? "–" : f1(l.oursWss95)}, nb ${l.previousWss95 === undefined ? "–" : f1(l.previousWss95)},` +
          ` ELAS u4 ${l.elasU4Wss95 === undefined ? "–" : f1(l.elasU4Wss95)}, classic ${l.classicWss95 === undefined ? "–" : f1(l.classicWss95)}`,
      );
    }
  }
}
if (!json && !files.length && process.env.TIMING !== "0") {
  console.log("\nRetrain + rank (rankScreening, best 1,000 kept), median of 6 calls");
  for (const [size, decisions] of [
    [2000, 500],
    [20000, 500],
    [20000, 2000],
  ]) {
    const cells = ["nb", ours].map((model) => `${model} ${retrainTime(screening, targets, size, decisions, model)}`);
    console.log(`${String(size).padStart(6)} records, ${String(decisions).padStart(5)} decisions: ${cells.join(", ")}`);
  }
}
