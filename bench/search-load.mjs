#!/usr/bin/env node
// Search under load (issue 17): the real Worker under `wrangler dev`, six databases served by the
// replay server with no added latency, N concurrent signed-in six-database searches for a fixed
// time, first all the same query (answered from the search cache), then a distinct query each
// (every database called). Prints per phase: searches/s, p50/p95/p99 latency, D1 rows written per
// search, and the Worker's (workerd's) resident memory before, during (peak) and 30 s after; then
// the uncached load once more, to tell memory kept for reuse from memory lost (a leak grows again),
// and the Worker isolate's own V8 heap after a full GC (through workerd's inspector) at each point.
//
// Rows written are read from the local D1 database itself (the SQLite file wrangler dev keeps):
// studies rows inserted or updated, AI summaries and search-history rows created during the phase.
// Then, as memory baselines from the same run, as many GET /favicon.svg (a static asset: none of
// the Worker's code runs) and GET /api/health requests at the same concurrency, each on a fresh
// dev server (what wrangler dev itself keeps per request).
// Usage: npm run bench:search-load   (env CONCURRENCY=50, DURATION_S=20, SETTLE_S=30,
// PORT=8863, REPLAY_PORT=8864, SKIP_BUILD=1 to reuse the build)
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loginPro, root, startDevServer, waitForServer } from "./lib/dev-server.mjs";
import { findWorkerInspector, workerHeapMb } from "./lib/worker-heap.mjs";

// node:sqlite needs Node 22.5+; the project's own Node (node_modules/.bin/node) has it.
if (Number(process.versions.node.split(".")[0]) < 23 && !process.env.SEARCH_LOAD_REEXEC) {
  const node = path.join(root, "node_modules/.bin/node");
  const result = spawnSync(node, [fileURLToPath(import.meta.url)], {
    stdio: "inherit",
    env: { ...process.env, SEARCH_LOAD_REEXEC: "1" },
  });
  process.exit(result.status ?? 1);
}
const { DatabaseSync } = await import("node:sqlite");

const CONCURRENCY = Number(process.env.CONCURRENCY ?? 50);
const DURATION_S = Number(process.env.DURATION_S ?? 20);
const SETTLE_S = Number(process.env.SETTLE_S ?? 30);
const PORT = Number(process.env.PORT ?? 8863);
const REPLAY_PORT = Number(process.env.REPLAY_PORT ?? 8864);
const BASE = `http://127.0.0.1:${PORT}`;
const STATE = "bench-search-load";
const SIX = "pubmed,crossref,europepmc,core,semanticscholar,doaj";
const TARGETS = { cached: 80, uncached: 40 };
/** Issue 17's measurement before this change (200 concurrent, same machine, replay server). */
const ISSUE_BASELINE =
  "before (issue 17, 200 concurrent): uncached 16.6/s p50 11.6 s; cached 16.2/s p50 11.7 s; ~150 rows/search; RSS 785 MB → 1.78 GB, stayed";

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * q))] : NaN;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The workerd processes under the dev server's process group: [{pid, ppid, rss (KB), comm}]. */
function workerdProcesses(rootPid) {
  const out = execFileSync("ps", ["-eo", "pid=,ppid=,rss=,comm="], { encoding: "utf8" });
  const procs = out
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .map(([pid, ppid, rss, comm]) => ({ pid: Number(pid), ppid: Number(ppid), rss: Number(rss), comm }));
  const inTree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) {
      if (!inTree.has(p.pid) && inTree.has(p.ppid)) {
        inTree.add(p.pid);
        grew = true;
      }
    }
  }
  return procs.filter((p) => inTree.has(p.pid) && p.comm.startsWith("workerd"));
}

/** Resident memory (MB) of every workerd process under the dev server's process group. */
function workerRssMb(rootPid) {
  return workerdProcesses(rootPid).reduce((sum, p) => sum + p.rss, 0) / 1024;
}

