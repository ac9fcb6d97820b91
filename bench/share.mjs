#!/usr/bin/env node
// Share-page benchmark (issue 14 "bench/share"): time to first byte of a public health answer,
// GET /answer/{id} (server-rendered from its KV payload), next to a static asset (GET
// /favicon.svg) on the same server, the real Worker under `wrangler dev`. Target: median TTFB of
// the answer page ≤ median TTFB of the static asset + 5 ms.
//
// - One answer is shared first (POST /api/shared-answers, as the Share button does).
// - Requests go over one node:http keep-alive connection (as a browser holds one), alternating
//   page and asset so both see the same machine load; TTFB is from just before the request to the
//   first byte of the response (the response head).
// - WARMUP pairs are discarded; RUNS pairs are measured. Prints median, p10, p90 of each and the
//   difference of the medians against the target.
//
// Usage: npm run bench:share  (env RUNS, default 60; WARMUP, default 10; SKIP_BUILD=1 to reuse the
// build; BENCH_PORT / BENCH_REPLAY_PORT, default 8813 / 8814). State dir: .wrangler/bench-share-state.
import http from "node:http";
import { startDevServer, waitForServer } from "./lib/dev-server.mjs";

const RUNS = Number(process.env.RUNS ?? 60);
const WARMUP = Number(process.env.WARMUP ?? 10);
const PORT = Number(process.env.BENCH_PORT ?? 8813);
const REPLAY_PORT = Number(process.env.BENCH_REPLAY_PORT ?? 8814);
const TARGET_MS = 5;

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const quantile = (xs, q) => sorted(xs)[Math.min(xs.length - 1, Math.max(0, Math.round((xs.length - 1) * q)))];
const fmt = (x) => x.toFixed(2).padStart(8);

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** GET `path`; resolves with the TTFB in ms and the status, after draining the body. */
function ttfb(base, path) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.get(`${base}${path}`, { agent }, (res) => {
      const first = performance.now() - start;
      res.on("data", () => {});
      res.on("end", () => resolve({ ms: first, status: res.statusCode }));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

async function main() {
  const server = startDevServer({ port: PORT, replayPort: REPLAY_PORT, stateDir: "bench-share-state" });
  try {
    await waitForServer(server.base);
    const created = await fetch(`${server.base}/api/shared-answers`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.base },
      body: JSON.stringify({
        id: "123456",
        question: "Does vitamin D prevent fractures in older adults?",
        answer:
          "MetaMind found 2 studies that bear on this question. In plain terms, here is what they concluded:\n\nVitamin D supplementation did not reduce fractures in generally healthy older adults. [1]\n\nCalcium with vitamin D modestly lowers hip fracture risk in older people. [2]",
        studyCount: 2,
        studies: [
          {
            n: 1,
            title: "Supplemental Vitamin D and Incident Fractures in Midlife and Older Adults",
            url: "https://pubmed.ncbi.nlm.nih.gov/35857658/",
            journal: "N Engl J Med",
            year: "2022",
            quotes: [
              "Vitamin D3 supplementation did not result in a significantly lower risk of fractures than placebo among generally healthy midlife and older adults.",
            ],
          },
          {
            n: 2,
            title: "Calcium plus vitamin D and fracture prevention",
            url: "https://doi.org/10.1001/jamanetworkopen.2019.17789",
            journal: "JAMA Netw Open",
            year: "2019",
            quotes: ["Combined calcium and vitamin D supplementation reduced hip fracture risk."],
          },
        ],
        model: "MetaMind Offline Extractive v1",
      }),
    });
    if (created.status !== 201) throw new Error(`share failed: ${created.status} ${await created.text()}`);
    const { url } = await created.json();
    const page = new URL(url).pathname;
    const asset = "/favicon.svg";

    const floor = "/api/guest-usage";
    // A query string bypasses the Worker's share-page cache: the page is rendered from KV each time.
    const uncached = `${page}?bench=kv`;
    const paths = [page, uncached, asset, floor];
    const times = new Map(paths.map((p) => [p, []]));
    for (let i = 0; i < WARMUP + RUNS; i++) {
      // Rotate the order so no path always goes first after a pause.
      for (let k = 0; k < paths.length; k++) {
        const path = paths[(i + k) % paths.length];
        const r = await ttfb(server.base, path);
        if (r.status !== 200) throw new Error(`unexpected status ${r.status} for ${path}`);
        if (i >= WARMUP) times.get(path).push(r.ms);
      }
    }
    const pages = times.get(page);
    const assets = times.get(asset);
    const floors = times.get(floor);
    const mp = quantile(pages, 0.5);
    const ma = quantile(assets, 0.5);
    console.log(
      `bench/share: ${RUNS} pairs (after ${WARMUP} warm-up), one keep-alive connection, wrangler dev, ${new Date().toISOString()}`,
    );
    console.log("                               median      p10      p90   (TTFB, ms)");
    const rendered = times.get(uncached);
    console.log(
      `GET /answer/{id} (cached)        ${fmt(mp)} ${fmt(quantile(pages, 0.1))} ${fmt(quantile(pages, 0.9))}`,
    );
    console.log(
      `GET /answer/{id} (from KV)       ${fmt(quantile(rendered, 0.5))} ${fmt(quantile(rendered, 0.1))} ${fmt(quantile(rendered, 0.9))}`,
    );
    console.log(
      `GET ${asset} (static)          ${fmt(ma)} ${fmt(quantile(assets, 0.1))} ${fmt(quantile(assets, 0.9))}`,
    );
    console.log(
      `GET ${floor} (Worker) ${fmt(quantile(floors, 0.5))} ${fmt(quantile(floors, 0.1))} ${fmt(quantile(floors, 0.9))}`,
    );
    const diff = mp - ma;
    const diffKv = quantile(rendered, 0.5) - ma;
    console.log(
      `difference of medians, cached page − static: ${diff.toFixed(2)} ms; target ≤ ${TARGET_MS} ms: ${diff <= TARGET_MS ? "MET" : "MISSED"}`,
    );
    console.log(
      `difference of medians, page from KV − static: ${diffKv.toFixed(2)} ms; target ≤ ${TARGET_MS} ms: ${diffKv <= TARGET_MS ? "MET" : "MISSED"}`,
    );
  } finally {
    agent.destroy();
    server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
