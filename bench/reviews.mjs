#!/usr/bin/env node
// Review screening latency benchmark (issue 13: "the next record shows in ≤ 100 ms"): the real
// routes of the Worker under `wrangler dev` (local D1), on a review of the three real screening
// datasets of ../shared/screening (3,000 records, imported as CSV through POST …/import).
//
// It screens ROUNDS records the way the page does — POST …/records/{id}/decision (which stores the
// decision, re-trains the ranking on every decision so far, stores the new order and answers with
// the next record) — and separately times GET …/screening/next (what shows the next record when
// the page opens). Printed: median and 95th percentile of each, with the import time.
//
// Usage: node bench/reviews.mjs  (env ROUNDS, default 40; SKIP_BUILD=1 reuses the build).
// Ports 8811 (replay 8812); state in .wrangler/bench-reviews-state. Needs ../shared/screening.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { loginPro, root, startDevServer, waitForServer } from "./lib/dev-server.mjs";

const ROUNDS = Math.max(5, Number(process.env.ROUNDS ?? 40));
const DIR = path.resolve(root, "../shared/screening");
const FILES = ["Nagtegaal_2019.csv", "Meijboom_2021.csv", "Sep_2021.csv"];
if (!FILES.every((f) => existsSync(path.join(DIR, f)))) {
  console.log(`skipped: ${DIR} not found (the screening datasets live outside the repo)`);
  process.exit(0);
}

const server = startDevServer({ port: 8811, replayPort: 8812, stateDir: "bench-reviews-state" });
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

const { json: created } = await api("POST", "/api/reviews", { title: "Bench review", question: "screening benchmark" });
const reviewId = created.review.id;
const labels = new Map();
let importMs = 0;
for (const f of FILES) {
  const text = readFileSync(path.join(DIR, f), "utf8");
  const form = new FormData();
  form.set("file", new File([text], f, { type: "text/csv" }));
  const { ms } = await api("POST", `/api/reviews/${reviewId}/import`, form);
  importMs += ms;
  for (const line of text.split("\n").slice(1)) {
    const m = line.match(/,(0|1)\s*$/);
    const title = line.match(/^\d+,("(?:[^"]|"")*"|[^,]*),/)?.[1]?.replace(/^"|"$/g, "").replace(/""/g, '"');
    if (m && title) labels.set(title.replace(/\s+/g, " ").trim(), m[1] === "1");
  }
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

let { json: next } = await api("GET", `/api/reviews/${reviewId}/screening/next`);
const total = next.progress.total;
const decideMs = [];
const nextMs = [];
for (let i = 0; i < ROUNDS && next.record; i++) {
  const relevant = labels.get(next.record.title.replace(/\s+/g, " ").trim()) ?? false;
  const { json, ms } = await api("POST", `/api/reviews/${reviewId}/records/${next.record.id}/decision`, {
    stage: "title_abstract",
    decision: relevant ? "include" : "exclude",
  });
  decideMs.push(ms);
  const read = await api("GET", `/api/reviews/${reviewId}/screening/next`);
  nextMs.push(read.ms);
  next = json.next;
}
server.stop();

const fmt = (xs) => `median ${quantile(xs, 0.5).toFixed(0)} ms, p95 ${quantile(xs, 0.95).toFixed(0)} ms`;
console.log(`review of ${total} records (3 CSV files imported in ${(importMs / 1000).toFixed(1)} s), ${decideMs.length} decisions`);
console.log(`GET  …/screening/next (shows the next record):            ${fmt(nextMs)}   target ≤ 100 ms`);
console.log(`POST …/decision (store, retrain on all decisions, rank ${total}, answer with the next record): ${fmt(decideMs)}`);
process.exit(0);
