/**
 * scripts/provision.mjs's decisions (issue 27, item 1) on injected machines: which Chromium the
 * tests use, what is installed (apt-get as root, Playwright's download otherwise) and the one line
 * `npm test` stops with. The last test runs the real script with the environment stripped of both.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  CHROMIUM_HINT,
  DEBIAN_CHROMIUM,
  findChromium,
  METAFOR_HINT,
  planProvision,
  provision,
} from "../../scripts/lib/provision.mjs";

const PLAYWRIGHT = "/home/u/.cache/ms-playwright/chromium-1/chrome-linux64/chrome";

interface Machine {
  env?: Record<string, string>;
  executables?: string[];
  metafor?: boolean;
  root?: boolean;
  apt?: boolean;
  /** What each installer command adds when it runs: executables, metafor, and its exit status. */
  installs?: Record<string, { executables?: string[]; metafor?: boolean; status?: number }>;
}

/** A fake machine: probes over mutable state, and a `run` that records commands and applies `installs`. */
function machine(m: Machine) {
  const executables = new Set(m.executables ?? []);
  let metafor = m.metafor ?? false;
  const commands: string[] = [];
  const lines: string[] = [];
  const probes = {
    env: m.env ?? {},
    isExecutable: (p: string) => executables.has(p),
    playwrightChromium: () => PLAYWRIGHT,
    hasMetafor: () => metafor,
    isRoot: () => m.root ?? false,
    hasApt: () => m.apt ?? false,
  };
  const run = (command: string, args: string[]) => {
    const line = [command, ...args].join(" ");
    commands.push(line);
    const effect = Object.entries(m.installs ?? {}).find(([key]) => line.includes(key))?.[1];
    for (const e of effect?.executables ?? []) executables.add(e);
    if (effect?.metafor) metafor = true;
    return { status: effect?.status ?? 0 };
  };
  return { result: () => provision({ probes, run, log: (l: string) => lines.push(l) }), commands, lines, probes };
}

describe("findChromium", () => {
  const probe = (env: Record<string, string>, executables: string[]) => ({
    env,
    isExecutable: (p: string) => executables.includes(p),
    playwrightChromium: () => PLAYWRIGHT,
  });

  it("prefers CHROMIUM_PATH, then Debian's /usr/bin/chromium, then Playwright's download", () => {
    expect(findChromium(probe({ CHROMIUM_PATH: "/opt/chrome" }, ["/opt/chrome", DEBIAN_CHROMIUM]))).toEqual({
      path: "/opt/chrome",
      via: "CHROMIUM_PATH",
    });
    expect(findChromium(probe({}, [DEBIAN_CHROMIUM, PLAYWRIGHT]))).toEqual({ path: DEBIAN_CHROMIUM, via: "debian" });
    expect(findChromium(probe({}, [PLAYWRIGHT]))).toEqual({ path: PLAYWRIGHT, via: "playwright" });
    expect(findChromium(probe({}, []))).toEqual({ path: null, problem: null });
  });

  it("never replaces a CHROMIUM_PATH that names no executable", () => {
    const found = findChromium(probe({ CHROMIUM_PATH: "/nope" }, [DEBIAN_CHROMIUM]));
    expect(found.path).toBeNull();
    expect(found.problem).toBe("CHROMIUM_PATH=/nope is not an executable file");
  });
});

describe("planProvision", () => {
  const ok = { path: DEBIAN_CHROMIUM, via: "debian" };
  const none = { path: null, problem: null };

  it("installs nothing when both are there", () => {
    expect(planProvision({ chromium: ok, metafor: true, root: true, apt: true })).toEqual({
      apt: [],
      playwrightDownload: false,
      missing: [],
    });
  });

  it("as root with apt-get: Debian's chromium, r-cran-metafor and r-cran-jsonlite", () => {
    expect(planProvision({ chromium: none, metafor: false, root: true, apt: true })).toEqual({
      apt: ["chromium", "r-cran-metafor", "r-cran-jsonlite"],
      playwrightDownload: false,
      missing: [],
    });
  });

  it("without root: Playwright's download for Chromium; metafor cannot be installed and is named", () => {
    expect(planProvision({ chromium: none, metafor: false, root: false, apt: true })).toEqual({
      apt: [],
      playwrightDownload: true,
      missing: [METAFOR_HINT],
    });
    expect(planProvision({ chromium: none, metafor: true, root: true, apt: false })).toEqual({
      apt: [],
      playwrightDownload: true,
      missing: [],
    });
  });
});

