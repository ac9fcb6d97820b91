// Lighthouse (the `lighthouse` package, mobile preset) driving Debian's chromium, and the initial
// JavaScript of a served page; shared by bench/lighthouse.mjs and tests/e2e/lighthouse.spec.ts.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import lighthouse from "lighthouse";
import * as lighthouseConstants from "lighthouse/core/config/constants.js";
import { gzipTotal, initialScriptUrls } from "../../scripts/lib/page-budget.mjs";

/** The three categories under the ≥ 95 target (issue 17). */
export const CATEGORIES = ["performance", "accessibility", "best-practices"];
/** Lowest acceptable score (0–100) in each category. */
export const MIN_SCORE = 95;

/** A shared answer as the Share button posts it (two studies with quotes). */
export const SAMPLE_ANSWER = {
  id: "bench-lighthouse-1",
  question: "Does vitamin D prevent fractures in older adults?",
  answer:
    "MetaMind found 2 studies that bear on this question. In plain terms, here is what they concluded:\n\n" +
    "Vitamin D supplementation did not reduce fractures in generally healthy older adults. [1]\n\n" +
    "Calcium with vitamin D modestly lowers hip fracture risk in older people. [2]",
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
};

/** The guest search the page audits load (PubMed answers from the replay server). */
export const SEARCH_PATH = "/search?q=heart%20failure&db=pubmed";

/**
 * Starts headless chromium (CHROMIUM_PATH, default /usr/bin/chromium) with a fresh profile and a
 * DevTools port chosen by chromium. Resolves `{ port, close(): Promise }` once DevTools listens; rejects
 * after 30 s or when chromium exits first.
 */
export function launchChromium() {
  const profile = mkdtempSync(path.join(tmpdir(), "metamind-lighthouse-"));
  const child = spawn(
    process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  /** Stops chromium and removes its profile once it has exited. */
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGKILL");
      await exited;
    }
    rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
  };
  return new Promise((resolve, reject) => {
    let stderr = "";
    const timer = setTimeout(() => {
      close();
      reject(new Error(`chromium did not open DevTools within 30 s:\n${stderr}`));
    }, 30_000);
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ port: Number(match[1]), close });
        child.stderr.removeAllListeners("data");
        child.stderr.resume();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
      reject(new Error(`chromium exited (${code}) before DevTools listened:\n${stderr}`));
    });
  });
}

/** Share of the machine's CPU time spent busy (0–1) while measuring, and how long to wait at most. */
const QUIET_CPU = { busy: 0.25, windowMs: 1000, timeoutMs: 10_000 };

/** Total and idle jiffies of all CPUs from /proc/stat (Linux); null elsewhere. */
function cpuTimes() {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3] + (fields[4] ?? 0);
    return { total: fields.reduce((a, b) => a + b, 0), idle };
  } catch {
    return null;
  }
}

/**
 * Waits until the machine is quiet before a timing-based audit: the share of all CPUs' time spent
 * busy over one `windowMs` window is at most `busy` (Lighthouse's guidance: measure on an idle
 * host; its simulated throttling multiplies the observed task times, so time stolen by other
 * processes — the suite's server finishing earlier tests' background jobs — counts as the page's
 * own blocking time). Gives up after `timeoutMs` and audits anyway. Resolves the busy share of the
 * last window (null where /proc/stat is unavailable).
 */
export async function waitForQuietCpu({ busy, windowMs, timeoutMs } = QUIET_CPU) {
  const deadline = performance.now() + timeoutMs;
  let share = null;
  for (;;) {
    const a = cpuTimes();
    await new Promise((done) => setTimeout(done, windowMs));
    const b = cpuTimes();
    if (!a || !b || b.total === a.total) return share;
    share = 1 - (b.idle - a.idle) / (b.total - a.total);
    if (share <= busy || performance.now() >= deadline) return share;
  }
}

/**
 * The slowest host Lighthouse's default 4× CPU slowdown is calibrated for: its throttling guide
 * (docs/throttling.md, "CPU throttling") puts a high-end desktop at a benchmarkIndex of 1500–2000
 * and says the 4× multiplier, which brings such a host to a mid-tier phone, is calibrated for that
 * class, to be adjusted on other hosts.
 */
export const CALIBRATED_BENCHMARK_INDEX = 1500;