/** The local D1 database file wrangler dev writes (one SQLite file per database). */
function d1File() {
  const dir = path.join(root, ".wrangler", STATE, "v3/d1/miniflare-D1DatabaseObject");
  const file = readdirSync(dir).find((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (!file) throw new Error(`no D1 database under ${dir}`);
  return path.join(dir, file);
}

/** Rows written since `since` (ms): studies inserted or updated, summaries and history entries created. */
function rowsWrittenSince(since) {
  const db = new DatabaseSync(d1File(), { readOnly: true });
  try {
    const q = (sql) => Number(db.prepare(sql).get(since).n);
    return (
      q("SELECT count(*) AS n FROM studies WHERE updated_at >= ?") +
      q("SELECT count(*) AS n FROM ai_summaries WHERE updated_at >= ?") +
      q("SELECT count(*) AS n FROM search_history WHERE created_at >= ?")
    );
  } finally {
    db.close();
  }
}

async function search(cookie, query) {
  const params = new URLSearchParams({ q: query, searchProviders: SIX });
  const t = performance.now();
  const res = await fetch(`${BASE}/api/search?${params}`, { headers: { Cookie: cookie } });
  const body = await res.json();
  const ms = performance.now() - t;
  if (!res.ok) throw new Error(`search ${res.status}: ${body.message}`);
  const failed = Object.entries(body.providers).filter(([, r]) => r.status !== "ok" && r.status !== "unavailable");
  if (failed.length) throw new Error(`providers failed: ${JSON.stringify(failed)}`);
  return { ms, cached: Object.values(body.providers).every((r) => r.status !== "ok" || r.cached) };
}

/** CONCURRENCY loops searching for DURATION_S; `queryOf(i)` names the i-th search's query. */
async function phase(name, cookie, rootPid, queryOf) {
  const since = Date.now();
  const latencies = [];
  let errors = 0;
  let cachedCount = 0;
  let n = 0;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, workerRssMb(rootPid))), 500);
  const end = performance.now() + DURATION_S * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        try {
          const r = await search(cookie, queryOf(n++));
          latencies.push(r.ms);
          if (r.cached) cachedCount++;
        } catch (error) {
          errors++;
          if (errors <= 3) console.error(`${name}: ${error.message}`);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  await sleep(1000); // deferred work (cache writes, history) finishes after the answers
  const written = rowsWrittenSince(since);
  return {
    name,
    count: latencies.length,
    errors,
    cachedCount,
    rate: latencies.length / seconds,
    latencies,
    written,
    peak,
  };
}

/**
 * A baseline for memory: a fresh dev server answering as many GET `path` requests as the searches
 * made, at the same concurrency — what wrangler dev itself (its proxy and miniflare's services
 * share the workerd processes) keeps per request. `/favicon.svg` is a static asset answered
 * without running any of the Worker's code; `/api/health` runs it (D1, KV and R2 checks). RSS
 * before, at the peak and SETTLE_S after.
 */
async function controlPhase(requests, path) {
  for (let i = 0; i < 60; i++) {
    const up = await fetch(`${BASE}/`).then(
      () => true,
      () => false,
    );
    if (!up) break;
    await sleep(500);
  }
  const server = startDevServer({
    port: PORT,
    replayPort: REPLAY_PORT,
    stateDir: `${STATE}-control`,
    env: { REPLAY_LATENCY_MS: "*=0" },
  });
  try {
    await waitForServer(BASE);
    await sleep(2000);
    const before = workerRssMb(server.child.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, workerRssMb(server.child.pid))), 500);
    let count = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < requests) {
          const res = await fetch(`${BASE}${path}`);
          await res.arrayBuffer();
          if (res.ok) count++;
        }
      }),
    );
    clearInterval(sampler);
    await sleep(SETTLE_S * 1000);
    return { count, before, peak, after: workerRssMb(server.child.pid) };
  } finally {
    server.stop();
  }
}

