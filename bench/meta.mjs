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
//
// Second part (issue 29, explaining heterogeneity), after the first table: influence() + leave1out() +
// cumul() on HET_K = 1,000 studies and a subgroup analysis (5 subgroups + the common-τ² model) of
// 1,000 studies, engine vs metafor, for each estimator in HET_METHODS (default "DL,REML"), test knha.
// - Times are CPU time (user + system) on both sides, so a loaded shared machine does not inflate them.
// - Engine: median of HET_RUNS (default 5) runs of each function. HET_ONLY=1 runs only this part.
// - metafor, subgroup analysis: measured in full (5 rma() fits + rma(mods = ~ factor(g))).
// - metafor, influence/leave1out/cumul: each refits rma.uni k times on k×k matrices (a REML fit on
//   1,000 studies takes seconds), so the full functions would run for minutes (DL) to hours (REML).
//   By default their time is therefore estimated from timed samples of the exact work they do per
//   study (R_HET_SAMPLE, default 5, studies each): leave1out = rma.uni(subset = -i); influence = that
//   refit plus its per-study .invcalc() on the full design; cumul = rma.uni on the first i studies
//   at evenly spaced i, integrated over i = 1..k (trapezoid). This leaves out metafor's per-call
//   overhead, so it is a lower bound of metafor's time and the speed-up a conservative one.
//   R_HET_FULL=1 runs metafor's real influence(), leave1out() and cumul() instead (long).
//   The full functions are also run, and timed, on 100 studies, beside the engine.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { mulberry32 } from "./lib/bundled.mjs";
import { loadEngine } from "./meta-analysis-diff.mjs";

// The engine is bundled with esbuild (as bench/meta-analysis-diff.mjs does), so any Node ≥ 20 runs the bench.
const E = await loadEngine();
const { rma } = E;

const RUNS = Number(process.env.RUNS ?? 25);
const R_RUNS = Number(process.env.R_RUNS ?? 10);
const R_MAX_K = Number(process.env.R_MAX_K ?? 1000);
const SIZES = [10, 100, 1000, 10000];
const pad = (s, n) => String(s).padStart(n);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

/** mulberry32 + Box–Muller: the same data on every run. */
function dataset(k, seed) {
  const rand = mulberry32(seed);
  const norm = () => Math.sqrt(-2 * Math.log(Math.max(rand(), 1e-300))) * Math.cos(2 * Math.PI * rand());
  return Array.from({ length: k }, () => {
    const vi = 0.01 + 0.3 * rand();
    return { yi: -0.3 + norm() * Math.sqrt(vi + 0.04), vi };
  });
}

const data = Object.fromEntries(SIZES.map((k) => [k, dataset(k, 1000 + k)]));
if (process.env.HET_ONLY === "1") {
  await heterogeneityBench();
  process.exit(0);
}

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
    writeFileSync(
      path.join(dir, `k${k}.csv`),
      "yi,vi\n" + data[k].map((e) => `${e.yi.toPrecision(17)},${e.vi.toPrecision(17)}`).join("\n"),
    );
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

console.log(
  `REML + Hartung–Knapp, engine median of ${RUNS} runs; metafor median of ${R_RUNS} runs (3 at ≥ 1,000 studies)\n`,
);
console.log(
  `${pad("studies", 8)} ${pad("engine ms", 10)} ${pad("metafor rma ms", 15)} ${pad("rma+confint ms", 15)} ${pad("ratio", 8)} ${pad("max rel diff", 13)}`,
);
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

await heterogeneityBench();