/**
 * The CPU slowdown multiplier that emulates Lighthouse's default phone on a host of
 * `benchmarkIndex`: 4 on a host at or above CALIBRATED_BENCHMARK_INDEX (Lighthouse's default,
 * never less strict), on a slower host 4 × benchmarkIndex / 1500, so the emulated phone is as
 * fast as 4× makes a 1500 host — not slower because a shared CI machine was slow at that minute
 * (its index swings 1000–1700 here). No index (null) keeps 4.
 * @param {number | null} benchmarkIndex
 * @returns {number}
 */
export function cpuSlowdownFor(benchmarkIndex) {
  const standard = lighthouseConstants.throttling.mobileSlow4G.cpuSlowdownMultiplier;
  if (!(benchmarkIndex > 0) || benchmarkIndex >= CALIBRATED_BENCHMARK_INDEX) return standard;
  return (standard * benchmarkIndex) / CALIBRATED_BENCHMARK_INDEX;
}

/**
 * Audits `url` with Lighthouse's default (mobile) configuration in the chromium on DevTools `port`,
 * its CPU slowdown calibrated to the host (cpuSlowdownFor the benchmarkIndex of a first, short
 * Lighthouse pass over the same page).
 * Resolves `{ scores: { performance, accessibility, "best-practices" } (0–100), failing: string[]
 * (ids of the failed audits that weigh on a score under 100, for the report), seconds, cpuBusy (the
 * machine's busy share just before the audit, see waitForQuietCpu), benchmarkIndex (Lighthouse's
 * measure of the host's speed in the calibration pass), cpuSlowdown (the multiplier used) }`.
 * Throws on a runtime error of Lighthouse (e.g. the page did not load).
 */
export async function auditPage(url, port) {
  const cpuBusy = await waitForQuietCpu();
  const started = performance.now();
  const calibration = await lighthouse(url, {
    port,
    output: "json",
    logLevel: "error",
    onlyAudits: ["first-contentful-paint"],
  });
  const hostIndex = calibration?.lhr?.environment?.benchmarkIndex ?? null;
  const cpuSlowdown = cpuSlowdownFor(hostIndex);
  const result = await lighthouse(url, {
    port,
    output: "json",
    logLevel: "error",
    onlyCategories: CATEGORIES,
    throttling: { ...lighthouseConstants.throttling.mobileSlow4G, cpuSlowdownMultiplier: cpuSlowdown },
    // Screenshots weigh on no score and cost seconds per page.
    skipAudits: ["full-page-screenshot", "screenshot-thumbnails", "final-screenshot"],
  });
  const lhr = result?.lhr;
  if (!lhr) throw new Error(`lighthouse returned no result for ${url}`);
  if (lhr.runtimeError) throw new Error(`lighthouse ${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
  const scores = Object.fromEntries(CATEGORIES.map((id) => [id, Math.round((lhr.categories[id]?.score ?? 0) * 100)]));
  const failing = CATEGORIES.flatMap((id) =>
    lhr.categories[id].auditRefs
      .filter((ref) => ref.weight > 0 && lhr.audits[ref.id]?.score !== null && lhr.audits[ref.id]?.score < 1)
      .map((ref) => `${id}:${ref.id}(${lhr.audits[ref.id].score})`),
  );
  return {
    scores,
    failing,
    seconds: (performance.now() - started) / 1000,
    cpuBusy,
    benchmarkIndex: hostIndex,
    cpuSlowdown: lhr.configSettings?.throttling?.cpuSlowdownMultiplier ?? cpuSlowdown,
  };
}

/**
 * The initial JavaScript of a served page: fetches `url`, takes every script and modulepreload
 * its HTML references (scripts/lib/page-budget.mjs) and gzips each as served. Resolves
 * `{ files, gzipBytes, rawBytes, largest }`.
 */
export async function servedInitialJs(url, headers = {}) {
  const res = await fetch(url, { headers });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  const paths = initialScriptUrls(await res.text(), new URL(url).origin);
  const bodies = new Map();
  await Promise.all(
    paths.map(async (p) => {
      const script = await fetch(new URL(p, url));
      if (!script.ok) throw new Error(`GET ${p}: ${script.status}`);
      bodies.set(p, Buffer.from(await script.arrayBuffer()));
    }),
  );
  return gzipTotal(paths, (p) => bodies.get(p));
}
