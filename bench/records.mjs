#!/usr/bin/env node
// Records list at review size (issue 27, item 2): GET /api/reviews/{id}/records paged, on the real
// Worker under `wrangler dev` (local D1), for a review of RECORDS synthetic records (default
// 20,000: titles, 600-character abstracts, authors, journals and DOIs, imported as two RIS files).
// Printed: the first page (default 100, and 500), a search (`q`) and a filter, and a walk through
// every page of 500 by cursor — each as median time and JSON size.
//
// Usage: node bench/records.mjs [--json OUT.json]  (env RECORDS, default 20000; SKIP_BUILD=1 reuses
// the build). Ports 8813 (replay 8814); state in .wrangler/bench-records-state.
import { writeFileSync } from "node:fs";
import { loginPro, startDevServer, waitForServer } from "./lib/dev-server.mjs";

const RECORDS = Math.max(1000, Number(process.env.RECORDS ?? 20_000));
const jsonIndex = process.argv.indexOf("--json");
const jsonOut = jsonIndex > 0 ? process.argv[jsonIndex + 1] : null;

/** Deterministic filler words so abstracts are realistic in length but not identical. */
const WORDS =
  "randomised controlled trial adults depression exercise aerobic supervised outcome symptoms cohort analysis follow-up baseline intervention placebo effect sample participants weeks mean difference confidence interval".split(
    " ",
  );
const text = (seed, n) => Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * 13) % WORDS.length]).join(" ");

function ris(from, to) {
  const out = [];
  for (let i = from; i < to; i++) {
    out.push(
      [
        "TY  - JOUR",
        `TI  - ${i % 10 === 0 ? "Aerobic exercise" : "Soil nitrogen"} study ${i}: ${text(i, 12)}`,
        `AU  - Author${i % 97}, A`,
        `AU  - Writer${i % 89}, B`,
        `PY  - ${2000 + (i % 25)}`,
        `T2  - Journal of Synthetic Records ${i % 40}`,
        `DO  - 10.5555/bench.${i}`,
        `AB  - ${text(i, 80)}`.slice(0, 606),
        "ER  - ",
      ].join("\n"),
    );
  }
  return out.join("\n\n");
}

const server = startDevServer({ port: 8813, replayPort: 8814, stateDir: "bench-records-state" });
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
  const raw = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${raw.slice(0, 300)}`);
  return { json: JSON.parse(raw), ms, bytes: Buffer.byteLength(raw) };
}

const { json: created } = await api("POST", "/api/reviews", { title: "Records list bench" });
const reviewId = created.review.id;
const half = Math.ceil(RECORDS / 2);
for (const [from, to] of [
  [0, half],
  [half, RECORDS],
]) {
  const form = new FormData();
  form.set("file", new File([ris(from, to)], `bench-${from}.ris`));
  const { ms } = await api("POST", `/api/reviews/${reviewId}/import`, form);
  console.log(`imported ${to - from} records in ${(ms / 1000).toFixed(1)} s`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
async function measure(name, query, runs = 7) {
  const times = [];
  let last;
  for (let i = 0; i < runs; i++) {
    last = await api("GET", `/api/reviews/${reviewId}/records?${query}`);
    times.push(last.ms);
  }
  const row = {
    name,
    query,
    ms: Math.round(median(times)),
    bytes: last.bytes,
    records: last.json.records.length,
    total: last.json.total ?? null,
  };
  rows.push(row);
  console.log(
    `${name.padEnd(44)} ${String(row.ms).padStart(5)} ms  ${(row.bytes / 1000).toFixed(0).padStart(6)} KB  ${row.records} records${row.total === null ? "" : ` of ${row.total}`}`,
  );
}

console.log(`\nGET /api/reviews/{id}/records on ${RECORDS.toLocaleString("en")} records (median of 7):`);
await measure("first page (default limit 100)", "");
await measure("first page, limit=500", "limit=500");
await measure("search q=aerobic exercise (first page)", "q=aerobic%20exercise");
await measure("search matching nothing (q=zzzz)", "q=zzzz");
await measure("filter stage=title_abstract&decision=undecided", "stage=title_abstract&decision=undecided");

const walk = [];
let bytes = 0;
let seen = 0;
let cursor = null;
const walkStarted = performance.now();
do {
  const page = await api("GET", `/api/reviews/${reviewId}/records?limit=500${cursor ? `&cursor=${cursor}` : ""}`);
  walk.push(page.ms);
  bytes += page.bytes;
  seen += page.json.records.length;
  cursor = page.json.nextCursor;
} while (cursor);
const walkMs = performance.now() - walkStarted;
console.log(
  `walk of every page by cursor (limit 500): ${walk.length} pages, ${seen} records, median ${median(walk).toFixed(0)} ms, max ${Math.max(...walk).toFixed(0)} ms per page, ${(bytes / 1e6).toFixed(1)} MB in all, ${(walkMs / 1000).toFixed(1)} s`,
);
server.stop();
if (seen !== RECORDS) {
  console.error(`the walk saw ${seen} records, not ${RECORDS}`);
  process.exit(1);
}
if (jsonOut) {
  writeFileSync(
    jsonOut,
    JSON.stringify(
      {
        records: RECORDS,
        rows,
        walk: { pages: walk.length, medianMs: Math.round(median(walk)), maxMs: Math.round(Math.max(...walk)), bytes },
      },
      null,
      2,
    ),
  );
}
process.exit(0);
