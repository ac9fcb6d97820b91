#!/usr/bin/env node
// `npm start`: builds the app, applies the local D1 migrations and runs the Worker on
// http://127.0.0.1:$PORT (8787) with ENVIRONMENT=development — quietly. Each step prints one line;
// its full output is shown only when it fails. Wrangler's telemetry and its fetch of the
// `Request.cf` object from workers.cloudflare.com are off, and wrangler logs errors only, so a
// newcomer sees a few lines and the URL (docs/first-hour.md). START_VERBOSE=1 shows everything
// (the build's file list, the migrations table, wrangler's bindings and request log).
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const port = process.env.PORT ?? "8787";
const verbose = process.env.START_VERBOSE === "1";
const bin = (name) => path.join(root, "node_modules", ".bin", name);
// Children find the project's Node 24 (node_modules/.bin/node) first, also when run directly.
const env = {
  ...process.env,
  PATH: `${path.join(root, "node_modules", ".bin")}${path.delimiter}${process.env.PATH ?? ""}`,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

/** Runs one step; on failure prints its whole output and exits with its status. */
function step(label, cmd, args) {
  const started = Date.now();
  const result = spawnSync(cmd, args, {
    cwd: root,
    env,
    stdio: verbose ? "inherit" : "pipe",
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status !== 0) {
    if (!verbose) process.stderr.write(`${result.stdout ?? ""}${result.stderr ?? ""}`);
    console.error(`✗ ${label} failed (${path.basename(cmd)} ${args.join(" ")})`);
    process.exit(result.status ?? 1);
  }
  console.log(`✓ ${label} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

console.log(`MetaMind: starting on Node ${process.versions.node}`);
step("Built the app", bin("remix"), ["vite:build"]);
step("Applied the local database migrations", bin("wrangler"), ["d1", "migrations", "apply", "DB", "--local"]);

const dev = spawn(
  bin("wrangler"),
  [
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    port,
    "--var",
    "ENVIRONMENT:development",
    ...(verbose ? [] : ["--log-level", "error"]),
  ],
  { cwd: root, env, stdio: "inherit" },
);
dev.on("exit", (code) => process.exit(code ?? 0));
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));

// wrangler logs errors only: say when the Worker answers, and where.
const url = `http://127.0.0.1:${port}`;
const deadline = Date.now() + 180_000;
while (Date.now() < deadline && dev.exitCode === null) {
  const up = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5_000) }).then(
    () => true,
    () => false,
  );
  if (up) {
    console.log(`✓ MetaMind is running at ${url}  (Ctrl+C stops it; START_VERBOSE=1 npm start shows every log line)`);
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
}
