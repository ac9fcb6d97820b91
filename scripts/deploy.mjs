#!/usr/bin/env node
/**
 * `npm run deploy -- --env staging|production` (or DEPLOY_ENV=…): refuses while the environment's
 * wrangler.toml section still holds a REPLACE_ME placeholder, then builds, runs the deploy check
 * (bindings and gzipped size), applies the D1 migrations remotely and deploys the Worker.
 * Needs `wrangler login` (or CLOUDFLARE_API_TOKEN) and the resources of README "Deploy to Cloudflare".
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "smol-toml";
import { placeholders } from "./lib/deploy-check.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const envIndex = process.argv.indexOf("--env");
const target = (envIndex > 0 ? process.argv[envIndex + 1] : undefined) ?? process.env.DEPLOY_ENV;
const config = parse(readFileSync(path.join(root, "wrangler.toml"), "utf8"));
const environments = Object.keys(config.env ?? {});

function fail(message) {
  console.error(`deploy: ${message}`);
  process.exit(1);
}

if (!target || !environments.includes(target)) {
  fail(`name the environment: npm run deploy -- --env ${environments.join("|")}${target ? ` (got '${target}')` : ""}`);
}
const left = placeholders(config.env[target], `env.${target}`);
if (left.length) {
  fail(`replace these placeholders in wrangler.toml first (README "Deploy to Cloudflare"):\n  ${left.join("\n  ")}`);
}

const wrangler = path.join(root, "node_modules/wrangler/bin/wrangler.js");
const steps = [
  ["build", "npm", ["run", "build"]],
  ["deploy check", process.execPath, [path.join(root, "scripts/check-deploy.mjs"), "--env", target]],
  [
    "remote D1 migrations",
    process.execPath,
    [wrangler, "d1", "migrations", "apply", "DB", "--remote", "--env", target],
  ],
  ["deploy", process.execPath, [wrangler, "deploy", "--env", target]],
];
for (const [label, command, args] of steps) {
  console.log(
    `\n== ${label}: ${[path.basename(command), ...args.map((a) => (path.isAbsolute(a) ? path.relative(root, a) : a))].join(" ")}`,
  );
  const run = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (run.status !== 0) fail(`${label} failed (exit ${run.status}); nothing after it ran`);
}
console.log(`\ndeployed ${config.env[target].name ?? config.name} (${target})`);
