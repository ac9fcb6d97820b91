import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";
import { DEBIAN_CHROMIUM, findChromium, systemProbes } from "./scripts/lib/provision.mjs";
import { E2E_WORKERS, e2eServer } from "./tests/e2e/servers";

/** Without ../shared (recorded responses, real PDFs) the replay server cannot start; every spec skips. */
const HAS_SHARED = existsSync(new URL("../shared/fixtures/providers", import.meta.url));
/**
 * The Chromium `npm test` provisioned (scripts/provision.mjs): CHROMIUM_PATH, Debian's
 * /usr/bin/chromium or Playwright's own download. Exported as CHROMIUM_PATH so the specs' workers
 * (Lighthouse in lighthouse.spec.ts) launch the same one.
 */
process.env.CHROMIUM_PATH ??= findChromium(systemProbes()).path ?? DEBIAN_CHROMIUM;

/**
 * End-to-end tests in chromium (Debian's by default) against the real Worker (wrangler dev, fresh local state)
 * with every search provider pointed at the replay server of recorded real responses.
 * Spec files run on E2E_WORKERS workers (default 2), each against its own server (tests/e2e/servers.ts;
 * shared-fixtures.ts points `baseURL` at it). Lighthouse measures timings, so it is a project of its
 * own that starts once every other spec has finished and the CPU is quiet.
 */
export default defineConfig({
  testDir: "./tests/e2e",
  // Two workers share the CPU (and each drives its own server): room for a step that waits on the other.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: E2E_WORKERS,
  // On CI a failure gets one more run, so a timing race costs a retry rather than the whole run;
  // the list reporter names such a test 'flaky' (docs/development.md: a defect to fix).
  retries: process.env.CI ? 1 : 0,
  reporter: [["list"]],
  outputDir: "./tests/e2e/.artifacts",
  use: {
    baseURL: `http://localhost:${e2eServer(0).port}`,
    // Recording a trace costs about a fifth of the suite's time on 2 cores (DOM snapshots and
    // screencast frames at every step), so CI records one only when a failed test runs again.
    trace: process.env.CI ? "on-first-retry" : "retain-on-failure",
    // The service worker (app/sw/sw.ts) stays out of the specs, except installable-app.spec.ts which
    // allows it: it would precache the whole client build in every fresh context (CPU on a shared
    // machine), and requests it makes are invisible to page.route / page.waitForResponse.
    serviceWorkers: "block",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [
    { name: "chromium", use: { ...devices["Desktop Chrome"] }, testIgnore: /lighthouse\.spec\.ts$/ },
    {
      name: "lighthouse",
      use: { ...devices["Desktop Chrome"] },
      testMatch: /lighthouse\.spec\.ts$/,
      dependencies: ["chromium"],
    },
  ],
  webServer: !HAS_SHARED
    ? undefined
    : Array.from({ length: E2E_WORKERS }, (_, index) => {
        const server = e2eServer(index);
        return {
          command: "node scripts/start-offline.mjs",
          url: `http://127.0.0.1:${server.port}/`,
          timeout: 180_000,
          reuseExistingServer: false,
          stdout: "ignore" as const,
          stderr: "pipe" as const,
          env: {
            PORT: String(server.port),
            REPLAY_PORT: String(server.replayPort),
            PERSIST_DIR: server.persistDir,
            FRESH_STATE: "1",
            SKIP_BUILD: process.env.E2E_SKIP_BUILD ?? "1",
            // DOAJ answers late so the progressive page can be watched filling in.
            REPLAY_LATENCY_MS: "doaj=1500",
          },
        };
      }),
});
