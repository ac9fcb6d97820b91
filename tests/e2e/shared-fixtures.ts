import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "@playwright/test";

/** ../shared next to the repository: recorded provider responses and real PDFs the browser tests replay. */
export const SHARED_DIR = fileURLToPath(new URL("../../../shared/", import.meta.url));
export const HAS_SHARED = existsSync(`${SHARED_DIR}fixtures/providers`);

/** Skips every test of the calling spec file, with the reason, when ../shared is absent. */
export function requireSharedFixtures(): void {
  test.skip(
    !HAS_SHARED,
    `../shared is not next to the repository (${SHARED_DIR}): the browser tests replay its recorded responses`,
  );
}
