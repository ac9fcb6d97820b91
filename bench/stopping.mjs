#!/usr/bin/env node
// Stopping-criterion benchmark (issue 27, item 4): simulated title/abstract screening with the
// product's ranking and stopping criterion (app/lib/screening: rankScreening and its `stopping`,
// the hypergeometric test of Callaghan & Müller-Hansen 2020 at 95 % recall with 95 % confidence).
//
// Each run starts from one random included and one random excluded record (the seeded prior
// pairs of bench/screening.mjs), then repeatedly: ranks the unscreened records on every decision
// so far, stops if the criterion is reached, otherwise screens the top-ranked record and reveals
// its label. A run that never reaches the criterion screens every record.
//   stoppedAt     records screened when the run stopped (the two prior records included);
//   recallAtStop  included records found by then ÷ all included records of the file;
//   totalRecords  records in the file.
// Printed per file: the share of runs with recall at stop ≥ 0.95 (target: ≥ 95 % of runs) and the
// mean records screened at stop vs the total (the work saved).
//
// Usage: node bench/stopping.mjs [--json OUT.json] [FILE.csv …]   (the three shared reviews if no file)
// CSV columns: record_id (or id), title, abstract, label_included (1/0). Env RUNS (default 20, ≥ 20
// for the contract), FIRST_RUN (default 0: the first seed, to split one file's runs across processes).
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { DEFAULT_FILES, loadScreening, priorPairs, readDataset } from "./lib/screening-data.mjs";

const RUNS = Math.max(1, Number(process.env.RUNS ?? 20));
/** First seed (default 0): FIRST_RUN=10 RUNS=10 runs seeds 10–19, so one file's runs can be split across processes. */
const FIRST_RUN = Math.max(0, Number(process.env.FIRST_RUN ?? 0));
const RECALL_TARGET = 0.95;
const CONFIDENCE = 0.95;

/** One simulated screening from `pair`; returns {stoppedAt, recallAtStop, totalRecords}. */
function simulate(screening, corpus, records, pair) {
  const included = records.filter((r) => r.included).length;
  const rowOf = new Map(records.map((r, i) => [r.id, i]));
  const labels = new Map();
  const order = [];
  let found = 0;
  const screen = (row) => {
    const r = records[row];
    labels.set(r.id, r.included ? "include" : "exclude");
    order.push(r.id);
    if (r.included) found++;
  };
  pair.forEach(screen);
  while (labels.size < records.length) {
    const result = screening.rankScreening(corpus, labels, undefined, order, {
      stopping: { recallTarget: RECALL_TARGET, confidence: CONFIDENCE },
      estimate: false,
      limit: 1,
    });
    if (result.stopping.reached) break;
    screen(rowOf.get(result.ranked[0].id));
  }
  return { stoppedAt: labels.size, recallAtStop: found / included, totalRecords: records.length };
}

const args = process.argv.slice(2);
const jsonAt = args.indexOf("--json");
const out = jsonAt === -1 ? null : args[jsonAt + 1];
if (jsonAt !== -1 && (!out || out.startsWith("--"))) {
  console.error("bench/stopping: --json needs an output file");
  process.exit(2);
}
const files = args.filter((a, i) => a !== "--json" && (jsonAt === -1 || i !== jsonAt + 1));
const targets = files.length ? files : DEFAULT_FILES;
const missing = targets.filter((f) => !existsSync(f));
if (missing.length) {
  console.error(
    `bench/stopping: file not found: ${missing.join(", ")}${files.length ? "" : " (../shared/screening is absent)"}`,
  );
  process.exit(2);
}

const screening = await loadScreening();
const results = [];
console.log(
  `Stopping criterion: recall ≥ ${RECALL_TARGET * 100}% with ${CONFIDENCE * 100}% confidence, ${RUNS} seeded runs per file`,
);
for (const file of targets) {
  const records = readDataset(file);
  const corpus = screening.buildScreeningCorpus(records.map(({ id, title, abstract }) => ({ id, title, abstract })));
  const started = performance.now();
  const runs = priorPairs(records, FIRST_RUN + RUNS)
    .slice(FIRST_RUN)
    .map((pair) => simulate(screening, corpus, records, pair));
  const seconds = (performance.now() - started) / 1000;
  results.push({ file: path.basename(file), runs });
  const ok = runs.filter((r) => r.recallAtStop >= RECALL_TARGET).length;
  const meanStop = runs.reduce((s, r) => s + r.stoppedAt, 0) / runs.length;
  const meanRecall = runs.reduce((s, r) => s + r.recallAtStop, 0) / runs.length;
  const minRecall = Math.min(...runs.map((r) => r.recallAtStop));
  console.log(
    `${path.basename(file)}: recall at stop ≥ 0.95 in ${ok}/${runs.length} runs (${((100 * ok) / runs.length).toFixed(0)}%; ` +
      `mean ${meanRecall.toFixed(3)}, min ${minRecall.toFixed(3)}); ` +
      `screened ${meanStop.toFixed(0)} of ${records.length} records on average (${((100 * meanStop) / records.length).toFixed(1)}%, ` +
      `work saved ${(100 - (100 * meanStop) / records.length).toFixed(1)}%); ${seconds.toFixed(0)} s`,
  );
}
if (out) writeFileSync(out, JSON.stringify({ results }, null, 2) + "\n");
