#!/usr/bin/env node
// Streaming benchmark (issue 4 "bench/stream"): the real Worker under `wrangler dev`, the real
// route POST /api/studies/{id}/regenerate-summary, the offline model streaming one word every
// OFFLINE_MODEL_DELAY_MS (default 15 ms). It proves two things:
//
// 1. Time to first token at the HTTP client minus the model's own first-token time is small
//    (target ≤ 15 ms at the median).
//    - "The model's own first-token time" for the offline model is the time from its doStream()
//      call to its first text-delta part. The model emits its first delta at once (no delay
//      before it), so this is its compute time: extracting the summary from the abstract. It is
//      measured here, in this process, by running the very same model code (app/.server/ai/
//      offline-model.ts, bundled with esbuild) on the very same prompt (buildStudySummaryPrompt of
//      the study the route summarises), so the model's time is known without instrumenting the
//      Worker. Its later deltas follow on the schedule first + k × delay.
//    - The client's time to first token is from just before the request (node:http over a
//      keep-alive connection, as a browser holds one) to the first body chunk; the same through
//      fetch() (undici, which adds a few ms of its own) is printed beside it.
//    - The difference is what the app adds: routing, session and study lookup, metering, the
//      ai SDK's stream plumbing and the dev server's proxy. The dev server's own fixed cost per
//      request (an empty, signed-out GET /api/user round trip) is printed too, with the
//      difference net of the dev server's proxy (a static asset round trip), and the round trips
//      of a session lookup and of a study lookup, to
//      show where the time goes.
// 2. Chunks are forwarded as they come: for each answer, the number of words the model emitted
//    (its text-delta parts) against the number of body chunks the client read, and the spacing
//    between consecutive chunks (median, p10, p90) against the configured delay. Coalescing
//    (buffering) would show as fewer chunks than words and gaps near 0 or multiples of the delay.
//
// Usage: npm run bench:stream  (env RUNS, default 15; DELAY_MS, default 15; SKIP_BUILD=1 to reuse
// the build). Uses its own ports (8867, replay 8868) and state dir (.wrangler/bench-stream-state).
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { loginPro, root, startDevServer, waitForServer } from "./lib/dev-server.mjs";

const RUNS = Number(process.env.RUNS ?? 15);
const DELAY_MS = Number(process.env.DELAY_MS ?? 15);
const PORT = 8867;
const REPLAY_PORT = 8868;
const BASE = `http://127.0.0.1:${PORT}`;

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const quantile = (xs, q) => sorted(xs)[Math.min(xs.length - 1, Math.max(0, Math.round((xs.length - 1) * q)))];
const median = (xs) => quantile(xs, 0.5);
const fmt = (x) => (Number.isFinite(x) ? x.toFixed(1) : "n/a").padStart(8);

/** The offline model and the summary prompt builder, bundled from the app's own sources. */
async function loadModelCode() {
  const dir = mkdtempSync(path.join(tmpdir(), "mm-bench-stream-"));
  const out = path.join(dir, "model.mjs");
  await build({
    stdin: {
      contents: [
        `export { createOfflineModel } from "./app/.server/ai/offline-model.ts";`,
        `export { buildStudySummaryPrompt } from "./app/.server/ai/prompts.ts";`,
      ].join("\n"),
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: out,
    logLevel: "silent",
  });
  const mod = await import(pathToFileURL(out).href);
  rmSync(dir, { recursive: true, force: true });
  return mod;
}

/**
 * Runs the offline model exactly as streamText calls it for the summary route (system message,
 * then the user prompt) and returns its first-token time (doStream() call → first text-delta),
 * its words (text-delta parts) and its text.
 */
async function modelOwnTiming({ createOfflineModel, buildStudySummaryPrompt }, study) {
  const { system, prompt } = buildStudySummaryPrompt(study);
  const model = createOfflineModel({ delayMs: DELAY_MS });
  const started = performance.now();
  const { stream } = await model.doStream({
    prompt: [
      { role: "system", content: system },
      { role: "user", content: [{ type: "text", text: prompt }] },
    ],
  });
  const reader = stream.getReader();
  const at = [];
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.type === "text-delta") {
      at.push(performance.now() - started);
      text += value.delta;
    }
  }
  return { firstTokenMs: at[0], words: at.length, text, gaps: at.slice(1).map((t, k) => t - at[k]) };
}

