import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { expect, type Dialog, type Page } from "@playwright/test";
import { requireSharedFixtures, test } from "./shared-fixtures";

requireSharedFixtures();

/**
 * Stored XSS as the issue found it: a report saved before the parse5 stage existed holds the
 * payload unchanged. The row is written straight into local D1 (the API would sanitize it).
 */
const LEGACY_HTML =
  `<h1>Legacy report</h1><p>Pooled risk ratio 0.51</p>` +
  `<img src=x onerror="window.opener&&(window.opener.__xss='img');alert('img')">` +
  `<svg><style><img src=y onerror="window.opener&&(window.opener.__xss='mxss');alert('mxss')"></style></svg>` +
  `<script>window.opener&&(window.opener.__xss='script');alert('script')</script>`;

/** Writes `html` into saved report `id` in the local D1 of the server at `persistDir` (the worker's own). */
function storeRawHtml(persistDir: string, id: number, html: string): void {
  const sql = `UPDATE saved_reports SET html_content = '${html.replace(/'/g, "''")}' WHERE id = ${id}`;
  execFileSync(
    "node_modules/.bin/wrangler",
    ["d1", "execute", "DB", "--local", "--persist-to", persistDir, "--command", sql],
    {
      stdio: "pipe",
    },
  );
}

async function signInPro(page: Page): Promise<void> {
  await page.goto("/");
  const res = await page.request.post("/api/login", {
    data: { email: "pro@metamind.local", password: "metamind-demo" },
  });
  expect(res.status()).toBe(200);
}

test("a stored XSS payload in a saved report runs nowhere: not on Export (print tab), View or Download", async ({
  page,
  context,
  persistDir,
}) => {
  const dialogs: string[] = [];
  const onDialog = (dialog: Dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  };
  page.on("dialog", onDialog);
  context.on("page", (p) => p.on("dialog", onDialog));

  await signInPro(page);
  const saved = await page.request.post("/api/saved-reports", {
    data: {
      name: "Legacy XSS report",
      type: "meta-analysis",
      studyIds: [1],
      reportData: { description: "stored before the fix" },
      htmlContent: LEGACY_HTML,
    },
  });
  expect(saved.status()).toBe(201);
  const { report } = (await saved.json()) as { report: { id: number; htmlContent: string } };
  // What the API stores today is already clean; the raw row stands for one saved before the fix.
  expect(report.htmlContent).not.toMatch(/onerror|<script/);
  storeRawHtml(persistDir, report.id, LEGACY_HTML);

  await page.goto("/profile");
  await page.getByRole("tab", { name: "Saved Reports" }).click();
  const item = page.getByTestId("report-item").filter({ hasText: "Legacy XSS report" });
  await expect(item).toBeVisible();

  // Export: the print tab is a blob: URL (our origin) whose first element is the script-free CSP.
  const [popup] = await Promise.all([page.waitForEvent("popup"), item.getByRole("button", { name: "Export" }).click()]);
  const blocked: string[] = [];
  popup.on("console", (m) => {
    if (/Content Security Policy/.test(m.text())) blocked.push(m.text());
  });
  await popup.waitForLoadState("load");
  expect(popup.url()).toMatch(/^blob:/);
  await expect(popup.getByRole("heading", { name: "Legacy report" })).toBeVisible();
  await expect(popup.getByText("Pooled risk ratio 0.51")).toBeVisible();
  await expect(popup.locator('meta[http-equiv="Content-Security-Policy"]')).toHaveAttribute(
    "content",
    /^default-src 'none';/,
  );
  // The print call (1000 ms) has run and the handlers have had their chance.
  await page.waitForTimeout(1500);
  expect(await page.evaluate(() => (window as { __xss?: string }).__xss)).toBeUndefined();
  expect(await popup.evaluate(() => (window as { __xss?: string }).__xss)).toBeUndefined();
  await popup.close();

  // View: a sandboxed srcdoc frame without allow-scripts or allow-same-origin.
  await item.getByRole("button", { name: "View" }).click();
  await expect(page.getByTestId("report-frame")).toHaveAttribute("sandbox", "");
  await expect(
    page.frameLocator('[data-testid="report-frame"]').getByRole("heading", { name: "Legacy report" }),
  ).toBeVisible();
  await page.keyboard.press("Escape");

  // Download: the file carries the same policy, ahead of the report's own markup.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    item.getByRole("button", { name: "Download" }).click(),
  ]);
  const file = readFileSync(await download.path(), "utf8");
  expect(file.indexOf('<meta http-equiv="Content-Security-Policy" content="default-src \'none\';')).toBeGreaterThan(0);
  expect(file.indexOf("Content-Security-Policy")).toBeLessThan(file.indexOf("<h1>Legacy report</h1>"));

  await page.waitForTimeout(500);
  expect(dialogs).toEqual([]);
  expect(await page.evaluate(() => (window as { __xss?: string }).__xss)).toBeUndefined();
  await item.getByRole("button", { name: "Delete report Legacy XSS report" }).click();
  await expect(item).toHaveCount(0);
});

test("a report saved through the API today is stored without the mutation-XSS payload", async ({ page }) => {
  await signInPro(page);
  const res = await page.request.post("/api/saved-reports", {
    data: {
      name: "mXSS report",
      type: "meta-analysis",
      studyIds: [1],
      reportData: {},
      htmlContent: `<h1>Plot</h1><svg viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/><style><img src=x onerror="alert(1)"></style></svg>`,
    },
  });
  expect(res.status()).toBe(201);
  const { report } = (await res.json()) as { report: { id: number; htmlContent: string } };
  expect(report.htmlContent).toContain("<circle");
  expect(report.htmlContent).not.toMatch(/onerror|<style>/);
  const del = await page.request.delete(`/api/saved-reports/${report.id}`);
  expect(del.status()).toBe(200);
});

test("the CSP guard fails a test whose page violates the policy", async ({ page }) => {
  // Expected to fail, and only through the shared fixture: the body asserts nothing.
  test.fail();
  await page.goto("/");
  await page.evaluate(() => {
    const script = document.createElement("script");
    script.textContent = "window.__inlineRan = true";
    document.body.appendChild(script);
  });
  await page.waitForTimeout(300);
});