describe("provision", () => {
  it("is a no-op when everything is present: no installer runs", () => {
    const m = machine({ executables: [DEBIAN_CHROMIUM], metafor: true, root: true, apt: true });
    expect(m.result()).toEqual({ ok: true, chromium: DEBIAN_CHROMIUM, via: "debian" });
    expect(m.commands).toEqual([]);
  });

  it("uses Playwright's own browser when it is already downloaded", () => {
    const m = machine({ executables: [PLAYWRIGHT], metafor: true });
    expect(m.result()).toMatchObject({ ok: true, chromium: PLAYWRIGHT, via: "playwright" });
    expect(m.commands).toEqual([]);
  });

  it("a fresh Debian machine as root: one apt-get install of both, then both are found", () => {
    const m = machine({
      root: true,
      apt: true,
      installs: { "apt-get install": { executables: [DEBIAN_CHROMIUM], metafor: true } },
    });
    expect(m.result()).toEqual({ ok: true, chromium: DEBIAN_CHROMIUM, via: "debian" });
    expect(m.commands).toEqual([
      "apt-get update -qq",
      "apt-get install -y -qq chromium r-cran-metafor r-cran-jsonlite",
    ]);
  });

  it("not root: downloads Playwright's chromium when R is there", () => {
    const m = machine({ metafor: true, installs: { "playwright install": { executables: [PLAYWRIGHT] } } });
    expect(m.result()).toEqual({ ok: true, chromium: PLAYWRIGHT, via: "playwright" });
    expect(m.commands).toEqual(["npx playwright install chromium"]);
  });

  it("stops at once, installing nothing, with one line naming what to install", () => {
    const m = machine({ installs: { "playwright install": { executables: [PLAYWRIGHT] } } });
    const result = m.result();
    expect(result.ok).toBe(false);
    expect(result.line).toBe(`npm test needs ${METAFOR_HINT}. Install it, then run npm test again.`);
    expect(result.line).not.toMatch(/\n/);
    expect(m.commands).toEqual([]);
  });

  it("an unreachable download or a failed apt-get ends in the same single line", () => {
    const offline = machine({ metafor: true, installs: { "playwright install": { status: 1 } } });
    expect(offline.result()).toEqual({
      ok: false,
      chromium: null,
      line: `npm test needs ${CHROMIUM_HINT}. Install it, then run npm test again.`,
    });
    expect(offline.lines.join("\n")).toMatch(/download failed \(exit 1\)/);

    const noMirror = machine({ root: true, apt: true, installs: { "apt-get update": { status: 100 } } });
    const result = noMirror.result();
    expect(result.ok).toBe(false);
    expect(result.line).toMatch(
      /^npm test needs a Chromium .*; and R with the metafor and jsonlite packages .*\. Install it, then run npm test again\.$/,
    );
    expect(noMirror.commands).toEqual(["apt-get update -qq"]);
  });
});

describe("node scripts/provision.mjs", () => {
  it("on a machine without either (stripped PATH, CHROMIUM_PATH pointing nowhere) exits 1 with one line", () => {
    const root = path.resolve(import.meta.dirname, "../..");
    const run = spawnSync(process.execPath, ["scripts/provision.mjs"], {
      cwd: root,
      encoding: "utf8",
      env: {
        PATH: path.dirname(process.execPath),
        CHROMIUM_PATH: "/nonexistent/chromium",
        HOME: process.env.HOME ?? "/tmp",
      },
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    const lines = run.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^npm test needs a Chromium: CHROMIUM_PATH=\/nonexistent\/chromium is not an executable file .*; and R with the metafor and jsonlite packages/,
    );
    expect(run.stdout).toBe("");
  });
});