/** One PubMed search through the replay server; returns the stored study with the longest abstract. */
async function studyFromSearch(cookie) {
  const res = await fetch(`${BASE}/api/search?q=${encodeURIComponent("physical activity smoking cessation")}`, {
    headers: { Accept: "application/json", Cookie: cookie },
  });
  if (!res.ok) throw new Error(`search failed: ${res.status}`);
  const { studies } = await res.json();
  const study = [...studies].sort((a, b) => (b.abstract?.length ?? 0) - (a.abstract?.length ?? 0))[0];
  if (!study?.abstract) throw new Error("the search returned no study with an abstract");
  return study;
}

/** Keep-alive connections, as a browser keeps them to the site it is on. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/**
 * One regenerate-summary request over node:http (the lean client: undici's fetch adds a few ms of
 * its own before it hands over the first chunk, measured separately): client-side timings of the
 * headers and of every body chunk.
 */
function oneStream(cookie, studyId) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(
      `${BASE}/api/studies/${studyId}/regenerate-summary`,
      { method: "POST", agent, headers: { Origin: BASE, Cookie: cookie, "Content-Length": 0 } },
      (res) => {
        const headersAt = performance.now() - started;
        const chunks = [];
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (value) => {
          chunks.push(performance.now() - started);
          text += value;
        });
        res.on("end", () => {
          if (res.statusCode !== 200) reject(new Error(`regenerate-summary answered ${res.statusCode}: ${text}`));
          else resolve({ headersAt, chunks, text, encoding: res.headers["content-encoding"] ?? null });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** The same request through fetch (undici): time to the first body chunk only. */
async function fetchFirstChunk(cookie, studyId) {
  const started = performance.now();
  const res = await fetch(`${BASE}/api/studies/${studyId}/regenerate-summary`, {
    method: "POST",
    headers: { Origin: BASE, Cookie: cookie },
  });
  const reader = res.body.getReader();
  await reader.read();
  const first = performance.now() - started;
  await reader.cancel();
  return first;
}

/** Median-ready round trips of a GET over node:http (31 samples). */
async function roundTrip(url, headers = {}) {
  const times = [];
  for (let i = 0; i < 31; i++) {
    const t = performance.now();
    await new Promise((resolve, reject) => {
      http
        .get(url, { agent, headers }, (res) => {
          res.resume();
          res.on("end", resolve);
        })
        .on("error", reject);
    });
    times.push(performance.now() - t);
  }
  return times;
}

const { stop } = startDevServer({
  port: PORT,
  replayPort: REPLAY_PORT,
  stateDir: "bench-stream-state",
  env: { EXTRA_VARS: `OFFLINE_MODEL_DELAY_MS:${DELAY_MS}` },
});
try {
  const code = await loadModelCode();
  await waitForServer(BASE);
  const cookie = await loginPro(BASE);
  const study = await studyFromSearch(cookie);

  // The model's own timing, on the same prompt (warm the code first, as the Worker is warmed).
  for (let i = 0; i < 3; i++) await modelOwnTiming(code, study);
  const modelRuns = [];
  for (let i = 0; i < RUNS; i++) modelRuns.push(await modelOwnTiming(code, study));
  const modelFirst = median(modelRuns.map((r) => r.firstTokenMs));
  const { words, text: modelText } = modelRuns[0];

  await oneStream(cookie, study.id); // warm-up: compiles the route's code paths
  // Where the time before the first token goes: the dev server's own proxy (a static asset, which
  // never reaches the Worker), an empty Worker request, plus the session lookup, plus the study
  // lookup (the route also reserves one metered use).
  const asset = await (await fetch(`${BASE}/`)).text().then((html) => html.match(/\/assets\/[^"]+\.js/)?.[0]);
  const proxy = asset ? await roundTrip(`${BASE}${asset}`) : [NaN];
  const baseline = await roundTrip(`${BASE}/api/user`);
  const withSession = await roundTrip(`${BASE}/api/user`, { Cookie: cookie });
  const studyLookup = await roundTrip(`${BASE}/api/studies/${study.id}`);

  const ttft = [];
  const ttfb = [];
  const chunkCounts = [];
  const gaps = [];
  let mismatches = 0;
  let encoding = null;
  for (let i = 0; i < RUNS; i++) {
    const run = await oneStream(cookie, study.id);
    encoding = run.encoding;
    ttfb.push(run.headersAt);
    ttft.push(run.chunks[0]);
    chunkCounts.push(run.chunks.length);
    for (let k = 1; k < run.chunks.length; k++) gaps.push(run.chunks[k] - run.chunks[k - 1]);
    if (run.text !== modelText) mismatches++;
  }
  const overhead = ttft.map((t) => t - modelFirst);
  const viaFetch = [];
  for (let i = 0; i < RUNS; i++) viaFetch.push((await fetchFirstChunk(cookie, study.id)) - modelFirst);
  const equalCounts = chunkCounts.filter((c) => c === words).length;
  const coalesced = gaps.filter((g) => g < DELAY_MS / 3).length;

  console.log(`Streaming through POST /api/studies/${study.id}/regenerate-summary (wrangler dev, offline model)`);
  console.log(`study: "${study.title.slice(0, 70)}"  abstract ${study.abstract.length} chars  ${RUNS} runs`);
  console.log(`model: one word per ${DELAY_MS} ms, first word at once; answer = ${words} words`);
  console.log("");
  console.log("time to first token (ms)                          median      p90   target");
  console.log(`client: request → first body chunk             ${fmt(median(ttft))} ${fmt(quantile(ttft, 0.9))}`);
  console.log(`client: request → response headers            ${fmt(median(ttfb))} ${fmt(quantile(ttfb, 0.9))}`);
  console.log(
    `model's own: doStream() → first text-delta     ${fmt(modelFirst)} ${fmt(
      quantile(
        modelRuns.map((r) => r.firstTokenMs),
        0.9,
      ),
    )}`,
  );
  console.log(
    `client TTFT − model's own TTFT                 ${fmt(median(overhead))} ${fmt(quantile(overhead, 0.9))}     ≤ 15`,
  );
  console.log(
    `  the same through fetch() (undici)            ${fmt(median(viaFetch))} ${fmt(quantile(viaFetch, 0.9))}`,
  );
  console.log(`client TTFT − model TTFT − dev proxy          ${fmt(median(overhead) - median(proxy))}`);
  console.log("");
  console.log("where the time before the first token goes (round trips, ms)   median");
  console.log(`dev server proxy alone (static asset, no Worker)             ${fmt(median(proxy))}`);
  console.log(`empty request, signed out (GET /api/user)                   ${fmt(median(baseline))}`);
  console.log(`  + session lookup (GET /api/user, signed in)               ${fmt(median(withSession))}`);
  console.log(`study lookup alone (GET /api/studies/{id}, signed out)      ${fmt(median(studyLookup))}`);
  console.log("");
  console.log("chunks forwarded as they come                         value   expected");
  console.log(`words the model emitted per answer               ${String(words).padStart(10)}`);
  console.log(
    `body chunks the client read per answer (median)  ${String(median(chunkCounts)).padStart(10)} ${String(words).padStart(10)}`,
  );
  console.log(
    `runs with exactly one chunk per word             ${`${equalCounts}/${RUNS}`.padStart(10)} ${`${RUNS}/${RUNS}`.padStart(10)}`,
  );
  const modelGaps = modelRuns.flatMap((r) => r.gaps);
  console.log(
    `inter-chunk spacing median (ms)                  ${fmt(median(gaps)).padStart(10)} ${String(DELAY_MS).padStart(10)}`,
  );
  console.log(
    `the model's own inter-word spacing median (ms)   ${fmt(median(modelGaps)).padStart(10)} ${String(DELAY_MS).padStart(10)}`,
  );
  console.log(
    `inter-chunk spacing p10 / p90 (ms)               ${`${quantile(gaps, 0.1).toFixed(1)} / ${quantile(gaps, 0.9).toFixed(1)}`.padStart(10)}`,
  );
  console.log(
    `gaps under ${(DELAY_MS / 3).toFixed(0)} ms (coalesced words)               ${String(coalesced).padStart(10)} ${"0".padStart(10)}`,
  );
  console.log(
    `answers identical to the model's own text        ${`${RUNS - mismatches}/${RUNS}`.padStart(10)} ${`${RUNS}/${RUNS}`.padStart(10)}`,
  );
  console.log(
    `Content-Encoding of the stream                   ${String(encoding).padStart(10)} ${"identity".padStart(10)}`,
  );
} finally {
  stop();
}
process.exit(0);
