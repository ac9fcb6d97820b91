#!/usr/bin/env node
// Risk-of-bias benchmark (issue 28): time of the pure RoB 2 algorithm (judgeRob2, one complete set
// of answers) and of the suggestions from text (suggestRob2) on an invented 200,000-character
// report — the size of the longest full text the review reads — built from methods sentences that
// trigger most rules. The code is app/lib/risk-of-bias, bundled with esbuild so plain `node` runs it.
// Usage: node bench/risk-of-bias.mjs     prints one line per measure (median of the runs).
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { importBundled } from "./lib/bundled.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { judgeRob2 } = await importBundled(path.join(root, "app/lib/risk-of-bias/rob2.ts"));
const { suggestRob2 } = await importBundled(path.join(root, "app/lib/risk-of-bias/suggestions.ts"));

const PARA =
  "Randomisation used a computer-generated list in permuted blocks; allocation was concealed in sequentially numbered, sealed, opaque envelopes. " +
  "This double-blind trial randomised 200 adults and 196 were analysed. Mortality was 12/100 vs 20/98 at 28 days (RR 0.60, 95% CI 0.31 to 1.15). " +
  "Baseline characteristics were similar in the two groups. Adverse events were rare and mild in both arms of the study. ";
const text = PARA.repeat(Math.ceil(200_000 / PARA.length)).slice(0, 200_000);
const LOW = {
  1.1: "Y",
  1.2: "Y",
  1.3: "N",
  2.1: "N",
  2.2: "N",
  2.6: "Y",
  3.1: "Y",
  4.1: "N",
  4.2: "N",
  4.3: "N",
  5.1: "Y",
  5.2: "N",
  5.3: "N",
};

suggestRob2(text, "assignment");
const suggestMs = [];
for (let i = 0; i < 7; i++) {
  const t = performance.now();
  suggestRob2(text, "assignment");
  suggestMs.push(performance.now() - t);
}
const judgeUs = [];
for (let r = 0; r < 5; r++) {
  const t = performance.now();
  for (let i = 0; i < 20_000; i++) judgeRob2("assignment", LOW);
  judgeUs.push(((performance.now() - t) / 20_000) * 1000);
}
console.log(`suggestRob2, 200,000 characters: ${median(suggestMs).toFixed(1)} ms per call (median of 7)`);
console.log(`judgeRob2, complete answers: ${median(judgeUs).toFixed(1)} µs per call (median of 5 × 20,000)`);