/** Issue 29: influence + leave-one-out + cumulative and subgroup analysis, engine vs metafor. */
async function heterogeneityBench() {
  const HET_K = Number(process.env.HET_K ?? 1000);
  const HET_RUNS = Number(process.env.HET_RUNS ?? 5);
  const METHODS = (process.env.HET_METHODS ?? "DL,REML").split(",");
  const SAMPLE = Number(process.env.R_HET_SAMPLE ?? 5);
  const FULL = process.env.R_HET_FULL === "1";
  const SMALL_K = 100;
  const mk = (k, seed) => {
    const eff = dataset(k, seed);
    return { yi: eff.map((e) => e.yi), vi: eff.map((e) => e.vi), g: eff.map((_, i) => `G${(i * 7919) % 5}`) };
  };
  const big = mk(HET_K, 4242);
  const small = mk(SMALL_K, 4243);
  // CPU time of this process (user + system), not wall time: on a shared machine the process is
  // descheduled for long stretches; metafor's side is timed the same way (proc.time() user + system).
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const time = (fn) => {
    const ts = [];
    for (let i = 0; i < HET_RUNS; i++) {
      const t0 = cpuMs();
      fn();
      ts.push(cpuMs() - t0);
    }
    return median(ts);
  };
  const eng = {};
  for (const method of METHODS) {
    const o = { method, test: "knha" };
    for (const [label, d] of [
      ["big", big],
      ["small", small],
    ]) {
      E.influence(d.yi, d.vi, null, o); // warm-up
      eng[`${method}/${label}`] = {
        influence: time(() => E.influence(d.yi, d.vi, null, o)),
        leave1out: time(() => E.leaveOneOut(d.yi, d.vi, o)),
        cumul: time(() => E.cumulative(d.yi, d.vi, o)),
        subgroup: time(() => E.subgroupAnalysis(d.yi, d.vi, d.g, o)),
      };
    }
  }
  const hdir = mkdtempSync(path.join(tmpdir(), "bench-het-"));
  const rRes = {};
  let rErr = null;
  try {
    for (const [label, d] of [
      ["big", big],
      ["small", small],
    ]) {
      writeFileSync(
        path.join(hdir, `${label}.csv`),
        "yi,vi,g\n" + d.yi.map((y, i) => `${y.toPrecision(17)},${d.vi[i].toPrecision(17)},${d.g[i]}`).join("\n"),
      );
    }
    const script = `
suppressMessages(library(metafor))
el <- function(expr) { cpu <- function() { p <- proc.time(); p[[1]] + p[[2]] }; s <- cpu(); force(expr); (cpu() - s) * 1000 }
full <- ${FULL ? "TRUE" : "FALSE"}
for (method in c(${METHODS.map((m) => `"${m}"`).join(",")})) {
  for (label in c("small", "big")) {
    d <- read.csv(file.path("${hdir}", paste0(label, ".csv")))
    k <- nrow(d)
    t.sub <- el({ for (l in unique(d$g)) rma(d$yi[d$g == l], d$vi[d$g == l], method = method, test = "knha"); rma(d$yi, d$vi, mods = ~ factor(d$g), method = method, test = "knha") })
    if (label == "small" || full) {
      r <- rma(d$yi, d$vi, method = method, test = "knha")
      t.inf <- el(influence(r)); t.l1o <- el(leave1out(r)); t.cum <- el(cumul(r)); how <- "full"
    } else {
      r <- rma(d$yi, d$vi, method = method, test = "knha")
      ids <- round(seq(1, k, length.out = ${SAMPLE}))
      per.l1o <- mean(sapply(ids, function(i) el(rma.uni(d$yi, d$vi, method = method, test = "knha", subset = -i))))
      per.inf <- mean(sapply(ids, function(i) el({ res <- rma.uni(d$yi, d$vi, method = method, test = "knha", subset = -i)
        metafor:::.invcalc(X = r$X, W = diag(1/(d$vi + res$tau2), nrow = k, ncol = k), k = k) })))
      cs <- round(seq(2, k, length.out = ${SAMPLE}))
      per.cum <- sapply(cs, function(i) el(rma.uni(d$yi[1:i], d$vi[1:i], method = method, test = "knha")))
      t.l1o <- k * per.l1o; t.inf <- k * per.inf
      t.cum <- sum(diff(cs) * (head(per.cum, -1) + tail(per.cum, -1)) / 2)
      how <- "estimated"
    }
    cat(method, label, k, t.inf, t.l1o, t.cum, t.sub, how, "\n")
  }
}`;
    writeFileSync(path.join(hdir, "het.R"), script);
    const res = spawnSync("Rscript", ["--vanilla", path.join(hdir, "het.R")], { encoding: "utf8", maxBuffer: 1 << 26 });
    if (res.error || res.status !== 0)
      rErr = res.error ? "Rscript not found" : `Rscript failed: ${res.stderr.trim().split("\n").slice(-2).join(" ")}`;
    else
      for (const line of res.stdout.trim().split("\n")) {
        const [method, label, k, inf, l1o, cum, sub, how] = line.trim().split(/\s+/);
        rRes[`${method}/${label}`] = {
          k: Number(k),
          influence: Number(inf),
          leave1out: Number(l1o),
          cumul: Number(cum),
          subgroup: Number(sub),
          how,
        };
      }
  } finally {
    rmSync(hdir, { recursive: true, force: true });
  }
  console.log(
    `\nExplaining heterogeneity (issue 29), test knha, CPU time (user + system): engine median of ${HET_RUNS} runs; metafor in the same run`,
  );
  console.log(
    `${pad("method", 6)} ${pad("studies", 8)} ${pad("analysis", 22)} ${pad("engine ms", 10)} ${pad("metafor ms", 11)} ${pad("metafor", 10)} ${pad("speed-up", 9)}`,
  );
  let okSpeed = true;
  let okSub = true;
  for (const method of METHODS) {
    for (const label of ["small", "big"]) {
      const e = eng[`${method}/${label}`];
      const m = rRes[`${method}/${label}`];
      const k = label === "big" ? HET_K : SMALL_K;
      const trio = e.influence + e.leave1out + e.cumul;
      const rows = [
        ["influence", e.influence, m?.influence],
        ["leave1out", e.leave1out, m?.leave1out],
        ["cumul", e.cumul, m?.cumul],
        ["influence+l1o+cumul", trio, m ? m.influence + m.leave1out + m.cumul : undefined],
        ["subgroup (5 + mixed)", e.subgroup, m?.subgroup],
      ];
      for (const [name, ems, rms] of rows) {
        const how = name.startsWith("subgroup") ? "full" : (m?.how ?? "—");
        console.log(
          `${pad(method, 6)} ${pad(k.toLocaleString("en"), 8)} ${pad(name, 22)} ${pad(ems.toFixed(1), 10)} ${pad(rms !== undefined ? rms.toFixed(0) : "—", 11)} ${pad(how, 10)} ${pad(rms !== undefined ? (rms / ems).toFixed(0) + "×" : "—", 9)}`,
        );
      }
      if (label === "big") {
        if (m && (m.influence + m.leave1out + m.cumul) / trio < 100) okSpeed = false;
        if (e.subgroup >= 50) okSub = false;
      }
    }
  }
  if (rErr) console.log(`metafor: ${rErr}`);
  console.log(
    `Target: influence + leave-one-out + cumulative on ${HET_K.toLocaleString("en")} studies ≥ 100× faster than metafor: ${rErr ? "metafor not run" : okSpeed ? "OK" : "NOT MET"}`,
  );
  console.log(
    `Target: subgroup analysis of ${HET_K.toLocaleString("en")} studies < 50 ms: ${okSub ? "OK" : "NOT MET"}`,
  );
}
