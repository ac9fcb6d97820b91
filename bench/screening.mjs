#!/usr/bin/env node
// Screening-prioritisation benchmark (issue 13 "bench/screening"): simulated title/abstract
// screening through the product's ranking code (app/lib/screening, bundled here with esbuild so
// plain `node` runs it) and, in the same run on the same prior pairs, ASReview's classic default
// (TF-IDF + Naive Bayes α 3.822, balanced sample weights, max query; bench/lib/asreview-baseline.mjs).
//
// Simulation (Ferdinands et al. 2023; ../shared/screening/README.md): each seed starts from one
// random included and one random excluded record, then repeatedly screens the top-ranked record,
// reveals its label and retrains (rankScreening is called after every decision, as the product
// does). A seed stops once every included record has been found: all metrics are known by then.
// Metrics, with the two prior records removed (N = records − 2, R = included − 1):
//   WSS@95 = recall − k/N at the first k where recall ≥ 95 %, in %;
//   RRF@10 = recall after screening ⌈0.1 N⌉ records, in %;
//   ATD    = mean over the R records of (position found ÷ N), in %.
// Each is the mean over seeds. retrainMs = median wall time of one rankScreening call (retrain and
// rank every unscreened record) on that file. The table also shows the stopping aid's estimate of
// the included records still unscreened when 50 % and 95 % of them had been found, beside the truth.
//
// Usage: node bench/screening.mjs                  three shared datasets, table + 3,000-record timing
//        node bench/screening.mjs --json A.csv …    one JSON line per file (the shared three if none)
// CSV columns: record_id (or id), title, abstract, label_included (1/0). Env SEEDS (default 5).
import { existsSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { baselineFeatures, baselineNext } from "./lib/asreview-baseline.mjs";
import { DEFAULT_FILES, loadScreening, priorPairs, readDataset, rng } from "./lib/screening-data.mjs";

const SEEDS = Math.max(1, Number(process.env.SEEDS ?? 5));

/** Positions (1-based, priors excluded) at which the included records were screened. */
function simulate(records, pair, next, onStep) {
  const total = records.filter((r) => r.included).length - 1;
  const labelled = new Map(pair.map((row) => [row, records[row].included ? 1 : 0]));
  const order = [...pair];
  const found = [];
  let position = 0;
  while (found.length < total) {
    const row = next(labelled, order);
    onStep?.(found.length, total);
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
  const at95 = found[k95 - 1];
  const wss95 = (k95 / r - at95 / n) * 100;
  const cut = Math.ceil(0.1 * n);
  const rrf10 = (found.filter((p) => p <= cut).length / r) * 100;
  const atd = (found.reduce((s, p) => s + p / n, 0) / r) * 100;
  return { wss95, rrf10, atd };
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const average = (ms) => ({
  wss95: round(mean(ms.map((m) => m.wss95))),
  rrf10: round(mean(ms.map((m) => m.rrf10))),
  atd: round(mean(ms.map((m) => m.atd)), 2),
});

function runFile(screening, file) {
  const records = readDataset(file);
  const rowOf = new Map(records.map((r, i) => [r.id, i]));
  const corpus = screening.buildScreeningCorpus(records.map(({ id, title, abstract }) => ({ id, title, abstract })));
  const base = baselineFeatures(records);
  const times = [];
  const ours = [];
  const baseline = [];
  const stopping = { 50: [], 95: [] };
  for (const pair of priorPairs(records, SEEDS)) {
    let estimate = null;
    const marks = new Set();
    ours.push(
      metrics(
        simulate(
          records,
          pair,
          (labelled, order) => {
            const labels = new Map([...labelled].map(([row, y]) => [records[row].id, y ? "include" : "exclude"]));
            const t = performance.now();
            const result = screening.rankScreening(corpus, labels, undefined, order.map((row) => records[row].id));
            times.push(performance.now() - t);
            estimate = result.estimatedRelevantRemaining;
            return rowOf.get(result.ranked[0].id);
          },
          (found, total) => {
            for (const level of [50, 95]) {
              if (!marks.has(level) && found >= Math.ceil((level / 100) * total)) {
                marks.add(level);
                stopping[level].push({ estimate, truth: total - found });
              }
            }
          },
        ),
        records,
      ),
    );
    baseline.push(metrics(simulate(records, pair, (labelled) => baselineNext(base, labelled)), records));
  }
  return {
    file: path.basename(file),
    records: records.length,
    included: records.filter((r) => r.included).length,
    seeds: SEEDS,
    ...average(ours),
    retrainMs: round(median(times)),
    baseline: average(baseline),
    stopping: Object.fromEntries(
      Object.entries(stopping).map(([level, xs]) => [
        level,
        { estimate: round(mean(xs.map((x) => x.estimate ?? 0))), truth: round(mean(xs.map((x) => x.truth))) },
      ]),
    ),
  };
}

/** Median rankScreening time on the three shared files together (3,000 records), 300 decisions made. */
function timeThreeThousand(screening, files) {
  const records = files.flatMap((f, k) => readDataset(f).map((r) => ({ ...r, id: `${k}:${r.id}` })));
  const corpus = screening.buildScreeningCorpus(records);
  const labels = new Map();
  const rand = rng(3000);
  while (labels.size < 300) {
    const r = records[Math.floor(rand() * records.length)];
    labels.set(r.id, r.included ? "include" : "exclude");
  }
  const times = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    screening.rankScreening(corpus, labels);
    times.push(performance.now() - t);
  }
  return { records: records.length, ms: round(median(times.slice(3))) };
}

const args = process.argv.slice(2);
const json = args.includes("--json");
const files = args.filter((a) => a !== "--json");
const targets = files.length ? files : DEFAULT_FILES;
const missing = targets.filter((f) => !existsSync(f));
if (missing.length) {
  console.error(`bench/screening: file not found: ${missing.join(", ")}${files.length ? "" : " (../shared/screening is absent)"}`);
  process.exit(2);
}
const screening = await loadScreening();
const rows = [];
for (const file of targets) {
  const row = runFile(screening, file);
  rows.push(row);
  if (json) {
    const { stopping: _stopping, ...contract } = row;
    console.log(JSON.stringify(contract));
  }
}
if (!json) {
  const pad = (s, w) => String(s).padStart(w);
  console.log(`Screening prioritisation, ${SEEDS} seeds per file (ours vs ASReview classic NB baseline, same prior pairs)`);
  console.log(`${"file".padEnd(20)}${pad("records", 8)}${pad("incl", 6)}${pad("WSS@95", 9)}${pad("base", 7)}${pad("RRF@10", 9)}${pad("base", 7)}${pad("ATD", 8)}${pad("base", 7)}${pad("retrain ms", 12)}`);
  for (const r of rows) {
    console.log(
      `${r.file.padEnd(20)}${pad(r.records, 8)}${pad(r.included, 6)}${pad(r.wss95.toFixed(1), 9)}${pad(r.baseline.wss95.toFixed(1), 7)}` +
        `${pad(r.rrf10.toFixed(1), 9)}${pad(r.baseline.rrf10.toFixed(1), 7)}${pad(r.atd.toFixed(2), 8)}${pad(r.baseline.atd.toFixed(2), 7)}${pad(r.retrainMs.toFixed(1), 12)}`,
    );
  }
  const m = (f) => mean(rows.map(f));
  console.log(
    `${"mean".padEnd(34)}${pad(m((r) => r.wss95).toFixed(1), 9)}${pad(m((r) => r.baseline.wss95).toFixed(1), 7)}` +
      `${pad(m((r) => r.rrf10).toFixed(1), 9)}${pad(m((r) => r.baseline.rrf10).toFixed(1), 7)}${pad(m((r) => r.atd).toFixed(2), 8)}${pad(m((r) => r.baseline.atd).toFixed(2), 7)}`,
  );
  console.log("stopping aid: estimated relevant records still unscreened vs the truth, mean over seeds");
  for (const r of rows) {
    const s = r.stopping;
    console.log(`${r.file.padEnd(20)} at 50% recall ${s[50].estimate} vs ${s[50].truth}; at 95% recall ${s[95].estimate} vs ${s[95].truth}`);
  }
  if (!files.length) {
    const t = timeThreeThousand(screening, targets);
    console.log(`retrain + rank + explain on ${t.records} records (300 decisions): ${t.ms} ms median`);
  }
}
