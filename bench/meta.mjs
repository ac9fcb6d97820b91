#!/usr/bin/env node
// Meta-analysis benchmark (issue 5 "bench/meta"): REML with the Hartung–Knapp adjustment on 10, 100,
// 1,000 and 10,000 studies through the engine (app/lib/meta-analysis, imported as TypeScript by
// Node 24), and the same data through R's metafor (`Rscript`) in the same run.
//
// - Engine: median wall time of rma(effects, {method: "REML", test: "knha"}) over RUNS calls after a
//   warm-up. One call computes everything the result holds: τ² by Fisher scoring, the
//   Hartung–Knapp estimate/CI, the prediction interval, Q/I²/H², τ²'s SE and its Q-profile CI.
// - metafor: one Rscript process reads the same yi/vi (CSV written here) and times, with
//   proc.time() inside R, rma(yi, vi, method = "REML", test = "knha") alone and rma + confint()
//   (the Q-profile CI, which the engine's single call also computes); the Rscript process's total
//   wall time (start-up and package loading included) is printed too.
//   metafor's rma.uni builds k×k weight and projection matrices (P %*% P for REML), so its time
//   grows with k³ and 10,000 studies (800 MB per matrix) is not run unless R_MAX_K=10000 is set.
// - Both fits are compared (estimate, SE, τ²) to show the timings are for the same numbers.
//
// Usage: npm run bench:meta  (env RUNS, default 25; R_RUNS, default 10 (3 at 1,000 studies); R_MAX_K,
// default 1000). Target: engine ≤ 20 ms at 10,000 studies.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { rma } from "../app/lib/meta-analysis/index.ts";

const RUNS = Number(process.env.RUNS ?? 25);
const R_RUNS = Number(process.env.R_RUNS ?? 10);
const R_MAX_K = Number(process.env.R_MAX_K ?? 1000);
const SIZES = [10, 100, 1000, 10000];
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

/** mulberry32 + Box–Muller: the same data on every run. */
function dataset(k, seed) {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const norm = () => Math.sqrt(-2 * Math.log(Math.max(rand(), 1e-300))) * Math.cos(2 * Math.PI * rand());
  return Array.from({ length: k }, () => {
    const vi = 0.01 + 0.3 * rand();
    return { yi: -0.3 + norm() * Math.sqrt(vi + 0.04), vi };
  });
}

const data = Object.fromEntries(SIZES.map((k) => [k, dataset(k, 1000 + k)]));

// Engine
const engine = {};
for (const k of SIZES) {
  const effects = data[k];
  for (let i = 0; i < 3; i++) rma(effects, { measure: "GEN", method: "REML", test: "knha" });
  const times = [];
  let fit;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fit = rma(effects, { measure: "GEN", method: "REML", test: "knha" });
    times.push(performance.now() - t0);
  }
  engine[k] = { ms: median(times), fit };
}

// metafor
const rSizes = SIZES.filter((k) => k <= R_MAX_K);
const dir = mkdtempSync(path.join(tmpdir(), "bench-meta-"));
const r = {};
let rTotal = null;
let rMissing = null;
try {
  for (const k of rSizes) {
    writeFileSync(path.join(dir, `k${k}.csv`), "yi,vi\n" + data[k].map((e) => `${e.yi.toPrecision(17)},${e.vi.toPrecision(17)}`).join("\n"));
  }
  const script = `
suppressMessages(library(metafor))
for (k in c(${rSizes.join(",")})) {
  d <- read.csv(file.path("${dir}", paste0("k", k, ".csv")))
  runs <- if (k >= 1000) min(${R_RUNS}, 3) else ${R_RUNS}
  t1 <- t2 <- numeric(runs)
  for (i in seq_len(runs)) {
    s <- proc.time()[[3]]; fit <- rma(d$yi, d$vi, method = "REML", test = "knha"); t1[i] <- proc.time()[[3]] - s
    s <- proc.time()[[3]]; fit <- rma(d$yi, d$vi, method = "REML", test = "knha"); ci <- confint(fit); t2[i] <- proc.time()[[3]] - s
  }
  cat(k, median(t1) * 1000, median(t2) * 1000, sprintf("%.17g", fit$b), sprintf("%.17g", fit$se), sprintf("%.17g", fit$tau2), "\\n")
}`;
  writeFileSync(path.join(dir, "bench.R"), script);
  const t0 = performance.now();
  const res = spawnSync("Rscript", ["--vanilla", path.join(dir, "bench.R")], { encoding: "utf8", maxBuffer: 1 << 26 });
  rTotal = (performance.now() - t0) / 1000;
  if (res.error || res.status !== 0) {
    rMissing = res.error ? "Rscript not found" : `Rscript failed: ${res.stderr.trim().split("\n").slice(-2).join(" ")}`;
  } else {
    for (const line of res.stdout.trim().split("\n")) {
      const [k, rma1, rma2, b, se, tau2] = line.trim().split(/\s+/).map(Number);
      r[k] = { rma: rma1, rmaCi: rma2, b, se, tau2 };
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const pad = (s, n) => String(s).padStart(n);
console.log(`REML + Hartung–Knapp, engine median of ${RUNS} runs; metafor median of ${R_RUNS} runs (3 at ≥ 1,000 studies)\n`);
console.log(`${pad("studies", 8)} ${pad("engine ms", 10)} ${pad("metafor rma ms", 15)} ${pad("rma+confint ms", 15)} ${pad("ratio", 8)} ${pad("max rel diff", 13)}`);
for (const k of SIZES) {
  const e = engine[k];
  const m = r[k];
  const ratio = m ? (m.rmaCi / e.ms).toFixed(0) + "×" : "—";
  const diff = m
    ? Math.max(
        Math.abs(e.fit.estimate - m.b) / Math.abs(m.b),
        Math.abs(e.fit.se - m.se) / m.se,
        m.tau2 > 0 ? Math.abs(e.fit.tau2 - m.tau2) / m.tau2 : Math.abs(e.fit.tau2),
      ).toExponential(1)
    : "—";
  console.log(
    `${pad(k.toLocaleString("en"), 8)} ${pad(e.ms.toFixed(3), 10)} ${pad(m ? m.rma.toFixed(1) : "not run", 15)} ${pad(
      m ? m.rmaCi.toFixed(1) : "not run",
      15,
    )} ${pad(ratio, 8)} ${pad(diff, 13)}`,
  );
}
if (rMissing) console.log(`\nmetafor: ${rMissing}`);
else console.log(`\nRscript total wall time (start-up, package load, all runs): ${rTotal.toFixed(1)} s`);
if (R_MAX_K < 10000) console.log("10,000 studies not run through metafor (k×k matrices; set R_MAX_K=10000 to try).");
const at10k = engine[10000].ms;
console.log(`Engine at 10,000 studies: ${at10k.toFixed(2)} ms (target ≤ 20 ms) ${at10k <= 20 ? "OK" : "OVER TARGET"}`);
