/**
 * The recorded provider responses for tests that run inside workerd (no host file system there):
 * Vite inlines ../shared/fixtures/providers at transform time. Empty when ../shared is absent.
 */
import type { FixtureReader } from "./replay-utils.ts";

const PREFIX = "../../../shared/fixtures/providers/";
const files = import.meta.glob("../../../shared/fixtures/providers/**/*.{json,xml,html,txt}", {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

export const hasWorkerFixtures = Object.keys(files).length > 0;

export const MISSING_WORKER_FIXTURES =
  "skipped: ../shared/fixtures/providers not found (the recorded provider responses live outside the repo)";

/** Reads a recording by its path under fixtures/providers, or null. */
export const workerFixtureReader: FixtureReader = (relPath) => files[PREFIX + relPath] ?? null;
