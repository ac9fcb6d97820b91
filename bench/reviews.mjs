#!/usr/bin/env node
// Review screening latency benchmark (issue 13 "the next record shows in ≤ 100 ms"; issue 27
// "reviews at 20,000 records"): the real routes of the Worker under `wrangler dev` (local D1), on
// two reviews in the same run — SIZES records each (default 2,000 and 20,000), built from the three
// real screening datasets of ../shared/screening (3,000 records; for larger reviews they are
// repeated with " (copy k)" appended to each title, so no record is a duplicate of another) and
// imported as CSV files of ≤ 4,000 records through POST …/import.
//
// Per review it times the first GET …/screening/next after the import (which may have to rank
// the whole review), then screens ROUNDS records the way the page does — POST
// …/records/{id}/decision (stores the decision, answers with the next record; the model retrains
// after the answer) — each followed by GET …/screening/next (what shows the next record when the
// page opens). Printed: median and 95th percentile of each, and the targets of issue 27: decision
// and next ≤ 50 ms median at 20,000 records and within 2× of the same at 2,000; first next ≤ 500 ms.
//
// Also printed: the CPU time the dev server's workerd processes used per screened record (Linux),
// which load from other processes inflates far less than latency.
//
// Usage: node bench/reviews.mjs  (env ROUNDS, default 40; SIZES, default "2000,20000";
// SKIP_BUILD=1 reuses the build; BENCH_PORT, default 8811, and the replay server on the next port).
// State in .wrangler/bench-reviews-state.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Papa from "papaparse";
import { loginPro, root, startDevServer, waitForServer } from "./lib/dev-server.mjs";

const ROUNDS = Math.max(5, Number(process.env.ROUNDS ?? 40));
const THINK_MS = Number(process.env.THINK_MS ?? 0);
const SIZES = (process.env.SIZES ?? "2000,20000").split(",").map(Number);
const DIR = path.resolve(root, "../shared/screening");
const FILES = ["Nagtegaal_2019.csv", "Meijboom_2021.csv", "Sep_2021.csv"];
const CHUNK = 4000;
if (!FILES.every((f) => existsSync(path.join(DIR, f)))) {
  console.log(`skipped: ${DIR} not found (the screening datasets live outside the repo)`);
  process.exit(0);
}
const base = FILES.flatMap(
  (f) => Papa.parse(readFileSync(path.join(DIR, f), "utf8"), { header: true, skipEmptyLines: true }).data,
);

/** `size` records: the shared ones, then copies with " (copy k)" in the title and no DOI. */
function recordsOf(size) {
  return Array.from({ length: size }, (_, i) => {
    const r = base[i % base.length];
    const copy = Math.floor(i / base.length);
    return copy === 0 ? r : { ...r, record_id: `${r.record_id}-${copy}`, title: `${r.title} (copy ${copy})`, doi: "" };
  });
}
const key = (title) => title.replace(/\s+/g, " ").trim();

const PORT = Number(process.env.BENCH_PORT ?? 8811);
const server = startDevServer({ port: PORT, replayPort: PORT + 1, stateDir: "bench-reviews-state" });
await waitForServer(server.base);
const cookie = await loginPro(server.base);
const headers = { Cookie: cookie, Origin: server.base };

async function api(method, p, body) {
  const init = { method, headers: { ...headers } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const started = performance.now();
  const res = await fetch(`${server.base}${p}`, init);
  const json = await res.json();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return { json, ms };
}

/**
 * CPU time (ms) used so far by the dev server's workerd processes (Linux /proc; null elsewhere):
 * the Worker, its local D1 and R2 share them, so per screened record it is what the record cost
 * the machine — far less inflated than latency when other processes load the cores.
 */
function workerdCpuMs() {
  try {
    let ticks = 0;
    for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      let stat;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      } catch {
        continue;
      }
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // fields[2] = process group (the dev server runs in its own), [11]/[12] = utime/stime.
      if (name === "workerd" && Number(fields[2]) === server.child.pid)
        ticks += Number(fields[11]) + Number(fields[12]);
    }
    return (ticks * 1000) / 100;
  } catch {
    return null;
  }
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

async function benchReview(size) {
  const records = recordsOf(size);
  const labels = new Map(records.map((r) => [key(r.title), r.label_included === "1"]));
  const { json: created } = await api("POST", "/api/reviews", {
    title: `Bench review ${size}`,
    question: "screening benchmark",
  });
  const reviewId = created.review.id;
  let importMs = 0;
  for (let at = 0; at < records.length; at += CHUNK) {
    const csv = Papa.unparse(records.slice(at, at + CHUNK), {
      columns: ["record_id", "title", "abstract", "doi", "year", "label_included"],
    });
    const form = new FormData();
    form.set("file", new File([csv], `part-${at}.csv`, { type: "text/csv" }));
    importMs += (await api("POST", `/api/reviews/${reviewId}/import`, form)).ms;
  }
  const first = await api("GET", `/api/reviews/${reviewId}/screening/next`);
  let next = first.json;
  const decideMs = [];
  const nextMs = [];
  const cpuBefore = workerdCpuMs();
  for (let i = 0; i < ROUNDS && next.record; i++) {
    const relevant = labels.get(key(next.record.title)) ?? false;
    const { json, ms } = await api("POST", `/api/reviews/${reviewId}/records/${next.record.id}/decision`, {
      stage: "title_abstract",
      decision: relevant ? "include" : "exclude",
    });
    decideMs.push(ms);
    if (THINK_MS > 0) await new Promise((resolve) => setTimeout(resolve, THINK_MS));
    nextMs.push((await api("GET", `/api/reviews/${reviewId}/screening/next`)).ms);
    next = json.next;
  }
  // Let the last retraining end, so each size is charged for the retrainings its decisions caused.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const cpuAfter = workerdCpuMs();
  const cpuMs = cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / decideMs.length;
  return { size, total: first.json.progress.total, importMs, firstNextMs: first.ms, decideMs, nextMs, cpuMs };
}

const results = [];
for (const size of SIZES) results.push(await benchReview(size));
server.stop();

const fmt = (xs) => `median ${quantile(xs, 0.5).toFixed(0)} ms, p95 ${quantile(xs, 0.95).toFixed(0)} ms`;
for (const r of results) {
  console.log(
    `review of ${r.total} records (imported in ${(r.importMs / 1000).toFixed(1)} s), ${r.decideMs.length} decisions`,
  );
  console.log(`  first GET …/screening/next after the import: ${r.firstNextMs.toFixed(0)} ms   target ≤ 500 ms`);
  console.log(`  GET  …/screening/next:  ${fmt(r.nextMs)}   target ≤ 50 ms median`);
  console.log(
    `  POST …/decision (store, answer with the next record; retrain after): ${fmt(r.decideMs)}   target ≤ 50 ms median`,
  );
  if (r.cpuMs !== null) {
    console.log(`  workerd CPU per screened record (decision + next + its retraining): ${r.cpuMs.toFixed(0)} ms`);
  }
}
if (results.length > 1) {
  const [small, large] = [results[0], results.at(-1)];
  const ratio = (xs, ys) => (quantile(ys, 0.5) / quantile(xs, 0.5)).toFixed(2);
  console.log(
    `${large.total} vs ${small.total} records, median ratio: next ${ratio(small.nextMs, large.nextMs)}×, decision ${ratio(small.decideMs, large.decideMs)}×   target ≤ 2×`,
  );
}
process.exit(0);
