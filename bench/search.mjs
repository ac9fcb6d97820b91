#!/usr/bin/env node
// Search latency benchmark (issue 3): the real Worker under `wrangler dev` searches six databases
// simulated by the replay server with fixed latencies, serving the recorded real responses.
// Prints, over N cache-missing searches (a fresh query each time):
//   complete-search time − slowest provider's latency   (target ≤ 25 ms at the median)
//   first-results time   − fastest provider's latency   (target ≤ 50 ms at the median)
// and the time to de-duplicate 3,000 records (target ≤ 10 ms).
// It also measures the local dev server's fixed cost per request (an empty GET /api/user round
// trip through wrangler dev's proxy) and prints the complete-search overhead net of it, which is
// the Worker's own added time.
// A provider's latency is measured, not assumed: the time the replay server takes to answer that
// provider's requests when called directly (PubMed: esearch then efetch, in sequence). Usage: npm run bench:search  (env RUNS, default 15; PORT, REPLAY_PORT)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { loginPro, root, startDevServer, waitForServer } from "./lib/dev-server.mjs";

const RUNS = Number(process.env.RUNS ?? 15);
const PORT = Number(process.env.PORT ?? 8877);
const REPLAY_PORT = Number(process.env.REPLAY_PORT ?? 8878);
const BASE = `http://127.0.0.1:${PORT}`;
const LATENCY = { pubmed: 50, crossref: 120, europepmc: 300, core: 800, semanticscholar: 1500, doaj: 2500 };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];
const fmt = (x) => x.toFixed(1).padStart(7);

async function dedupeBench() {
  const dir = mkdtempSync(path.join(tmpdir(), "mm-bench-"));
  const out = path.join(dir, "dedupe.mjs");
  await build({
    stdin: {
      contents: `export { dedupeStudies } from "./app/.server/search/dedupe.ts";`,
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: out,
    logLevel: "silent",
  });
  const { dedupeStudies } = await import(pathToFileURL(out).href);
  rmSync(dir, { recursive: true, force: true });
  const providers = Object.keys(LATENCY);
  const lists = providers.map((source, p) =>
    Array.from({ length: 500 }, (_, i) => {
      const work = i < 400 ? i : 1000 + p * 100 + i;
      return {
        source,
        sourceId: `${source}-${i}`,
        title: `Randomised evaluation number ${work} of a treatment in older adults`,
        abstract: `Abstract of work ${work}. `.repeat(p + 2),
        authors: Array.from({ length: (i % 5) + 1 }, (_, k) => `Author ${k}`),
        journal: "Journal",
        publicationDate: "2021-02",
        pmid: p % 3 === 1 ? String(100000 + work) : null,
        pmcid: null,
        doi: p % 3 === 0 ? `10.1234/work.${work}` : null,
        studyType: "Research Article",
        publicationTypes: [],
        fullTextAvailable: false,
        isOpenAccess: false,
        openAccessUrl: null,
        citationCount: null,
        impactFactor: null,
        url: null,
      };
    }),
  );
  for (let i = 0; i < 5; i++) dedupeStudies(lists);
  const times = [];
  for (let i = 0; i < 21; i++) {
    const t = performance.now();
    dedupeStudies(lists);
    times.push(performance.now() - t);
  }
  return times;
}

/** The replay server's real answer time per provider (its delay plus its own overhead). */
async function measureProviderLatencies() {
  const base = `http://127.0.0.1:${REPLAY_PORT}`;
  const calls = {
    pubmed: async () => {
      await (await fetch(`${base}/pubmed/esearch.fcgi?db=pubmed&term=x&retmode=json`)).text();
      await (await fetch(`${base}/pubmed/efetch.fcgi`, { method: "POST", body: "db=pubmed&id=1&retmode=xml" })).text();
    },
    crossref: async () => (await fetch(`${base}/crossref/works?query=x&rows=25`)).text(),
    europepmc: async () => (await fetch(`${base}/europepmc/search?query=x&resultType=core&format=json`)).text(),
    core: async () => (await fetch(`${base}/core/search/works/?q=x&limit=25`)).text(),
    semanticscholar: async () => (await fetch(`${base}/semanticscholar/paper/search?query=x&limit=25`)).text(),
    doaj: async () => (await fetch(`${base}/doaj/search/articles/x?page=1&pageSize=25`)).text(),
  };
  const out = {};
  await Promise.all(
    Object.entries(calls).map(async ([id, call]) => {
      const times = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        await call();
        times.push(performance.now() - t);
      }
      out[id] = median(times);
    }),
  );
  return out;
}

async function oneSearch(cookie, query) {
  const params = new URLSearchParams({ q: query, searchProviders: Object.keys(LATENCY).join(",") });
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${PORT}/api/search?${params}`, {
    headers: { Accept: "application/x-ndjson", Cookie: cookie },
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let first = null;
  let done = null;
  const statuses = {};
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    buffer += value;
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const event = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      const t = performance.now() - started;
      if (event.type === "provider") {
        statuses[event.provider] = event.report.status;
        if (first === null && event.studies.length > 0) first = t;
      } else if (event.type === "done") done = t;
      else throw new Error(`search error: ${event.message}`);
    }
  }
  const bad = Object.entries(statuses).filter(([, s]) => s !== "ok");
  if (bad.length) throw new Error(`providers not ok: ${JSON.stringify(bad)}`);
  return { first, done };
}

const { stop } = startDevServer({
  port: PORT,
  replayPort: REPLAY_PORT,
  stateDir: "bench-state",
  env: {
    REPLAY_LATENCY_MS: Object.entries(LATENCY)
      .map(([k, v]) => `${k}=${v}`)
      .join(","),
  },
});
try {
  const dedupeTimes = await dedupeBench();
  await waitForServer(BASE);
  const cookie = await loginPro(BASE);
  const expected = await measureProviderLatencies();
  const slowest = Math.max(...Object.values(expected));
  const fastest = Math.min(...Object.values(expected));
  await oneSearch(cookie, "warm up query"); // first request compiles the Worker's code paths
  const baseline = [];
  for (let i = 0; i < 31; i++) {
    const t = performance.now();
    await (await fetch(`http://127.0.0.1:${PORT}/api/user`)).text();
    baseline.push(performance.now() - t);
  }
  const completes = [];
  const firsts = [];
  for (let i = 0; i < RUNS; i++) {
    const { first, done } = await oneSearch(cookie, `bench query ${Date.now()} ${i}`);
    completes.push(done - slowest);
    firsts.push(first - fastest);
  }
  console.log(`Search latency over ${RUNS} uncached six-database searches (ms)`);
  console.log(
    `replay delays: ${Object.entries(LATENCY)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
  console.log(
    `measured provider latencies: ${Object.entries(expected)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(", ")}`,
  );
  console.log(`                                      median     p90   target`);
  console.log(
    `complete − slowest provider (${slowest.toFixed(0)} ms) ${fmt(median(completes))} ${fmt(p90(completes))}   ≤ 25`,
  );
  console.log(
    `first results − fastest provider (${fastest.toFixed(0)} ms) ${fmt(median(firsts))} ${fmt(p90(firsts))}   ≤ 50`,
  );
  console.log(`dev-server round trip of an empty request ${fmt(median(baseline))} ${fmt(p90(baseline))}`);
  console.log(`complete − slowest − that round trip     ${fmt(median(completes) - median(baseline))}            ≤ 25`);
  console.log(`de-duplicate 3,000 records             ${fmt(median(dedupeTimes))} ${fmt(p90(dedupeTimes))}   ≤ 10`);
} finally {
  stop();
}
process.exit(0);