let totalSearches = 0;
const { child, stop } = startDevServer({
  port: PORT,
  replayPort: REPLAY_PORT,
  stateDir: STATE,
  env: { REPLAY_LATENCY_MS: "*=0" },
});
try {
  await waitForServer(BASE);
  const cookie = await loginPro(BASE);
  await search(cookie, "load warm up");
  await search(cookie, "exercise and sleep quality"); // fills the cache for the cached phase
  await sleep(2000);
  const inspector = await findWorkerInspector(workerdProcesses(child.pid).map((p) => p.pid));
  const heap = async () => (inspector ? workerHeapMb(inspector, `${BASE}/api/user`) : NaN);
  const heapBefore = await heap();
  const before = workerRssMb(child.pid);
  const cached = await phase("cached", cookie, child.pid, () => "exercise and sleep quality");
  const run = Date.now();
  const uncached = await phase("uncached", cookie, child.pid, (i) => `load query ${run} ${i}`);
  await sleep(SETTLE_S * 1000);
  const after = workerRssMb(child.pid);
  const heapAfter = await heap();
  totalSearches = cached.count + uncached.count;
  // The same uncached load once more: memory the first load left behind is either reused (RSS
  // stays about where it is) or was lost (RSS grows by about as much again).
  const again = await phase("uncached, again", cookie, child.pid, (i) => `load query again ${run} ${i}`);
  await sleep(SETTLE_S * 1000);
  const afterAgain = workerRssMb(child.pid);
  const heapAgain = await heap();

  console.log(
    `Search load: ${CONCURRENCY} concurrent six-database searches for ${DURATION_S} s per phase (replay latency 0)`,
  );
  console.log(`phase       searches   /s   target    p50 ms   p95 ms   p99 ms   errors   rows written/search`);
  for (const p of [cached, uncached]) {
    console.log(
      `${p.name.padEnd(10)} ${String(p.count).padStart(9)} ${p.rate.toFixed(1).padStart(6)}  ≥ ${String(TARGETS[p.name]).padEnd(4)} ${quantile(p.latencies, 0.5).toFixed(0).padStart(8)} ${quantile(p.latencies, 0.95).toFixed(0).padStart(8)} ${quantile(p.latencies, 0.99).toFixed(0).padStart(8)} ${String(p.errors).padStart(8)}   ${(p.written / Math.max(1, p.count)).toFixed(2)}${p.name === "cached" ? " (target 0)" : ""}`,
    );
  }
  console.log(`cached phase answered from the cache: ${cached.cachedCount}/${cached.count}`);
  console.log(
    `workerd RSS MB: before ${before.toFixed(0)}, peak during ${Math.max(cached.peak, uncached.peak).toFixed(0)}, ${SETTLE_S} s after ${after.toFixed(0)} (${(((after - before) / before) * 100).toFixed(1)}%; target within ±20%)`,
  );
  console.log(
    `second uncached phase (${again.count} searches, ${again.rate.toFixed(1)}/s): workerd RSS peak ${again.peak.toFixed(0)}, ${SETTLE_S} s after ${afterAgain.toFixed(0)} MB (${(((afterAgain - after) / after) * 100).toFixed(1)}% against after the first load; the first load added ${(((after - before) / before) * 100).toFixed(1)}%)`,
  );
  console.log(
    inspector
      ? `Worker isolate V8 heap after a full GC (MB): before ${heapBefore.toFixed(1)}, ${SETTLE_S} s after the load ${heapAfter.toFixed(1)} (${(((heapAfter - heapBefore) / heapBefore) * 100).toFixed(1)}%), after the second uncached phase ${heapAgain.toFixed(1)}`
      : "Worker isolate heap: no inspector found among the dev server's workerd processes",
  );
  console.log(ISSUE_BASELINE);
} finally {
  stop();
}
for (const path of ["/favicon.svg", "/api/health"]) {
  await sleep(2000);
  const control = await controlPhase(totalSearches, path);
  console.log(
    `control (fresh dev server, same run): ${control.count} GET ${path} at ${CONCURRENCY} concurrent: workerd RSS MB before ${control.before.toFixed(0)}, peak ${control.peak.toFixed(0)}, ${SETTLE_S} s after ${control.after.toFixed(0)} (${(((control.after - control.before) / control.before) * 100).toFixed(1)}%)`,
  );
}
process.exit(0);
