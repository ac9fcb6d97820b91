import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test as base, expect, type Page } from "@playwright/test";
import { e2eServer } from "./servers";

/** ../shared next to the repository: recorded provider responses and real PDFs the browser tests replay. */
export const SHARED_DIR = fileURLToPath(new URL("../../../shared/", import.meta.url));
export const HAS_SHARED = existsSync(`${SHARED_DIR}fixtures/providers`);

const CSP_MESSAGE = /Content Security Policy/i;

/**
 * Playwright's `test` with `baseURL` (and so `page`, `context` and `request`) on this worker's own
 * server (tests/e2e/servers.ts), `persistDir` its wrangler state directory, and a `page` that fails
 * the test on any Content-Security-Policy violation:
 * a console message naming the policy (Chromium reports every blocked script, style, image,
 * frame or connection that way) or a `securitypolicyviolation` event in any frame of the page.
 * Every spec imports `test` from here.
 */
export const test = base.extend<{ persistDir: string }>({
  // Playwright's fixture syntax: the first argument lists the fixtures used, here none.
  // eslint-disable-next-line no-empty-pattern
  baseURL: async ({}, provide, testInfo) => {
    await provide(`http://localhost:${e2eServer(testInfo.parallelIndex).port}`);
  },
  // eslint-disable-next-line no-empty-pattern
  persistDir: async ({}, provide, testInfo) => {
    await provide(e2eServer(testInfo.parallelIndex).persistDir);
  },
  page: async ({ page }, provide) => {
    const violations: string[] = [];
    page.on("console", (message) => {
      if (CSP_MESSAGE.test(message.text())) violations.push(`${message.type()}: ${message.text()}`);
    });
    await page.addInitScript(() => {
      // Chromium's own install offer would show the install banner (fixed at the bottom of the
      // viewport) at a moment no spec controls; installable-app.spec.ts dispatches its own event.
      window.addEventListener("beforeinstallprompt", (event) => {
        if (event.isTrusted) event.stopImmediatePropagation();
      });
      document.addEventListener("securitypolicyviolation", (event) => {
        console.warn(
          `Content Security Policy violation: ${event.violatedDirective} blocked ${event.blockedURI || "inline"} at ${event.sourceFile}:${event.lineNumber}`,
        );
      });
    });
    await provide(page);
    expect(violations, "Content-Security-Policy violations on the page").toEqual([]);
  },
});

/** Skips every test of the calling spec file, with the reason, when ../shared is absent. */
export function requireSharedFixtures(): void {
  test.skip(
    !HAS_SHARED,
    `../shared is not next to the repository (${SHARED_DIR}): the browser tests replay its recorded responses`,
  );
}

/** Signs in through the /auth form (Sign In tab) and waits for the dashboard. */
export async function signIn(page: Page, email: string, password = "metamind-demo"): Promise<void> {
  await page.goto("/auth");
  await page.getByRole("tab", { name: "Sign In" }).click();
  const panel = page.getByRole("tabpanel", { name: "Sign In" });
  await panel.getByLabel("Email").fill(email);
  await panel.getByLabel("Password").fill(password);
  await panel.getByRole("button", { name: "Sign In" }).click();
  await page.waitForURL((url) => url.pathname === "/");
}

/**
 * Closes the open dialog with Escape once it can hear the key. Radix registers a dialog's Escape
 * listener in the same effects that move focus into it, after the dialog is painted; a key pressed
 * in between is lost and the dialog stays open (a lazily loaded dialog widens that gap). So this
 * waits for focus inside the dialog, presses Escape and waits for the dialog to close.
 */
export async function closeDialogWithEscape(page: Page): Promise<void> {
  await expect.poll(() => page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')))).toBe(true);
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
}
