// Lighthouse (the `lighthouse` package, mobile preset) driving Debian's chromium, and the initial
// JavaScript of a served page; shared by bench/lighthouse.mjs and tests/e2e/lighthouse.spec.ts.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import lighthouse from "lighthouse";
import { gzipTotal, initialScriptUrls } from "../../scripts/lib/page-budget.mjs";

/** The three categories under the ≥ 95 target (issue 17). */
export const CATEGORIES = ["performance", "accessibility", "best-practices"];
/** Lowest acceptable score (0–100) in each category. */
export const MIN_SCORE = 95;

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

/**
 * Audits `url` with Lighthouse's default (mobile) configuration in the chromium on DevTools `port`.
 * Resolves `{ scores: { performance, accessibility, "best-practices" } (0–100), failing: string[]
 * (ids of the failed audits that weigh on a score under 100, for the report), seconds }`.
 * Throws on a runtime error of Lighthouse (e.g. the page did not load).
 */
export async function auditPage(url, port) {
  const started = performance.now();
  const result = await lighthouse(url, { port, output: "json", logLevel: "error", onlyCategories: CATEGORIES });
  const lhr = result?.lhr;
  if (!lhr) throw new Error(`lighthouse returned no result for ${url}`);
  if (lhr.runtimeError) throw new Error(`lighthouse ${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
  const scores = Object.fromEntries(CATEGORIES.map((id) => [id, Math.round((lhr.categories[id]?.score ?? 0) * 100)]));
  const failing = CATEGORIES.flatMap((id) =>
    lhr.categories[id].auditRefs
      .filter((ref) => ref.weight > 0 && lhr.audits[ref.id]?.score !== null && lhr.audits[ref.id]?.score < 1)
      .map((ref) => `${id}:${ref.id}(${lhr.audits[ref.id].score})`),
  );
  return { scores, failing, seconds: (performance.now() - started) / 1000 };
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
