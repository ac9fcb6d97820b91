import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import tsconfigPaths from "vite-tsconfig-paths";
import { defineConfig } from "vitest/config";

const root = path.dirname(fileURLToPath(import.meta.url));
/**
 * Two files share the cores: a test that takes 1–2 s alone gets room before it counts as hung. Set in each project:
 * an inline project does not inherit the root's `test` options (the root value had left both at Vitest's 5 s).
 */
const TEST_TIMEOUT_MS = 15_000;

/**
 * Two projects: `node` for pure logic (statistics, normalisers, the offline model; may read
 * ../shared fixtures from disk) and `workers` for code that touches bindings, run inside workerd
 * with local D1/KV/R2/Queues and migrations applied (tests/setup/apply-migrations.ts).
 * Workers tests are named *.workers.test.ts: suites that call the app over HTTP (SELF.fetch) live
 * under tests/api/<capability>/, unit tests of one module next to it in app/.server/<capability>/.
 *
 * The workers project runs with `isolate: false`: its files share one workerd (Miniflare) per
 * Vitest worker, which loads the Worker and its modules once, instead of starting a workerd and
 * re-importing the whole server build for each file (that start-up was ~70% of the suite's CPU
 * time). Each file still starts from empty storage with the demo accounts: the setup file empties
 * D1, KV and R2 before it (see tests/setup/apply-migrations.ts).
 */
export default defineConfig({
  test: {
    // Vitest's default in run mode is one worker fewer than the cores: one worker on a 2-core
    // machine, which left a core idle (the suite's wall time equalled its CPU time). Both cores run files.
    maxWorkers: availableParallelism(),
    // PDF.js decodes Flate streams through a DecompressionStream and leaves the writer's rejection
    // unobserved when a stream is corrupt; workerd reports that as unhandled although the
    // extraction handles the failure itself (uploads of damaged PDFs). Only that exact error is ignored.
    // The Worker's structured request logs (app/.server/observability) are one JSON line per API
    // call; tests that check them spy on console.info, so the lines are kept out of the test output.
    onConsoleLog: (log) => (/^\{"level":"\w+","event":"(api|health)"/.test(log) ? false : undefined),
    onUnhandledError: (error) => !(error?.name === "TypeError" && error.message === "Decompression failed."),
    projects: [
      {
        plugins: [tsconfigPaths()],
        test: {
          name: "node",
          environment: "node",
          testTimeout: TEST_TIMEOUT_MS,
          include: ["app/**/*.test.{ts,tsx}", "tests/**/*.test.ts", "db/**/*.test.ts"],
          exclude: ["**/*.workers.test.ts", "tests/e2e/**", "node_modules/**"],
          setupFiles: ["./tests/setup/fail-on-console-error.ts"],
        },
      },
      {
        plugins: [
          tsconfigPaths(),
          cloudflareTest(async () => ({
            main: "./workers/app.ts",
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                ENVIRONMENT: "test",
                SESSION_SECRET: "test-session-secret",
                OFFLINE_MODEL_DELAY_MS: "0",
                ADMIN_EMAILS: "Admin@MetaMind.test, second-admin@metamind.test",
                TEST_MIGRATIONS: await readD1Migrations(path.join(root, "db/migrations")),
              },
            },
          })),
        ],
        server: { fs: { allow: [root, path.resolve(root, "../shared")] } },
        test: {
          name: "workers",
          isolate: false,
          testTimeout: TEST_TIMEOUT_MS,
          include: ["app/**/*.workers.test.ts", "tests/**/*.workers.test.ts"],
          setupFiles: ["./tests/setup/apply-migrations.ts", "./tests/setup/fail-on-console-error.ts"],
          deps: { optimizer: { ssr: { enabled: true, include: ["@remix-run/cloudflare"] } } },
        },
      },
    ],
  },
});
