#!/usr/bin/env node
/**
 * Deploy check (run by `npm test` after the build, and by `npm run deploy`):
 *   1. every binding the code uses is declared in wrangler.toml, at the top level and in each
 *      [env.X] (scripts/lib/deploy-check.mjs says exactly what is compared);
 *   2. `wrangler deploy --dry-run --outdir <tmp>` bundles the Worker, and its gzipped size stays within
 *      the Workers Free plan's 3 MB;
 *   3. page budgets: the initial JavaScript of /, /search and /answer/{id} (entry, route modules and
 *      their static imports from the build's Remix manifest, as the server renders them) stays
 *      within each page's CI ceiling in gzip bytes (scripts/lib/page-budget.mjs: the 120 KB target or
 *      a ratchet above today's size; bench/lighthouse measures the served HTML).
 * Usage: node scripts/check-deploy.mjs [--env staging|production] [--only bindings|budgets|bundle] [--client DIR]
 *   --env: the dry run uses that environment; --only: run one of the three checks; --client: the
 *   client build to measure (default build/client; tests/deploy/check-deploy-budget.test.ts runs
 *   the budget check on a synthetic over-budget build).
 * Exit code 1 with one line per problem.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { parse } from "smol-toml";
import {
  bindingProblems,
  bindingsInterface,
  bindingUsages,
  FREE_PLAN_GZIP_LIMIT_BYTES,
  schemaVariables,
  wranglerScopes,
} from "./lib/deploy-check.mjs";
import { pageBudgetProblems } from "./lib/page-budget.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const argument = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const targetEnv = argument("--env");
const only = argument("--only");
if (only && !["bindings", "budgets", "bundle"].includes(only)) {
  console.error(`check:deploy: --only takes bindings, budgets or bundle, not ${only}`);
  process.exit(2);
}
const clientDir = path.resolve(root, argument("--client") ?? "build/client");

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|js|mjs)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

function checkBindings() {
  const envSource = readFileSync(path.join(root, "app/.server/env.ts"), "utf8");
  const config = parse(readFileSync(path.join(root, "wrangler.toml"), "utf8"));
  const files = [...sourceFiles(path.join(root, "app")), ...sourceFiles(path.join(root, "workers"))].map((file) => ({
    path: path.relative(root, file),
    source: readFileSync(file, "utf8"),
  }));
  const scopes = wranglerScopes(config);
  if (targetEnv && !scopes.has(targetEnv)) {
    throw new Error(
      `wrangler.toml has no [env.${targetEnv}] (it has: ${[...scopes.keys()].filter(Boolean).join(", ")})`,
    );
  }
  const bindings = bindingsInterface(envSource);
  const problems = bindingProblems({
    bindings,
    variables: schemaVariables(envSource),
    usages: bindingUsages(files),
    scopes,
  });
  const names = [...scopes.keys()].map((s) => (s ? `env.${s}` : "top level")).join(", ");
  console.log(`bindings: ${[...bindings.keys()].join(", ")} checked in ${files.length} files against ${names}`);
  return problems;
}

function gzippedBundle() {
  if (!existsSync(path.join(root, "build/server/index.js"))) {
    return { problems: ["build/server is missing: run `npm run build` before the deploy check"] };
  }
  const outdir = mkdtempSync(path.join(tmpdir(), "metamind-deploy-"));
  try {
    const args = ["deploy", "--dry-run", "--outdir", outdir, ...(targetEnv ? ["--env", targetEnv] : [])];
    // wrangler's own entry on this Node (the project's Node 24 under npm run), whatever node PATH has.
    const wrangler = path.join(root, "node_modules/wrangler/bin/wrangler.js");
    const run = spawnSync(process.execPath, [wrangler, ...args], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    if (run.status !== 0) {
      return { problems: [`wrangler ${args.join(" ")} failed (exit ${run.status}):\n${run.stderr || run.stdout}`] };
    }
    const reported = /Total Upload: ([\d.]+ KiB) \/ gzip: ([\d.]+ KiB)/.exec(run.stdout);
    const modules = readdirSync(outdir).filter((f) => /\.(js|mjs|cjs|wasm|bin|txt|html)$/.test(f) && f !== "README.md");
    let raw = 0;
    let gzip = 0;
    for (const file of modules) {
      const bytes = readFileSync(path.join(outdir, file));
      raw += statSync(path.join(outdir, file)).size;
      gzip += gzipSync(bytes).length;
    }
    const mb = (n) => `${(n / 1_000_000).toFixed(2)} MB`;
    console.log(
      `worker bundle${targetEnv ? ` (env ${targetEnv})` : ""}: ${modules.length} module(s), ${mb(raw)} raw, ${mb(gzip)} gzip ` +
        `(limit ${mb(FREE_PLAN_GZIP_LIMIT_BYTES)}; wrangler reports ${reported ? `${reported[1]} / gzip ${reported[2]}` : "no size"})`,
    );
    if (modules.length === 0) return { problems: [`wrangler wrote no Worker modules to ${outdir}`] };
    return {
      problems:
        gzip > FREE_PLAN_GZIP_LIMIT_BYTES
          ? [`the gzipped Worker is ${mb(gzip)}, over the Workers Free plan limit of ${mb(FREE_PLAN_GZIP_LIMIT_BYTES)}`]
          : [],
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

const run = (check) => !only || only === check;
const problems = [
  ...(run("bindings") ? checkBindings() : []),
  ...(run("budgets") ? pageBudgetProblems(clientDir) : []),
  ...(run("bundle") ? gzippedBundle().problems : []),
];
if (problems.length) {
  console.error(`check:deploy failed:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  process.exit(1);
}
console.log("check:deploy ok");
