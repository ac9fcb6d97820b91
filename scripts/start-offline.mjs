#!/usr/bin/env node
// Runs MetaMind with every search base URL pointed at the local replay server, which serves the
// REAL recorded provider responses from ../shared/fixtures. Used by `npm run start:offline` and by
// the Playwright suite. Env: PORT (8787), REPLAY_PORT (8788), PERSIST_DIR (wrangler state dir),
// FRESH_STATE=1 to start PERSIST_DIR afresh (copied from the saved migrated state when the migrations
// are unchanged: scripts/lib/migrated-state.mjs), SKIP_BUILD=1 to reuse an existing build,
// REPLAY_LATENCY_MS (e.g. "pubmed=50,crossref=300"), EXTRA_VARS="KEY:VALUE,KEY2:VALUE2" for more
// Worker vars (they override the defaults below, e.g. "OFFLINE_MODEL_DELAY_MS:30"). Full-text
// fetches may reach the local replay host (127.0.0.1).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { migrationsKey, provideMigratedState } from "./lib/migrated-state.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const port = process.env.PORT ?? "8787";
const replayPort = process.env.REPLAY_PORT ?? "8788";
const persist = process.env.PERSIST_DIR ? ["--persist-to", process.env.PERSIST_DIR] : [];
const bin = (name) => path.join(root, "node_modules", ".bin", name);
const children = [];
// Children find Node 24 (node_modules/.bin/node) first, also when this script is run directly.
// No wrangler telemetry and no fetch of the `Request.cf` object from workers.cloudflare.com (offline).
const childEnv = {
  ...process.env,
  PATH: `${path.join(root, "node_modules", ".bin")}${path.delimiter}${process.env.PATH ?? ""}`,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

function run(cmd, args) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: childEnv });
  if (result.status !== 0) {
    console.error(`${path.basename(cmd)} ${args.join(" ")} failed`);
    shutdown(result.status ?? 1);
  }
}

function shutdown(code) {
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  process.exit(code);
}
process.on("SIGINT", () => shutdown(0));
process.on("SIGTERM", () => shutdown(0));

const fresh = Boolean(process.env.PERSIST_DIR) && process.env.FRESH_STATE === "1";
if (fresh) rmSync(path.resolve(root, process.env.PERSIST_DIR), { recursive: true, force: true });

// The fake Stripe (tests/mocks/stripe-server.ts) runs inside the replay server when the recorded
// Stripe objects are present: checkout and webhooks then work with no network.
const stripeFake = existsSync(path.resolve(root, "../shared/fixtures/stripe/README.md"));
const stripeVars = {
  STRIPE_FAKE_SECRET_KEY: "sk_test_offline",
  STRIPE_FAKE_WEBHOOK_SECRET: "whsec_offline",
  STRIPE_FAKE_WEBHOOK_URL: `http://127.0.0.1:${port}/api/stripe/webhook`,
};
const node24 = bin("node");
const replay = spawn(
  existsSync(node24) ? node24 : process.execPath,
  [path.join(root, "tests/mocks/replay-server.ts")],
  {
    cwd: root,
    stdio: "inherit",
    env: { ...childEnv, REPLAY_PORT: replayPort, ...(stripeFake ? stripeVars : {}) },
  },
);
children.push(replay);
replay.on("exit", (code) => {
  if (code) shutdown(code);
});

if (process.env.SKIP_BUILD !== "1") run(bin("remix"), ["vite:build"]);
const applyMigrations = () => run(bin("wrangler"), ["d1", "migrations", "apply", "DB", "--local", ...persist]);
// A fresh state starts from a saved copy of the migrated database when the migrations are unchanged
// (scripts/lib/migrated-state.mjs): the browser suite's servers skip applying them one by one.
if (fresh) {
  const done = provideMigratedState({
    templatesDir: path.join(root, ".wrangler", "migrated-state"),
    key: migrationsKey(path.join(root, "db", "migrations")),
    persistDir: path.resolve(root, process.env.PERSIST_DIR),
    applyMigrations,
  });
  console.log(
    `[start-offline] migrated state ${done === "copied" ? "copied from the saved template" : "applied and saved"}`,
  );
} else applyMigrations();

const replayBase = `http://127.0.0.1:${replayPort}`;
const vars = {
  ENVIRONMENT: "development",
  PUBMED_BASE_URL: `${replayBase}/pubmed`,
  CROSSREF_BASE_URL: `${replayBase}/crossref`,
  EUROPEPMC_BASE_URL: `${replayBase}/europepmc`,
  CORE_BASE_URL: `${replayBase}/core`,
  SEMANTIC_SCHOLAR_BASE_URL: `${replayBase}/semanticscholar`,
  DOAJ_BASE_URL: `${replayBase}/doaj`,
  // No Unpaywall replay: its prefix answers 404, so open-access lookups fall back to Europe PMC.
  UNPAYWALL_BASE_URL: `${replayBase}/unpaywall`,
  CORE_API_KEY: "offline-replay",
  FULLTEXT_ALLOW_HOSTS: "127.0.0.1",
  ...(stripeFake
    ? {
        STRIPE_SECRET_KEY: stripeVars.STRIPE_FAKE_SECRET_KEY,
        STRIPE_WEBHOOK_SECRET: stripeVars.STRIPE_FAKE_WEBHOOK_SECRET,
        STRIPE_PRICE_MONTHLY: "price_offline_monthly",
        STRIPE_PRICE_ANNUAL: "price_offline_annual",
        STRIPE_API_BASE: replayBase,
      }
    : {}),
  // The offline demo's admin: register admin@metamind.local to open /admin.
  ADMIN_EMAILS: "admin@metamind.local",
};
for (const pair of (process.env.EXTRA_VARS ?? "").split(",")) {
  const colon = pair.indexOf(":");
  if (colon > 0) vars[pair.slice(0, colon).trim()] = pair.slice(colon + 1).trim();
}
const varArgs = Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
const server = spawn(bin("wrangler"), ["dev", "--ip", "127.0.0.1", "--port", port, ...persist, ...varArgs], {
  cwd: root,
  stdio: "inherit",
  env: childEnv,
});
children.push(server);
server.on("exit", (code) => shutdown(code ?? 0));
