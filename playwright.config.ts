import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";
import { DEBIAN_CHROMIUM, findChromium, systemProbes } from "./scripts/lib/provision.mjs";

const PORT = Number(process.env.E2E_PORT ?? 8797);
/** Without ../shared (recorded responses, real PDFs) the replay server cannot start; every spec skips. */
const HAS_SHARED = existsSync(new URL("../shared/fixtures/providers", import.meta.url));
const REPLAY_PORT = Number(process.env.E2E_REPLAY_PORT ?? 8798);
/**
 * The Chromium `npm test` provisioned (scripts/provision.mjs): CHROMIUM_PATH, Debian's
 * /usr/bin/chromium or Playwright's own download. Exported as CHROMIUM_PATH so the specs' workers
 * (Lighthouse in lighthouse.spec.ts) launch the same one.
 */
process.env.CHROMIUM_PATH ??= findChromium(systemProbes()).path ?? DEBIAN_CHROMIUM;

/**
 * End-to-end tests in chromium (Debian's by default) against the real Worker (wrangler dev, fresh local state)
 * with every search provider pointed at the replay server of recorded real responses.
 */
export default defineConfig({
  testDir: "./tests/e2e",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  outputDir: "./tests/e2e/.artifacts",
  use: {
    baseURL: `http://localhost:${PORT}`,
    trace: "retain-on-failure",
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
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
  webServer: !HAS_SHARED
    ? undefined
    : {
        command: "node scripts/start-offline.mjs",
        url: `http://127.0.0.1:${PORT}/`,
        timeout: 180_000,
        reuseExistingServer: false,
        stdout: "ignore",
        stderr: "pipe",
        env: {
          PORT: String(PORT),
          REPLAY_PORT: String(REPLAY_PORT),
          PERSIST_DIR: ".wrangler/e2e-state",
          FRESH_STATE: "1",
          SKIP_BUILD: process.env.E2E_SKIP_BUILD ?? "1",
          // DOAJ answers late so the progressive page can be watched filling in.
          REPLAY_LATENCY_MS: "doaj=1500",
        },
      },
});
