#!/usr/bin/env node
// Page budgets (issue 17 "bench/lighthouse"): Lighthouse scores (the `lighthouse` package, mobile
// preset, driving Debian's chromium headless) for performance, accessibility and best practices,
// and the initial JavaScript (gzip bytes and file count of every script/modulepreload the
// server-rendered HTML references) of:
//   /                                   the home page (guest)
//   /search?q=heart failure&db=pubmed   a guest search; the results come from the replay server
//   /answer/{id}                        a shared health answer (created with POST /api/shared-answers)
// against the real Worker under `wrangler dev` with every provider pointed at the replay server.
// Targets: every score ≥ 95, initial JavaScript ≤ 120 KB gzip per page. Exits 1 when one is missed.
//
// Usage: npm run bench:lighthouse  (env SKIP_BUILD=1 reuses the build; BENCH_PORT / BENCH_REPLAY_PORT,
// default 8815 / 8816; RUNS, default 1: the median score of RUNS Lighthouse runs per page is kept).
// State dir: .wrangler/bench-lighthouse-state.
import { startDevServer, waitForServer } from "./lib/dev-server.mjs";
import {
  auditPage,
  CATEGORIES,
  launchChromium,
  MIN_SCORE,
  SAMPLE_ANSWER,
  SEARCH_PATH,
  servedInitialJs,
} from "./lib/lighthouse-run.mjs";
import { INITIAL_JS_BUDGET_BYTES, kb } from "../scripts/lib/page-budget.mjs";

const PORT = Number(process.env.BENCH_PORT ?? 8815);
const REPLAY_PORT = Number(process.env.BENCH_REPLAY_PORT ?? 8816);
const RUNS = Math.max(1, Number(process.env.RUNS ?? 1));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

async function shareAnswer(base) {
  const res = await fetch(`${base}/api/shared-answers`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: base },
    body: JSON.stringify(SAMPLE_ANSWER),
  });
  if (res.status !== 201) throw new Error(`POST /api/shared-answers: ${res.status} ${await res.text()}`);
  return new URL((await res.json()).url).pathname;
}

async function main() {
  const server = startDevServer({ port: PORT, replayPort: REPLAY_PORT, stateDir: "bench-lighthouse-state" });
  let chromium;
  try {
    await waitForServer(server.base);
    const pages = [
      { name: "/", path: "/" },
      { name: "/search", path: SEARCH_PATH },
      { name: "/answer/{id}", path: await shareAnswer(server.base) },
    ];
    chromium = await launchChromium();
    const rows = [];
    for (const page of pages) {
      const url = `${server.base}${page.path}`;
      const js = await servedInitialJs(url);
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await auditPage(url, chromium.port));
      const scores = Object.fromEntries(CATEGORIES.map((c) => [c, median(runs.map((r) => r.scores[c]))]));
      rows.push({
        ...page,
        js,
        scores,
        failing: [...new Set(runs.flatMap((r) => r.failing))],
        seconds: runs.map((r) => r.seconds),
      });
    }

    console.log(
      `Lighthouse ${RUNS === 1 ? "" : `(median of ${RUNS} runs) `}mobile preset, chromium headless; target ≥ ${MIN_SCORE} each, initial JS ≤ ${kb(INITIAL_JS_BUDGET_BYTES)} gzip`,
    );
    console.log(
      `${"page".padEnd(14)}${"perf".padStart(6)}${"a11y".padStart(6)}${"b-p".padStart(6)}${"initial JS gzip".padStart(18)}${"files".padStart(7)}${"raw".padStart(11)}${"audit s".padStart(9)}`,
    );
    const problems = [];
    for (const row of rows) {
      const s = row.scores;
      console.log(
        `${row.name.padEnd(14)}${String(s.performance).padStart(6)}${String(s.accessibility).padStart(6)}${String(s["best-practices"]).padStart(6)}` +
          `${kb(row.js.gzipBytes).padStart(18)}${String(row.js.files).padStart(7)}${kb(row.js.rawBytes).padStart(11)}${row.seconds
            .map((x) => x.toFixed(1))
            .join("/")
            .padStart(9)}`,
      );
      for (const c of CATEGORIES) if (s[c] < MIN_SCORE) problems.push(`${row.name}: ${c} ${s[c]} < ${MIN_SCORE}`);
      if (row.js.gzipBytes > INITIAL_JS_BUDGET_BYTES) {
        problems.push(
          `${row.name}: initial JS ${kb(row.js.gzipBytes)} > ${kb(INITIAL_JS_BUDGET_BYTES)} (largest: ${row.js.largest.map((f) => `${f.file} ${kb(f.gzipBytes)}`).join(", ")})`,
        );
      }
      if (row.failing.length) console.log(`${"".padEnd(14)}below 1: ${row.failing.join(" ")}`);
    }
    if (problems.length) {
      console.error(`bench:lighthouse failed:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
      process.exitCode = 1;
    }
  } finally {
    await chromium?.close();
    server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
