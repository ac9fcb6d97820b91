// What `npm test` needs outside node_modules (issue 27, item 1): a Chromium for the Playwright suite
// (and Lighthouse) and R's metafor for the meta-analysis differential test
// (app/lib/meta-analysis/metafor-diff.test.ts). The decisions are pure functions of probes, so the
// tests inject machines that lack either; scripts/provision.mjs runs them on the real machine.
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** Debian's chromium package installs here; the Playwright config's default. */
export const DEBIAN_CHROMIUM = "/usr/bin/chromium";

/** The one line `npm test` stops with when a Chromium cannot be found or installed. */
export const CHROMIUM_HINT =
  "a Chromium for the browser tests (Debian/Ubuntu: `sudo apt-get install chromium`; elsewhere: `npx playwright install --with-deps chromium`, or set CHROMIUM_PATH to a Chromium or Chrome executable)";
/** The one line `npm test` stops with when R's metafor cannot be found or installed. */
export const METAFOR_HINT =
  'R with the metafor and jsonlite packages for the meta-analysis differential tests (Debian/Ubuntu: `sudo apt-get install r-cran-metafor r-cran-jsonlite`; elsewhere: install R, then `Rscript -e \'install.packages(c("metafor", "jsonlite"))\'`)';

/** True when `file` is an executable regular file. */
export function isExecutableFile(file) {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Chromium to use, in order: CHROMIUM_PATH when set (it must be executable: an explicit
 * choice is never replaced), Debian's /usr/bin/chromium, then Playwright's own download
 * (`playwrightChromium()`, its executable path, asked only when the others are missing).
 * Returns `{ path, via: "CHROMIUM_PATH" | "debian" | "playwright" }`, or `{ path: null, problem }`
 * where `problem` is a sentence when CHROMIUM_PATH names no executable, else null.
 */
export function findChromium({ env, isExecutable, playwrightChromium }) {
  if (env.CHROMIUM_PATH) {
    return isExecutable(env.CHROMIUM_PATH)
      ? { path: env.CHROMIUM_PATH, via: "CHROMIUM_PATH" }
      : { path: null, problem: `CHROMIUM_PATH=${env.CHROMIUM_PATH} is not an executable file` };
  }
  if (isExecutable(DEBIAN_CHROMIUM)) return { path: DEBIAN_CHROMIUM, via: "debian" };
  const downloaded = playwrightChromium();
  if (downloaded && isExecutable(downloaded)) return { path: downloaded, via: "playwright" };
  return { path: null, problem: null };
}

/**
 * What to do on a machine described by `state`:
 *   { chromium: findChromium's answer, metafor: boolean (Rscript loads metafor), root: boolean,
 *     apt: boolean (apt-get on PATH) }.
 * Returns { apt: string[] (Debian packages to install, only as root with apt-get),
 *   playwrightDownload: boolean (fetch Playwright's chromium: no root/apt, nothing found),
 *   missing: string[] (what cannot be provided here: the hints to print) }.
 */
export function planProvision(state) {
  const apt = [];
  const missing = [];
  let playwrightDownload = false;
  const canApt = state.root && state.apt;
  if (!state.chromium.path) {
    if (state.chromium.problem)
      missing.push(`a Chromium: ${state.chromium.problem} (unset it, or point it at a Chromium or Chrome executable)`);
    else if (canApt) apt.push("chromium");
    else playwrightDownload = true;
  }
  if (!state.metafor) {
    if (canApt) apt.push("r-cran-metafor", "r-cran-jsonlite");
    else missing.push(METAFOR_HINT);
  }
  return { apt, playwrightDownload, missing };
}

/** The single line printed when something is missing. */
export function missingLine(missing) {
  return `npm test needs ${missing.join("; and ")}. Install it, then run npm test again.`;
}

/**
 * Finds or provisions what the tests need. `probes`: { env, isExecutable(path), playwrightChromium()
 * → path|null, hasMetafor() → boolean, isRoot() → boolean, hasApt() → boolean }; `run(command,
 * args, env?)` → { status } runs an installer with its output shown; `log(line)` reports.
 * Missing things that cannot be installed are reported before anything is installed.
 * Returns { ok, chromium: path|null, line: the error line when !ok }.
 */
export function provision({ probes, run, log }) {
  const look = () => ({
    chromium: findChromium(probes),
    metafor: probes.hasMetafor(),
    root: probes.isRoot(),
    apt: probes.hasApt(),
  });
  const state = look();
  const plan = planProvision(state);
  if (plan.missing.length > 0) return { ok: false, chromium: state.chromium.path, line: missingLine(plan.missing) };
  if (plan.apt.length > 0) {
    log(`provision: installing Debian ${plan.apt.join(" and ")} (apt-get)…`);
    const aptEnv = { ...probes.env, DEBIAN_FRONTEND: "noninteractive" };
    const updated = run("apt-get", ["update", "-qq"], aptEnv);
    const installed = updated.status === 0 ? run("apt-get", ["install", "-y", "-qq", ...plan.apt], aptEnv) : updated;
    if (installed.status !== 0) log(`provision: apt-get failed (exit ${installed.status})`);
  }
  if (plan.playwrightDownload) {
    log("provision: no Chromium found; downloading Playwright's chromium (npx playwright install chromium)…");
    const fetched = run("npx", ["playwright", "install", "chromium"], probes.env);
    if (fetched.status !== 0) log(`provision: the download failed (exit ${fetched.status})`);
  }
  const after = plan.apt.length > 0 || plan.playwrightDownload ? look() : state;
  const missing = [...(after.chromium.path ? [] : [CHROMIUM_HINT]), ...(after.metafor ? [] : [METAFOR_HINT])];
  if (missing.length > 0) return { ok: false, chromium: after.chromium.path, line: missingLine(missing) };
  return { ok: true, chromium: after.chromium.path, via: after.chromium.via };
}

/** True when `command` is an executable in one of PATH's directories. */
export function onPath(command, env = process.env) {
  return (env.PATH ?? "").split(path.delimiter).some((dir) => dir && isExecutableFile(path.join(dir, command)));
}

/** Where Playwright's own chromium download lives (whether or not it is there), or null. */
export function playwrightChromiumPath() {
  try {
    return createRequire(import.meta.url)("@playwright/test").chromium.executablePath();
  } catch {
    return null;
  }
}

/** The real machine's probes (one Rscript run, about 1 s of CPU; the rest are file checks). */
export function systemProbes(env = process.env) {
  return {
    env,
    isExecutable: isExecutableFile,
    playwrightChromium: playwrightChromiumPath,
    hasMetafor: () =>
      onPath("Rscript", env) &&
      spawnSync("Rscript", ["-e", "suppressMessages({library(metafor); library(jsonlite)})"], {
        env,
        stdio: "ignore",
        timeout: 60_000,
      }).status === 0,
    isRoot: () => typeof process.getuid === "function" && process.getuid() === 0,
    hasApt: () => onPath("apt-get", env) && existsSync("/var/lib/dpkg"),
  };
}
