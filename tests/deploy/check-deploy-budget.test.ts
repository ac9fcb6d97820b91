/**
 * The page-budget check itself (issue 27, item 5): `node scripts/check-deploy.mjs` — the step of
 * `npm test` after the build — exits 1 on a build whose /search initial JavaScript is over 120 KB
 * gzip, and 0 on one within it. The builds are synthetic client directories (a Remix manifest and
 * its scripts), so the test needs no real build.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUDGET_PAGES, INITIAL_JS_BUDGET_BYTES, pageBudgetProblems } from "../../scripts/lib/page-budget.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/**
 * A client build whose /search route imports `searchBytes` of incompressible JavaScript (random
 * base64 in a string literal: its gzip is about 3/4 of its length) besides small shared modules.
 */
function syntheticBuild(searchGzipTarget: number): string {
  const dir = mkdtempSync(path.join(tmpdir(), "metamind-budget-"));
  dirs.push(dir);
  mkdirSync(path.join(dir, "assets"));
  const routes = Object.fromEntries(
    BUDGET_PAGES.flatMap((p) => p.routes).map((id) => [
      id,
      { module: `/assets/${id.replace(/\W/g, "_")}.js`, imports: ["/assets/shell.js"] },
    ]),
  );
  routes["routes/search"]!.imports.push("/assets/search-heavy.js");
  const manifest = {
    entry: { module: "/assets/entry.client.js", imports: ["/assets/shell.js"] },
    routes,
    url: "/assets/manifest-test.js",
  };
  writeFileSync(path.join(dir, "assets/manifest-test.js"), `window.__remixManifest=${JSON.stringify(manifest)};`);
  for (const file of [
    "entry.client.js",
    "shell.js",
    ...Object.values(routes).map((r) => r.module.slice("/assets/".length)),
  ]) {
    writeFileSync(path.join(dir, "assets", file), `export const x = ${JSON.stringify(file)};\n`);
  }
  const heavy = `export const blob = "${randomBytes(Math.ceil(searchGzipTarget)).toString("base64")}";\n`;
  writeFileSync(path.join(dir, "assets/search-heavy.js"), heavy);
  return dir;
}

function checkDeploy(clientDir: string) {
  return spawnSync(process.execPath, ["scripts/check-deploy.mjs", "--only", "budgets", "--client", clientDir], {
    cwd: root,
    encoding: "utf8",
  });
}

describe("check:deploy page budgets", () => {
  it("every page's CI ceiling is the 120 KB target itself (no ratchet above it)", () => {
    expect(INITIAL_JS_BUDGET_BYTES).toBe(120_000);
    expect(BUDGET_PAGES.map((p) => p.name)).toContain("/search");
    for (const page of BUDGET_PAGES) expect(page.ceilingBytes, page.name).toBeLessThanOrEqual(INITIAL_JS_BUDGET_BYTES);
  });

  it("fails (exit 1) on a build whose /search initial JavaScript is over 120 KB gzip, naming the page and its largest file", () => {
    const over = checkDeploy(syntheticBuild(125_000));
    expect(over.status, over.stdout + over.stderr).toBe(1);
    expect(over.stderr).toMatch(/check:deploy failed/);
    expect(over.stderr).toMatch(
      /the initial JavaScript of \/search is 12\d\.\d KB gzip, over its 120\.0 KB ceiling \(largest: \/assets\/search-heavy\.js/,
    );
    expect(over.stderr).not.toMatch(/initial JavaScript of \/ is/);
  });

  it("passes (exit 0) on the same build within budget", () => {
    const under = checkDeploy(syntheticBuild(80_000));
    expect(under.status, under.stdout + under.stderr).toBe(0);
    expect(under.stdout).toMatch(/initial JS \/search: \d+\.\d KB gzip/);
    expect(under.stdout).toMatch(/check:deploy ok/);
  });

  it("a missing build or manifest is a problem, not a pass", () => {
    const log = () => {};
    expect(pageBudgetProblems(path.join(tmpdir(), "metamind-no-such-build"), { log })[0]).toMatch(
      /is missing: run `npm run build`/,
    );
    const empty = mkdtempSync(path.join(tmpdir(), "metamind-budget-"));
    dirs.push(empty);
    mkdirSync(path.join(empty, "assets"));
    expect(pageBudgetProblems(empty, { log })[0]).toMatch(/no Remix manifest/);
  });
});
